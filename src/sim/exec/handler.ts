// The ExecHandler the API server calls: runs a command line in a container of a pod. Builds the
// process the command sees (filesystem, environment, working directory, streams, its PID in the
// container's namespace) and runs the command from the registry; a command the container does
// not have fails as the runtime says. The containers' filesystems carry the kernel's /proc and
// /sys/fs/cgroup, told by the applications' model what runs where (workloads/kernel-view.ts).
import type { ExecHandler, ExecIO, ExecRequest } from "../api/hooks.js";
import { defaultCommands } from "../commands/index.js";
import type { SimContext } from "../context/context.js";
import type { Container, ContainerStatus, Pod } from "../core/objects.js";
import { containerEnv } from "../userland/env.js";
import { imageWorkdir } from "../userland/image-tree.js";
import { pidSpace } from "../userland/pids.js";
import { type CommandRegistry, Proc, runHandler } from "../userland/process.js";
import { EMPTY_INPUT, iterableInput, type Output } from "../userland/stream.js";
import { imageTools } from "../userland/toolbox.js";
import { FsStore } from "../userland/volumes.js";
import { kernelView } from "../workloads/kernel-view.js";

/** A terminal turns "\n" into "\r\n" (onlcr); without it `kubectl exec -it` output staircases. */
function terminal(write: (d: string | Buffer) => void): Output {
  return { write: (d) => write(Buffer.from(String(d).replace(/\r?\n/g, "\r\n"))) };
}

/** The cluster's exec handler, shared with the kubelet's main processes (one filesystem). */
const SHARED = new WeakMap<SimContext, ContainerExec>();

export function containerExecOf(ctx: SimContext): ContainerExec {
  return SHARED.get(ctx) ?? new ContainerExec(ctx);
}

export class ContainerExec implements ExecHandler {
  readonly files: FsStore;

  constructor(
    private readonly ctx: SimContext,
    /** The commands containers have; issue-specific commands are registered here. */
    readonly commands: CommandRegistry = defaultCommands(),
  ) {
    this.files = new FsStore(ctx, kernelView(ctx));
    SHARED.set(ctx, this);
  }

  async exec(req: ExecRequest, io: ExecIO): Promise<number> {
    const pod = req.pod as Pod;
    const spec = (pod.spec?.containers ?? []).find((c: Container) => c.name === req.container);
    if (!spec) throw new Error(`container not found ("${req.container}")`);
    const status = (pod.status?.containerStatuses ?? []).find(
      (s: ContainerStatus) => s.name === req.container,
    );
    const restartCount = status?.restartCount ?? 0;
    const fs = this.files.forContainer(pod, spec, restartCount);
    const env = containerEnv(this.ctx, pod, spec);
    if (req.tty) env.set("TERM", "xterm");
    const cwd = spec.workingDir ? String(spec.workingDir) : imageWorkdir(String(spec.image ?? ""));
    // The runtime creates a missing working directory when it starts the container.
    if (!fs.stat(cwd)) fs.mkdir(cwd, true);
    const abort = new AbortController();
    io.aborted.then(() => abort.abort());
    // runc's init becomes the command: one new PID, its parent outside the namespace
    const pids = pidSpace(this.ctx, pod, spec.name, restartCount);
    const task = pids.start(req.command, 0);
    const p = new Proc({
      pod,
      container: spec,
      restartCount,
      ctx: this.ctx,
      fs: fs.forPid(task.pid),
      env,
      cwd,
      tty: req.tty,
      stdin: io.stdin ? iterableInput(io.stdin) : EMPTY_INPUT,
      stdout: req.tty ? terminal((d) => io.stdout(d)) : { write: (d) => io.stdout(d) },
      stderr: req.tty ? terminal((d) => io.stderr(d)) : { write: (d) => io.stderr(d) },
      signal: abort.signal,
      commands: this.commands,
      pid: task.pid,
      ppid: 0,
    });
    try {
      return await this.run(req, p);
    } finally {
      pids.exit(task.pid);
    }
  }

  /** The command in its process, or the runtime's error when the container has no such command. */
  private async run(req: ExecRequest, p: Proc): Promise<number> {
    const [name = ""] = req.command;
    // an image without a userland (distroless, pause) has none of the simulated commands
    const bare = imageTools(String(p.container.image ?? "")).toolset === "none" && this.commands.get(name);
    const fn = bare ? undefined : p.resolve(name);
    if (!fn) {
      const why = name.includes("/")
        ? `stat ${name}: no such file or directory`
        : `executable file not found in $PATH`;
      p.stderr.write(
        `OCI runtime exec failed: exec failed: unable to start container process: exec: "${name}": ${why}: unknown\n`,
      );
      return 127;
    }
    p.name = name.slice(name.lastIndexOf("/") + 1);
    return runHandler(fn, req.command.slice(1), p);
  }
}
