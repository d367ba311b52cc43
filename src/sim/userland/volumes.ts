// Where each container's files live between exec sessions: one root layer per container instance
// (a restart starts from the image again), one layer per emptyDir (shared by the pod's containers,
// gone with the pod), one per PersistentVolumeClaim (outlives pods) and per hostPath on a node.
// ConfigMap and Secret volumes are read from the cluster on every read, as the kubelet syncs them.
// The kernel's filesystems come with it: /proc (kernel/procfs.ts) and /sys/fs/cgroup
// (kernel/cgroup.ts), and while an IOChaos injects into the container, the FUSE mount toda puts
// over the volume (the volume's own mount moved aside to __chaosfs__<name>__).

import { bytes } from "../../util/quantity.js";
import type { SimContext } from "../context/context.js";
import { parseStamp } from "../core/clock.js";
import type { Container, KeyToPath, Pod, Volume, VolumeProjection } from "../core/objects.js";
import type { KObject } from "../core/types.js";
import { sourceData } from "./env.js";
import { type ContainerFs, Layer, type Mount } from "./fs.js";
import { imageTree, type TreeNode } from "./image-tree.js";
import { injectToda, kernelFs } from "./kernel/container.js";
import { type KernelState, kernelOf } from "./kernel/state.js";
import { type KernelView, NO_VIEW } from "./kernel/view.js";
import { forgetPidSpaces } from "./pids.js";
import { systemFiles } from "./system-files.js";

const parentOf = (rel: string) => rel.slice(0, rel.lastIndexOf("/"));
const SA_PATH = "/var/run/secrets/kubernetes.io/serviceaccount";

export class FsStore {
  private readonly layers = new Map<string, Layer>();
  readonly kernel: KernelState;

  constructor(
    private readonly ctx: SimContext,
    /** What the applications' model says the kernel shows (processes, sockets, traffic). */
    view: KernelView = NO_VIEW,
  ) {
    this.kernel = kernelOf(ctx, view);
    // A deleted pod's root layers, emptyDirs and PID namespaces go with it.
    ctx.store.subscribe((e) => {
      if (e.type === "DELETED" && e.rt.kind === "Pod" && e.object.metadata.uid) {
        this.forget(`${e.object.metadata.uid}/`);
        forgetPidSpaces(ctx, e.object.metadata.uid);
      }
    });
  }

  private forget(prefix: string) {
    for (const k of [...this.layers.keys()]) if (k.startsWith(prefix)) this.layers.delete(k);
  }

  private layer(key: string, dirs: string[] = []): Layer {
    let l = this.layers.get(key);
    if (!l) {
      l = new Layer(this.ctx.clock.now(), dirs);
      this.layers.set(key, l);
    }
    return l;
  }

  /**
   * A container instance's root: a fresh copy of its image's tree (image-tree.ts). What the
   * runtime makes when it starts the container dates from that start: the root itself, /etc
   * (where it mounts hostname, hosts and resolv.conf) and /dev, a tmpfs of its own.
   */
  private rootLayer(key: string, image: string, startedAt: number): Layer {
    const known = this.layers.get(key);
    if (known) return known;
    const tree = imageTree(image);
    const l = new Layer(startedAt, [], tree.nodes);
    this.layers.set(key, l);
    const started = (rel: string, extra: Partial<TreeNode> = {}) => {
      const n = l.nodes.get(rel);
      if (n?.dir) l.nodes.set(rel, { ...n, mtime: startedAt, ...extra });
    };
    started("", { nlink: 1 });
    started("etc", { nlink: 1 });
    started("dev", { size: 360, nlink: 5 });
    started("sys", { size: 0, nlink: 13, mode: 0o555 });
    // the runtime's mounts inside them (runc's default mounts; /sys/firmware masked)
    for (const d of ["dev/pts", "dev/mqueue", "dev/shm", "sys/firmware"])
      if (l.nodes.has(parentOf(d)))
        l.nodes.set(d, {
          dir: true,
          data: Buffer.alloc(0),
          mtime: startedAt,
          mode: d === "dev/shm" ? 0o1777 : 0o755,
        });
    return l;
  }

  /** The filesystem of one container instance of a pod. */
  forContainer(obj: KObject, container: Container, restartCount: number): ContainerFs {
    const pod = obj as Pod;
    const uid = pod.metadata.uid ?? `${pod.metadata.namespace}/${pod.metadata.name}`;
    const ns = pod.metadata.namespace!;
    const rootKey = `${uid}/root/${container.name}/`;
    const status = [
      ...(pod.status?.containerStatuses ?? []),
      ...(pod.status?.initContainerStatuses ?? []),
    ].find((c) => c.name === container.name);
    const startedAt = parseStamp(this.ctx.clock, status?.state?.running?.startedAt) || this.ctx.clock.now();
    // An earlier instance's root is gone once the container restarted.
    for (const k of [...this.layers.keys()])
      if (k.startsWith(rootKey) && k !== `${rootKey}${restartCount}`) this.layers.delete(k);
    const mounts: Mount[] = [
      {
        path: "/",
        volume: "",
        kind: "root",
        readOnly: false,
        layer: this.rootLayer(`${rootKey}${restartCount}`, String(container.image ?? ""), startedAt),
      },
    ];
    const generated = systemFiles(this.ctx, pod, container);
    const volumes = new Map<string, Volume>((pod.spec?.volumes ?? []).map((v: Volume) => [v.name, v]));
    for (const vm of container.volumeMounts ?? []) {
      const v = volumes.get(vm.name);
      if (!v || !vm.mountPath) continue;
      // the bound token volume admission adds: its files come from the token mount below
      if (
        v.projected?.sources?.some((src: VolumeProjection) => src.serviceAccountToken) &&
        vm.mountPath === SA_PATH
      )
        continue;
      const path = String(vm.mountPath).replace(/\/+$/, "") || "/";
      const readOnly = vm.readOnly === true;
      const gen = (kind: "ConfigMap" | "Secret", name: string | undefined, items?: KeyToPath[]) => () => {
        const data = sourceData(this.ctx, kind, ns, name) ?? {};
        if (!items?.length) return data;
        return Object.fromEntries(items.filter((i) => i.key in data).map((i) => [i.path, data[i.key]]));
      };
      let files: (() => Record<string, string>) | undefined;
      if (v.configMap) files = gen("ConfigMap", v.configMap.name, v.configMap.items);
      else if (v.secret) files = gen("Secret", v.secret.secretName, v.secret.items);
      if (files) {
        // A subPath mount of a ConfigMap/Secret is one file at the mount path (nginx.conf style).
        if (vm.subPath) {
          const f = files;
          const sub = vm.subPath;
          generated[path] = () => f()[sub] ?? "";
        } else
          mounts.push({
            path,
            volume: vm.name,
            kind: v.configMap ? "configMap" : "secret",
            readOnly: true,
            files,
          });
        continue;
      }
      if (v.emptyDir) {
        mounts.push({
          path,
          volume: vm.name,
          kind: v.emptyDir.medium === "Memory" ? "tmpfs" : "emptyDir",
          readOnly,
          layer: this.layer(`${uid}/vol/${vm.name}`),
          sizeLimit: v.emptyDir.sizeLimit ? bytes(v.emptyDir.sizeLimit) : undefined,
        });
      } else if (v.persistentVolumeClaim) {
        mounts.push({
          path,
          volume: vm.name,
          kind: "persistentVolumeClaim",
          readOnly,
          layer: this.layer(`pvc/${ns}/${v.persistentVolumeClaim.claimName}`),
        });
      } else if (v.hostPath) {
        mounts.push({
          path,
          volume: vm.name,
          kind: "hostPath",
          readOnly,
          layer: this.layer(`host/${pod.spec?.nodeName}/${v.hostPath.path}`),
        });
      } else {
        mounts.push({
          path,
          volume: vm.name,
          kind: "other",
          readOnly,
          layer: this.layer(`${uid}/vol/${vm.name}`),
        });
      }
    }
    // The admission controller mounts the service account's token unless told not to.
    // (a container has no such field in the API; one a manifest sets is honoured all the same)
    const own = (container as { automountServiceAccountToken?: boolean }).automountServiceAccountToken;
    const automount = own ?? pod.spec?.automountServiceAccountToken ?? true;
    if (automount && !mounts.some((m) => m.path === SA_PATH)) {
      mounts.push({
        path: SA_PATH,
        volume: "kube-api-access",
        kind: "tmpfs",
        readOnly: true,
        // the kubelet's TokenRequest bound to this pod, and the cluster CA (cluster/in-cluster.ts)
        files: () => {
          const t = this.ctx.apiserver?.projectedToken(pod);
          return { namespace: ns, token: t?.token ?? "", "ca.crt": t?.ca ?? "" };
        },
      });
    }
    injectToda(this.ctx, pod, container, mounts);
    return kernelFs(this.kernel, pod, container, restartCount, mounts, generated);
  }
}
