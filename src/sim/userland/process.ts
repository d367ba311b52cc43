// What a command is given when it runs in a container, and the registry of commands by name.
// A command is a function (args, proc) => exit code. The proc carries the container (pod, spec,
// filesystem, environment, working directory), the cluster (ctx: failure model, registry,
// clock), its three streams and an abort signal (the client went away), and its PID in the
// container's PID namespace (pids.ts): a command another one starts is a child process with the
// next PID, listed in ps and /proc while it runs. Commands never throw to the caller: what they
// throw is printed as `name: message` and becomes exit code 1.

import type { SimContext } from "../context/context.js";
import type { Clock } from "../core/clock.js";
import type { Container, Pod } from "../core/objects.js";
import type { KObject } from "../core/types.js";
import { type ContainerFs, FsError, resolvePath } from "./fs.js";
import { pidSpace, type Task } from "./pids.js";
import type { Input, Output } from "./stream.js";

export interface Stdio {
  stdin: Input;
  stdout: Output;
  stderr: Output;
}

export interface ProcInit extends Stdio {
  pod: KObject;
  /** The container's spec from the pod. */
  container: Container;
  /** Restart count of the container instance the command runs in. */
  restartCount: number;
  ctx: SimContext;
  fs: ContainerFs;
  env: Map<string, string>;
  cwd: string;
  tty: boolean;
  signal: AbortSignal;
  commands: CommandRegistry;
  /** PID in the container's namespace (default 1: the main process the runtime starts). */
  pid?: number;
  ppid?: number;
}

export type CommandHandler = (args: string[], p: Proc) => number | Promise<number>;

/** Directories whose commands a bare name finds (PATH). */
const BIN_DIRS = new Set(["/bin", "/sbin", "/usr/bin", "/usr/sbin", "/usr/local/bin", "/usr/local/sbin"]);

export class CommandRegistry {
  private readonly map = new Map<string, CommandHandler>();

  /** Register a command under one or more names (later registrations replace earlier ones). */
  register(names: string | string[], fn: CommandHandler): this {
    for (const n of Array.isArray(names) ? names : [names]) this.map.set(n, fn);
    return this;
  }

  /** A command by name, or by path in a bin directory ("/bin/sh", "/usr/bin/env"). */
  get(name: string): CommandHandler | undefined {
    if (!name.includes("/")) return this.map.get(name);
    const i = name.lastIndexOf("/");
    return BIN_DIRS.has(name.slice(0, i)) ? this.map.get(name.slice(i + 1)) : undefined;
  }

  names(): string[] {
    return [...this.map.keys()].sort();
  }
}

export class Proc implements Stdio {
  readonly pod: Pod;
  readonly container: Container;
  readonly restartCount: number;
  readonly ctx: SimContext;
  readonly clock: Clock;
  readonly fs: ContainerFs;
  readonly env: Map<string, string>;
  cwd: string;
  readonly tty: boolean;
  readonly stdin: Input;
  readonly stdout: Output;
  readonly stderr: Output;
  readonly signal: AbortSignal;
  readonly commands: CommandRegistry;
  readonly pid: number;
  readonly ppid: number;
  /** The name the command was invoked by (for messages). */
  name = "";
  /**
   * Cluster time this process has waited (its sleeps and its children's), from its parent's at its
   * start. The program's own time: what the clock shows also counts the simulator's work, which
   * at speed 600 turns a millisecond of wall time into 600 ms (time.ts reads this).
   */
  waited = 0;

  constructor(init: ProcInit) {
    // every caller passes the pod the container belongs to
    this.pod = init.pod as Pod;
    this.container = init.container;
    this.restartCount = init.restartCount;
    this.ctx = init.ctx;
    this.clock = init.ctx.clock;
    this.fs = init.fs;
    this.env = init.env;
    this.cwd = init.cwd;
    this.tty = init.tty;
    this.stdin = init.stdin;
    this.stdout = init.stdout;
    this.stderr = init.stderr;
    this.signal = init.signal;
    this.commands = init.commands;
    this.pid = init.pid ?? 1;
    this.ppid = init.ppid ?? 0;
  }

  /**
   * A child context: same container, its own copy of env, maybe other streams. With a task it is
   * that new process (its PID, and /proc/self pointing at it); without, the same process (a
   * subshell the simulation does not fork).
   */
  child(
    over: Partial<Pick<ProcInit, "stdin" | "stdout" | "stderr" | "env" | "cwd">> = {},
    task?: Task,
  ): Proc {
    const c = new Proc({
      ...this,
      env: new Map(over.env ?? this.env),
      ...over,
      ...pickStdio(this, over),
      pid: task?.pid ?? this.pid,
      ppid: task?.ppid ?? this.ppid,
      fs: task ? this.fs.forPid(task.pid) : this.fs,
    });
    c.waited = this.waited;
    return c;
  }

  /** An absolute path for a path the user gave, against the working directory. */
  path(p: string): string {
    return resolvePath(this.cwd, p);
  }

  out(text: string): void {
    this.stdout.write(text);
  }

  /** Print `name: message` on stderr and return the exit code (for `return p.fail(...)`). */
  fail(message: string, code = 1): number {
    this.stderr.write(`${this.name}: ${message}\n`);
    return code;
  }

  /** Wait `ms` of cluster time; false when interrupted because the client went away. */
  sleep(ms: number): Promise<boolean> {
    if (this.signal.aborted) return Promise.resolve(false);
    const from = this.clock.now();
    return new Promise((resolve) => {
      const onAbort = () => {
        cancel();
        this.waited += Math.min(Math.max(0, ms), this.clock.now() - from);
        resolve(false);
      };
      const cancel = this.clock.after(ms, () => {
        this.signal.removeEventListener("abort", onAbort);
        this.waited += Math.max(0, ms);
        resolve(true);
      });
      this.signal.addEventListener("abort", onAbort, { once: true });
    });
  }

  /** The handler a name runs: a registered command, or a script file in the container. */
  resolve(name: string): CommandHandler | undefined {
    const cmd = this.commands.get(name);
    if (cmd) return cmd;
    if (!name.includes("/")) return undefined;
    const st = this.fs.stat(this.path(name));
    const sh = this.commands.get("sh");
    if (!st || st.dir || !sh) return undefined;
    // Any file run by path is taken as a shell script (the image's binaries are not modelled).
    return (args, p) => sh([p.path(name), ...args], p);
  }

  /** Run a command in a child process; undefined when no such command exists. */
  async spawn(
    argv: string[],
    over: Partial<Pick<ProcInit, "stdin" | "stdout" | "stderr" | "env" | "cwd">> = {},
  ): Promise<number | undefined> {
    const fn = this.resolve(argv[0] ?? "");
    if (!fn) return undefined;
    const pids = pidSpace(this.ctx, this.pod, this.container.name, this.restartCount);
    const task = pids.start(argv, this.pid);
    const child = this.child(over, task);
    child.name = argv[0].slice(argv[0].lastIndexOf("/") + 1);
    try {
      return await runHandler(fn, argv.slice(1), child);
    } finally {
      pids.exit(task.pid);
      this.join(child);
    }
  }

  /**
   * A child this process waited for has ended: this process waited as long as it did (children
   * run at once, as a pipeline's, count the longest).
   */
  join(child: Proc): void {
    this.waited = Math.max(this.waited, child.waited);
  }
}

function pickStdio(p: Stdio, over: Partial<Stdio>): Stdio {
  return { stdin: over.stdin ?? p.stdin, stdout: over.stdout ?? p.stdout, stderr: over.stderr ?? p.stderr };
}

/** Run a handler, turning what it throws into a message and exit code 1. */
export async function runHandler(fn: CommandHandler, args: string[], p: Proc): Promise<number> {
  try {
    const code = await fn(args, p);
    return Number.isInteger(code) ? code & 255 : 0;
  } catch (e) {
    if (e instanceof FsError) return p.fail(`${e.path}: ${e.message}`);
    return p.fail((e as Error)?.message ?? String(e));
  }
}
