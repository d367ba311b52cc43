// The main process of a container that no topology describes: its `command` and `args` (or the
// image's default shell) run in the simulated POSIX shell, on the cluster clock, as the container
// runtime would run them. What it writes to stdout and stderr goes into the pod log line by line
// (kubectl logs); when it exits the kubelet is told, and the exit code decides Completed or Error
// and whether restartPolicy restarts it (the kubelet's stages do the rest: back-off included).
//
// Only command lines the simulation can run are run: a shell, a command of the exec registry
// (python among them: a script it cannot open exits 2, a bare interpreter without input exits 0,
// a server script becomes the application, workloads/launch.ts), or a script file in the
// container. Anything else (nginx, java -jar, a Go binary) is a server the model keeps running. A command the image does not have (/bin/sh in a distroless
// image) fails to start as runc says: StartError, exit code 128.

import type { ContainerRef } from "../context/behavior.js";
import type { SimContext } from "../context/context.js";
import type { Container } from "../core/objects.js";
import type { KObject } from "../core/types.js";
import { containerExecOf } from "../exec/handler.js";
import { runHandler } from "../userland/process.js";
import { EMPTY_INPUT, type Input, type Output, Pipe } from "../userland/stream.js";
import { imageHas, imageTools, isPause } from "../userland/toolbox.js";
import { launchProgram, runAsMain } from "../workloads/launch.js";
import { ExecProbes } from "./command-probes.js";
import { containerProc } from "./container-proc.js";

/** Instances whose exit is remembered (oldest dropped first). */
const MAX_PROCS = 20_000;
/** What containerd reports when runc cannot start the process (then the exec error). */
const START_FAILED =
  "failed to create containerd task: failed to create shim task: OCI runtime create failed: runc create failed: unable to start container process:";
const SHELLS = new Set(["sh", "/bin/sh", "bash", "/bin/bash", "ash", "/bin/ash"]);
/** An image whose CMD is a bare interpreter (python:*'s `python3`, no ENTRYPOINT): args replace it. */
const INTERPRETERS = new Set(["python", "python3"]);

export interface Exit {
  code: number;
  /** Cluster ms. */
  at: number;
  /** Why it never ran (runc's message), for the terminated state. */
  startError?: string;
}

interface Running {
  abort: AbortController;
  exit?: Exit;
}

/** The argv the runtime runs: command + args, else (for a shell image) args or the shell. */
export function mainArgv(spec: Container | undefined): string[] | undefined {
  const cmd: string[] = (spec?.command ?? []).map(String);
  const args: string[] = (spec?.args ?? []).map(String);
  if (cmd.length) return [...cmd, ...args];
  const tools = imageTools(String(spec?.image ?? ""));
  // an ENTRYPOINT the simulation runs (bitnami/kubectl): args go to it, else its default CMD
  if (tools.entrypoint)
    return args.length ? [tools.entrypoint, ...args] : (tools.process ?? tools.entrypoint).split(" ");
  const dflt = tools.process;
  // an image whose default process is a shell (busybox, alpine, centos) has it as CMD with no
  // ENTRYPOINT: args replace it (`args: [sleep, "3600"]` runs sleep), else the shell runs
  if (dflt && (SHELLS.has(dflt) || INTERPRETERS.has(dflt))) return args.length ? args : [dflt];
  // args that start with a shell: an image without ENTRYPOINT (the docs examples)
  return args.length && SHELLS.has(args[0]) ? args : undefined;
}

const instanceKey = (ref: ContainerRef) =>
  `${ref.pod.metadata.uid}/${ref.container.name}/${ref.restartCount}`;

/** Where programs live: a path in them may name any of the distribution's many commands. */
const BIN_DIR = /^\/(usr\/(local\/)?)?s?bin\//;

/**
 * Why runc cannot start the container's command, if it cannot: an image without a userland
 * (distroless, pause) has no shell or coreutils to run, and an image the catalog describes has no
 * program at a path outside its bin directories other than its runtime's and its own (a
 * `command: ["/app/server"]` for a Go service built to /src/server), unless the pod put a file
 * there (`exists`: the container's filesystem, volumes included). The kubelet then reports
 * StartError.
 */
export function startFailure(
  spec: Container | undefined,
  exists: (path: string) => boolean = () => false,
): string | undefined {
  const argv = mainArgv(spec);
  const image = String(spec?.image ?? "");
  if (!argv || imageHas(image, argv[0])) return undefined;
  const tools = imageTools(image);
  // pause too: Chaos Mesh's pod-failure swaps only the image and keeps the command
  // (controllers/chaosimpl/podchaos/podfailure/impl.go), and pause is FROM scratch with /pause
  const lacks =
    tools.toolset === "none" ||
    (tools.known && argv[0].startsWith("/") && !BIN_DIR.test(argv[0]) && !exists(argv[0]));
  if (!lacks) return undefined;
  const why = argv[0].includes("/")
    ? `stat ${argv[0]}: no such file or directory`
    : "executable file not found in $PATH";
  return `${START_FAILED} exec: "${argv[0]}": ${why}: unknown`;
}

/** startFailure for a container instance, its filesystem consulted (a mounted script runs). */
export function startFailureOf(ctx: SimContext, pod: KObject, spec: Container, restartCount: number) {
  return startFailure(spec, (path) => {
    const st = containerExecOf(ctx).files.forContainer(pod, spec, restartCount).stat(path);
    return !!st && !st.dir;
  });
}

/** One line-buffered stream into the pod log. */
function logSink(ctx: SimContext, pod: KObject, container: string): Output & { flush(): void } {
  let partial = "";
  return {
    write(d) {
      const text = partial + String(d);
      const cut = text.lastIndexOf("\n");
      if (cut < 0) {
        partial = text;
        return;
      }
      partial = text.slice(cut + 1);
      ctx.logs.append(pod.metadata.uid!, container, text.slice(0, cut));
    },
    flush() {
      if (partial) ctx.logs.append(pod.metadata.uid!, container, partial);
      partial = "";
    },
  };
}

export class MainProcesses {
  private readonly procs = new Map<string, Running>();
  private readonly decided = new Map<string, boolean>();
  /** The exec probes of the processes run here (command-probes.ts). */
  readonly probes: ExecProbes;

  constructor(private readonly ctxOf: () => SimContext) {
    this.probes = new ExecProbes(ctxOf);
  }

  /** Whether the simulation runs this container's command (else it is a generic server). */
  runs(ref: ContainerRef): boolean {
    const key = instanceKey(ref);
    if (this.procs.has(key)) return true;
    let known = this.decided.get(key);
    if (known === undefined) {
      known = this.decide(ref);
      if (this.decided.size >= MAX_PROCS) this.decided.delete(this.decided.keys().next().value!);
      this.decided.set(key, known);
    }
    return known;
  }

  private decide(ref: ContainerRef): boolean {
    // pause runs its own /pause, or a command it lacks fails to start (startFailure)
    if (isPause(ref.container)) return false;
    const argv = mainArgv(ref.container);
    if (!argv) return false;
    const exec = containerExecOf(this.ctxOf());
    if (exec.commands.get(argv[0])) return true;
    // the image's own program (a Go service's /src/server): a binary the topology describes
    if (imageHas(String(ref.container.image ?? ""), argv[0])) return false;
    // a script the container holds (a ConfigMap mounted with a run script)
    if (!argv[0].startsWith("/")) return false;
    const fs = exec.files.forContainer(ref.pod, ref.container, ref.restartCount);
    const st = fs.stat(argv[0]);
    return !!st && !st.dir;
  }

  /** The instance's exit, once it happened (starting the process on first sight). */
  exit(ref: ContainerRef, now: number): Exit | undefined {
    const exit = this.ensure(ref).exit;
    return exit && now >= exit.at ? exit : undefined;
  }

  /** How an instance ended, if it ran here and ended. */
  exitOf(ref: ContainerRef): Exit | undefined {
    return this.procs.get(instanceKey(ref))?.exit;
  }

  /** The container stopped (killed, or its pod is going): end the process. */
  stop(ref: ContainerRef): void {
    const p = this.procs.get(instanceKey(ref));
    if (p && !p.exit) p.abort.abort();
  }

  /** Forget every instance of a pod (it left the cluster). */
  forget(podUid: string): void {
    for (const [k, p] of this.procs)
      if (k.startsWith(`${podUid}/`)) {
        p.abort.abort();
        this.procs.delete(k);
      }
    for (const k of [...this.decided.keys()]) if (k.startsWith(`${podUid}/`)) this.decided.delete(k);
  }

  /**
   * The instance's process, started on first sight. `now`: start it within this call (a service's
   * command, which becomes the application as it starts: its start-up lines follow at once);
   * otherwise it starts after the kubelet's start.
   */
  ensure(ref: ContainerRef, now = false): Running {
    const key = instanceKey(ref);
    let p = this.procs.get(key);
    if (p) return p;
    if (this.procs.size >= MAX_PROCS) {
      const [oldKey, old] = this.procs.entries().next().value!;
      old.abort.abort();
      this.procs.delete(oldKey);
    }
    // an earlier instance of the same container has ended: the runtime killed it
    const prev = `${ref.pod.metadata.uid}/${ref.container.name}/${ref.restartCount - 1}`;
    this.procs.get(prev)?.abort.abort();
    p = { abort: new AbortController() };
    this.procs.set(key, p);
    this.start(ref, p, now);
    if (!p.exit) this.probes.schedule(ref, p.abort.signal);
    return p;
  }

  private start(ref: ContainerRef, p: Running, now: boolean): void {
    const ctx = this.ctxOf();
    const { pod, container: spec } = ref;
    const argv = mainArgv(spec)!;
    const exited = (code: number, startError?: string) => {
      if (p.exit) return;
      p.exit = { code, at: ctx.clock.now(), startError };
      // the kubelet looks at the pod again (pod key as its controller queue keys them)
      ctx.runtime.enqueue("kubelet", `${pod.metadata.namespace ?? ""}/${pod.metadata.name}`);
    };
    const failure = startFailureOf(ctx, pod, spec, ref.restartCount);
    if (failure) {
      exited(128, failure);
      return;
    }
    const out = logSink(ctx, pod, spec.name);
    // `stdin: true` keeps the shell's input open (kubectl run -i); otherwise it reads EOF at once
    const stdin: Input = spec.stdin ? new Pipe() : EMPTY_INPUT;
    const proc = containerProc(ctx, ref, { stdin, stdout: out, stderr: out }, p.abort.signal);
    const fn = proc.resolve(argv[0]);
    if (!fn) {
      exited(128, `${START_FAILED} exec: "${argv[0]}": executable file not found in $PATH: unknown`);
      return;
    }
    proc.name = argv[0].slice(argv[0].lastIndexOf("/") + 1);
    // until the command becomes the application, the topology's service does not serve
    launchProgram(ctx, pod, spec.name, ref.restartCount);
    const run = () =>
      runAsMain(() => runHandler(fn, argv.slice(1), proc))
        .then((code) => {
          out.flush();
          // a process the kubelet stopped ends as the stage that stopped it says
          if (!p.abort.signal.aborted) exited(code);
        })
        .catch((e: unknown) => {
          out.flush();
          ctx.logs.append(pod.metadata.uid!, spec.name, String((e as Error)?.message ?? e));
          exited(1);
        });
    // otherwise run after the kubelet's start: the process's first output follows the Started event
    if (now) void run();
    else queueMicrotask(() => void run());
  }
}

const REGISTRY = new WeakMap<SimContext, MainProcesses>();

/** The cluster's main processes (one table per cluster, shared by the behavior and the kubelet). */
export function processesOf(ctx: SimContext): MainProcesses {
  let p = REGISTRY.get(ctx);
  if (!p) {
    p = new MainProcesses(() => ctx);
    REGISTRY.set(ctx, p);
  }
  return p;
}
