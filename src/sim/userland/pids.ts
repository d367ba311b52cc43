// The PID namespace of a container instance, as far as exec and the shells fill it: the PIDs the
// kernel hands out (increasing, starting a few above PID 1, as after the runtime's own short-lived
// helpers) and which of the processes started in it run now. A `kubectl exec` is one process
// (runc's init turned into the command, its parent outside the namespace: PPid 0); every command
// a shell or `env` starts is a child with the next PID. ps, top, kill and /proc list these beside
// PID 1 and what Chaos Mesh runs in the container (workloads/topology/processes.ts).

import { hashString } from "../../util/rng.js";
import type { SimContext } from "../context/context.js";
import type { KObject } from "../core/types.js";

export interface Task {
  pid: number;
  /** 0: started from outside the namespace (kubectl exec, a probe). */
  ppid: number;
  argv: string[];
  /** Cluster ms. */
  startedAt: number;
}

export const instanceKey = (pod: KObject, container: string, restartCount: number) =>
  `${pod.metadata.uid}/${container}/${restartCount}`;

interface Space {
  last: number;
  live: Map<number, Task>;
}

const books = new WeakMap<SimContext, Map<string, Space>>();

function spaceAt(ctx: SimContext, key: string): Space {
  let book = books.get(ctx);
  if (!book) {
    book = new Map();
    books.set(ctx, book);
  }
  let s = book.get(key);
  if (!s) {
    s = { last: 6 + (hashString(key) % 20), live: new Map() };
    book.set(key, s);
  }
  return s;
}

/** One container instance's PIDs. */
export class PidSpace {
  private readonly s: Space;

  constructor(
    private readonly ctx: SimContext,
    readonly key: string,
  ) {
    this.s = spaceAt(ctx, key);
  }

  /** The next PID (and `n - 1` more reserved before it). */
  next(n = 1): number {
    this.s.last += n;
    return this.s.last;
  }

  /** A process starts: it gets the next PID and is listed until it exits. */
  start(argv: string[], ppid: number): Task {
    const t: Task = { pid: this.next(), ppid, argv, startedAt: this.ctx.clock.now() };
    this.s.live.set(t.pid, t);
    return t;
  }

  exit(pid: number): void {
    this.s.live.delete(pid);
  }

  /** The processes exec started that still run, by PID. */
  live(): Task[] {
    return [...this.s.live.values()].sort((a, b) => a.pid - b.pid);
  }
}

export function pidSpace(ctx: SimContext, pod: KObject, container: string, restartCount: number): PidSpace {
  return new PidSpace(ctx, instanceKey(pod, container, restartCount));
}

/** A pod left: its containers' namespaces go with it. */
export function forgetPidSpaces(ctx: SimContext, podUid: string): void {
  const book = books.get(ctx);
  for (const k of [...(book?.keys() ?? [])]) if (k.startsWith(`${podUid}/`)) book!.delete(k);
}
