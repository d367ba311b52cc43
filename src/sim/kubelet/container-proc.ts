// A process in a container instance, as the runtime starts one: the container's filesystem
// (image, volumes, /proc), its environment and working directory, the exec command registry.
// The main process (command.ts) and exec probes (command-probes.ts) both run in one.
import type { ContainerRef } from "../context/behavior.js";
import type { SimContext } from "../context/context.js";
import { containerExecOf } from "../exec/handler.js";
import { containerEnv } from "../userland/env.js";
import { imageWorkdir } from "../userland/image-tree.js";
import { Proc, type Stdio } from "../userland/process.js";

/** A process in the container instance's filesystem and environment (main process or probe). */
export function containerProc(ctx: SimContext, ref: ContainerRef, io: Stdio, signal: AbortSignal): Proc {
  const { pod, container: spec } = ref;
  const exec = containerExecOf(ctx);
  const fs = exec.files.forContainer(pod, spec, ref.restartCount);
  const cwd = spec.workingDir ? String(spec.workingDir) : imageWorkdir(String(spec.image ?? ""));
  if (!fs.stat(cwd)) fs.mkdir(cwd, true);
  return new Proc({
    pod,
    container: spec,
    restartCount: ref.restartCount,
    ctx,
    fs,
    env: containerEnv(ctx, pod, spec, ref.restartCount),
    cwd,
    tty: !!spec.tty,
    ...io,
    signal,
    commands: exec.commands,
  });
}
