// A container's filesystem, in memory: the image's root (a layer per container instance, so a
// restart loses what was written there, as with a real overlay), and the pod's volumes mounted at
// their mountPaths (emptyDir shared by the pod's containers and kept across restarts, a PVC kept
// across pods, configMap/secret volumes read-only and read live from the cluster). Generated
// files (/etc/hostname, ...) are functions evaluated on read; the kernel's pseudo filesystems
// (/proc, /sys/fs/cgroup) answer lookups as they are made, with symlinks (/proc/self) resolved
// for the process that reads (each process has its own view: `forPid`).

import { canonicalIn, type FileInfo, FsError, type TreeNode } from "./fs-base.js";
import { type PseudoFs, PseudoView } from "./pseudo.js";

export { type FileInfo, type FsCode, FsError, resolvePath } from "./fs-base.js";
export type { PseudoFs, PseudoNode } from "./pseudo.js";

/** A file, directory or symlink; the optional parts are an image's (image-tree.ts). */
type Node = TreeNode;

/** Files of one mount (or of the root), by path relative to the mount ("" is its top). */
export class Layer {
  readonly nodes: Map<string, Node>;
  /** `base`: an image's tree, copied (its nodes are never changed in place, only replaced). */
  constructor(now: number, dirs: string[] = [], base?: ReadonlyMap<string, Node>) {
    this.nodes = new Map(base);
    if (!base?.has("")) this.nodes.set("", { dir: true, data: Buffer.alloc(0), mtime: now });
    for (const d of dirs) this.nodes.set(d, { dir: true, data: Buffer.alloc(0), mtime: now });
  }
  get bytes(): number {
    let n = 0;
    for (const v of this.nodes.values()) n += v.data.length;
    return n;
  }
}

export type MountKind =
  | "root"
  | "emptyDir"
  | "tmpfs"
  | "persistentVolumeClaim"
  | "hostPath"
  | "configMap"
  | "secret"
  | "fuse"
  | "other";

export interface Mount {
  /** Absolute mount path ("/" for the root). */
  path: string;
  volume: string;
  kind: MountKind;
  readOnly: boolean;
  /** Writable content; absent for generated volumes (configMap, secret). */
  layer?: Layer;
  /** Generated read-only files (relative path -> content), read when asked. */
  files?: () => Record<string, string>;
  /** emptyDir sizeLimit in bytes, if any. */
  sizeLimit?: number;
}

const join = (dir: string, name: string) => (dir === "/" ? `/${name}` : `${dir}/${name}`);
const parentOf = (rel: string) => (rel.includes("/") ? rel.slice(0, rel.lastIndexOf("/")) : "");

export class ContainerFs {
  /** Mounts, longest path first, so the deepest mount wins. */
  readonly mounts: Mount[];

  constructor(
    mounts: Mount[],
    /** Generated files by absolute path (the root's /etc/hostname, /etc/resolv.conf, ...). */
    private readonly generated: Partial<Record<string, () => string>>,
    private readonly now: () => number,
    pseudo: PseudoFs[] = [],
    /** The PID of the process this view belongs to (what /proc/self points at). */
    readonly self = 1,
  ) {
    // runc resolves a mount's destination through the image's links (/var/run -> /run)
    const root = mounts.find((m) => m.path === "/")?.layer;
    const real = (m: Mount) =>
      root && m.path !== "/" ? { ...m, path: `/${canonicalIn(root.nodes, m.path.slice(1), true)}` } : m;
    this.mounts = mounts.map(real).sort((a, b) => b.path.length - a.path.length);
    this.pseudo = new PseudoView(pseudo, self, now);
  }

  /** The kernel's pseudo filesystems, as this process sees them. */
  readonly pseudo: PseudoView;

  /** The same filesystem as another process of the container sees it. */
  forPid(pid: number): ContainerFs {
    return new ContainerFs(this.mounts, this.generated, this.now, this.pseudo.filesystems, pid);
  }

  /** The mount holding an absolute path, and the path inside it. */
  mountOf(path: string): { mount: Mount; rel: string } {
    for (const m of this.mounts) {
      if (m.path === "/" || path === m.path || path.startsWith(`${m.path}/`)) {
        return { mount: m, rel: m.path === "/" ? path.slice(1) : path.slice(m.path.length + 1) };
      }
    }
    throw new FsError("ENOENT", path); // unreachable: the root is always mounted
  }

  /** The root layer's symlinks resolved (an image's /bin -> usr/bin), then the kernel's. */
  private resolve(path0: string, followLast = true): string {
    const root = this.mounts[this.mounts.length - 1]?.layer;
    const path = root && path0 !== "/" ? `/${canonicalIn(root.nodes, path0.slice(1), followLast)}` : path0;
    return this.pseudo.canonical(path);
  }

  /** Like stat, but a symlink at the end of the path is described rather than followed. */
  lstat(path: string): FileInfo | undefined {
    if (path === "/") return this.stat(path);
    const pseudo = this.pseudo.link(path);
    if (pseudo) return pseudo;
    const real = this.resolve(path, false);
    const { mount, rel } = this.mountOf(real);
    const node = mount.layer?.nodes.get(rel);
    if (node?.link !== undefined)
      return {
        path: real,
        name: path.slice(path.lastIndexOf("/") + 1),
        dir: false,
        size: node.link.length,
        mtime: node.mtime,
        readOnly: false,
        link: node.link,
        owner: node.owner,
      };
    return this.stat(path);
  }

  stat(path0: string): FileInfo | undefined {
    const name = path0 === "/" ? "/" : path0.slice(path0.lastIndexOf("/") + 1);
    const path = this.resolve(path0);
    if (this.pseudo.owns(path)) {
      const n = this.pseudo.node(path);
      return n && this.pseudo.info(path0, name, n);
    }
    if (this.mounts.some((m) => m.path === path && m.path !== "/"))
      return { path, name, dir: true, size: 4096, mtime: this.now(), readOnly: false };
    const gen = this.generated[path];
    const { mount, rel } = this.mountOf(path);
    const node = mount.layer?.nodes.get(rel);
    if (node && node.link === undefined)
      return {
        path,
        name,
        dir: node.dir,
        size: node.dir ? (node.size ?? 4096) : node.data.length,
        mtime: node.mtime,
        readOnly: mount.readOnly,
        mode: node.mode,
        nlink: node.nlink,
        owner: node.owner,
      };
    // /proc files report size 0, as the kernel's do; the kubelet's files their real size
    if (gen)
      return {
        path,
        name,
        dir: false,
        size: path.startsWith("/proc/") ? 0 : Buffer.byteLength(gen()),
        mtime: this.now(),
        readOnly: true,
      };
    if (mount.files) {
      const files = mount.files();
      if (rel === "") return { path, name, dir: true, size: 4096, mtime: this.now(), readOnly: true };
      if (rel in files)
        return {
          path,
          name,
          dir: false,
          size: Buffer.byteLength(files[rel]),
          mtime: this.now(),
          readOnly: true,
        };
      if (Object.keys(files).some((k) => k.startsWith(`${rel}/`)))
        return { path, name, dir: true, size: 4096, mtime: this.now(), readOnly: true };
    }
    // Directories that lead to a mount point exist (e.g. /var/log for /var/log/mysql).
    if ([...this.mounts.map((m) => m.path), ...this.pseudo.roots].some((m) => m.startsWith(`${path}/`)))
      return { path, name, dir: true, size: 4096, mtime: this.now(), readOnly: false };
    return undefined;
  }

  read(path0: string): Buffer {
    const path = this.resolve(path0);
    if (this.pseudo.owns(path)) {
      const n = this.pseudo.node(path);
      if (!n) throw new FsError("ENOENT", path0);
      if (n.kind === "dir") throw new FsError("EISDIR", path0);
      if (n.kind === "link") throw new FsError("ENOENT", path0);
      return Buffer.from(n.read());
    }
    const { mount, rel } = this.mountOf(path);
    const node = mount.layer?.nodes.get(rel);
    if (node && !node.dir) return node.data;
    const gen = this.generated[path];
    if (gen && !node) return Buffer.from(gen());
    const st = this.stat(path);
    if (!st) throw new FsError("ENOENT", path);
    if (st.dir) throw new FsError("EISDIR", path);
    return Buffer.from(mount.files?.()[rel] ?? "");
  }

  write(path0: string, data: string | Buffer, append = false): void {
    const path = this.resolve(path0);
    if (this.pseudo.owns(path)) throw new FsError("EROFS", path0);
    const { mount, rel } = this.mountOf(path);
    if (!mount.layer || mount.readOnly) throw new FsError("EROFS", path);
    if (rel === "") throw new FsError("EISDIR", path);
    const parent = mount.layer.nodes.get(parentOf(rel));
    if (!parent) throw new FsError("ENOENT", path);
    if (!parent.dir) throw new FsError("ENOTDIR", path);
    const old = mount.layer.nodes.get(rel);
    if (old?.dir) throw new FsError("EISDIR", path);
    const b = typeof data === "string" ? Buffer.from(data) : data;
    mount.layer.nodes.set(rel, {
      dir: false,
      data: append && old ? Buffer.concat([old.data, b]) : b,
      mtime: this.now(),
    });
  }

  mkdir(path0: string, parents = false): void {
    const path = this.resolve(path0, false);
    if (this.pseudo.owns(this.pseudo.canonical(path))) {
      if (parents && this.stat(path)?.dir) return;
      throw new FsError(this.stat(path) ? "EEXIST" : "EROFS", path);
    }
    const { mount, rel } = this.mountOf(path);
    if (this.stat(path)) {
      if (parents && this.stat(path)?.dir) return;
      throw new FsError("EEXIST", path);
    }
    if (!mount.layer || mount.readOnly) throw new FsError("EROFS", path);
    const parent = parentOf(rel);
    if (!mount.layer.nodes.has(parent)) {
      if (!parents) throw new FsError("ENOENT", path);
      this.mkdir(path.slice(0, path.lastIndexOf("/")) || "/", true);
    }
    if (mount.layer.nodes.get(parent)?.dir === false) throw new FsError("ENOTDIR", path);
    mount.layer.nodes.set(rel, { dir: true, data: Buffer.alloc(0), mtime: this.now() });
  }

  remove(path0: string, recursive = false): void {
    const path = this.resolve(path0, false);
    if (this.pseudo.owns(this.pseudo.canonical(path)))
      throw new FsError(this.stat(path) ? "EROFS" : "ENOENT", path);
    const { mount, rel } = this.mountOf(path);
    const node = mount.layer?.nodes.get(rel);
    if (!node || rel === "") {
      if (this.stat(path)) throw new FsError(rel === "" && this.stat(path) ? "EINVAL" : "EROFS", path);
      throw new FsError("ENOENT", path);
    }
    if (mount.readOnly) throw new FsError("EROFS", path);
    const layer = mount.layer!;
    const children = [...layer.nodes.keys()].filter((k) => k.startsWith(`${rel}/`));
    if (node.dir && children.length && !recursive) throw new FsError("ENOTEMPTY", path);
    for (const k of children) layer.nodes.delete(k);
    layer.nodes.delete(rel);
  }

  /** Entries of a directory, sorted by name. */
  list(path0: string): FileInfo[] {
    const st = this.stat(path0);
    if (!st) throw new FsError("ENOENT", path0);
    if (!st.dir) throw new FsError("ENOTDIR", path0);
    const path = this.resolve(path0);
    if (this.pseudo.owns(path)) return this.pseudo.list(path);
    const names = new Set<string>();
    const { mount, rel } = this.mountOf(path);
    const prefix = rel === "" ? "" : `${rel}/`;
    const direct = (k: string) => k.startsWith(prefix) && k !== rel && !k.slice(prefix.length).includes("/");
    for (const k of mount.layer?.nodes.keys() ?? []) if (direct(k)) names.add(k.slice(prefix.length));
    for (const k of Object.keys(mount.files?.() ?? {}))
      if (k.startsWith(prefix)) names.add(k.slice(prefix.length).split("/")[0]);
    for (const g of Object.keys(this.generated))
      if (g.startsWith(join(path, "")) && !g.slice(join(path, "").length).includes("/"))
        names.add(g.slice(g.lastIndexOf("/") + 1));
    for (const m of [...this.mounts.map((x) => x.path), ...this.pseudo.roots])
      if (m !== path && m.startsWith(join(path, ""))) names.add(m.slice(join(path, "").length).split("/")[0]);
    return [...names]
      .sort()
      .map((n) => this.lstat(join(path, n)))
      .filter((x): x is FileInfo => !!x);
  }

  /** Bytes written under a mount (df's Used). */
  used(m: Mount): number {
    if (m.layer) return m.layer.bytes;
    return Object.values(m.files?.() ?? {}).reduce((n, s) => n + Buffer.byteLength(s), 0);
  }
}
