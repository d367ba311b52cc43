// A container instance's filesystem as the node's kernel completes it: /proc (procfs.ts) and
// /sys/fs/cgroup (cgroup.ts) mounted over the image and volumes, and, while an IOChaos injects
// into the container, what toda does to its mount table: the volume's mount moved to
// <parent>/__chaosfs__<name>__ and a FUSE mount at the volume path (reads and writes still reach
// the volume's files through it).

import { bytes } from "../../../util/quantity.js";
import { R } from "../../api/resources.js";
import type { SimContext } from "../../context/context.js";
import type { Container, Node, Pod } from "../../core/objects.js";
import { ContainerFs, type Mount } from "../fs.js";
import { pidSpace } from "../pids.js";
import { bootAt, procTopFiles } from "../system-files.js";
import { imageTools } from "../toolbox.js";
import { cgroupFs, nodeCpus } from "./cgroup.js";
import { mountTable } from "./mounts.js";
import { procFs } from "./procfs.js";
import type { KernelState } from "./state.js";
import type { TaskView } from "./view.js";

/** How many layers an image's root overlay stacks (lowerdir entries). */
function layersOf(image: string): number {
  const set = imageTools(image).toolset;
  if (set === "alpine-nettools") return 4;
  if (set === "busybox" || set === "none" || set === "alpine") return 1;
  return set === "debian-slim" ? 5 : 8;
}

/** An IOChaos on one of the container's volumes: toda's FUSE mount over it, the volume moved aside. */
export function injectToda(ctx: SimContext, pod: Pod, container: Container, mounts: Mount[]): void {
  for (const f of ctx.faults.of(pod.metadata.uid, "io")) {
    if (f.containers && !f.containers.includes(container.name)) continue;
    const path = f.volumePath.replace(/\/+$/, "");
    const vol = mounts.find((m) => m.path === path);
    if (!vol || mounts.some((m) => m.kind === "fuse" && m.path === path)) continue;
    const i = path.lastIndexOf("/");
    mounts.push({ ...vol, kind: "fuse", readOnly: false });
    vol.path = `${path.slice(0, i)}/__chaosfs__${path.slice(i + 1)}__`;
  }
}

/** The filesystem with the kernel's /proc and /sys/fs/cgroup for this container instance. */
export function kernelFs(
  kernel: KernelState,
  pod: Pod,
  container: Container,
  restartCount: number,
  mounts: Mount[],
  generated: Record<string, () => string>,
): ContainerFs {
  const { ctx } = kernel;
  const pids = pidSpace(ctx, pod, container.name, restartCount);
  let memo: { key: string; tasks: TaskView[] } | undefined;
  // one process list per instant and set of running commands (a directory listing asks often)
  const tasks = () => {
    const key = `${ctx.clock.now()}|${pids
      .live()
      .map((t) => t.pid)
      .join(",")}`;
    if (memo?.key !== key) memo = { key, tasks: kernel.view.tasks(pod, container, restartCount) };
    return memo.tasks;
  };
  const node = ctx.registry.tryGet(R("Node"), undefined, pod.spec?.nodeName ?? "") as Node | undefined;
  const nodeMemory = bytes(node?.status?.capacity?.memory) || 128 * 1024 ** 3;
  const image = String(container.image ?? "");
  let fs: ContainerFs | undefined;
  const table = () =>
    mountTable({
      pod,
      container,
      restartCount,
      fs: fs!,
      varRunIsDir: imageTools(image).toolset === "busybox",
      layers: layersOf(image),
      nodeMemory,
    });
  const proc = procFs({
    ctx,
    kernel,
    pod,
    container,
    tasks,
    mounts: table,
    files: procTopFiles(ctx, pod, container),
    bootAt: bootAt(ctx, pod),
    cpus: nodeCpus(ctx, pod),
  });
  const cgroup = cgroupFs({ ctx, meters: kernel.meters, pod, container, restartCount, tasks });
  fs = new ContainerFs(mounts, generated, () => ctx.clock.now(), [proc, cgroup]);
  return fs;
}
