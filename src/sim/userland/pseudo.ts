// The kernel's pseudo filesystems as one process of a container sees them: procfs and cgroupfs
// answer each lookup as it is made (nothing is stored), and a symlink such as /proc/self resolves
// for the process that looks. ContainerFs asks this view first for any path under their roots.
import { type FileInfo, resolvePath } from "./fs-base.js";

/** A node of a pseudo filesystem: read when asked, as the kernel generates it. */
export type PseudoNode =
  | { kind: "file"; read: () => string }
  | { kind: "dir"; entries: () => string[] }
  | { kind: "link"; target: string };

/** A filesystem the kernel generates (procfs, cgroupfs), mounted at `root`. */
export interface PseudoFs {
  readonly root: string;
  /** What is at `rel` ("" for the root), for the process `self` that looks. */
  lookup(rel: string, self: number): PseudoNode | undefined;
}

const join = (dir: string, name: string) => (dir === "/" ? `/${name}` : `${dir}/${name}`);

export class PseudoView {
  constructor(
    readonly filesystems: PseudoFs[],
    /** The PID of the process looking (what /proc/self points at). */
    readonly self: number,
    private readonly now: () => number,
  ) {}

  get roots(): string[] {
    return this.filesystems.map((f) => f.root);
  }

  /** Whether an absolute path lies in one of the pseudo filesystems. */
  owns(path: string): boolean {
    return this.filesystems.some((f) => path === f.root || path.startsWith(`${f.root}/`));
  }

  node(path: string): PseudoNode | undefined {
    for (const f of this.filesystems)
      if (path === f.root || path.startsWith(`${f.root}/`))
        return f.lookup(path === f.root ? "" : path.slice(f.root.length + 1), this.self);
    return undefined;
  }

  /** A path with the pseudo filesystems' symlinks resolved (/proc/self/status -> /proc/42/status). */
  canonical(path: string): string {
    let p = path;
    for (let hops = 0; hops < 8; hops++) {
      const parts = p.split("/").filter(Boolean);
      let next: string | undefined;
      for (let i = 1; i <= parts.length && !next; i++) {
        const prefix = `/${parts.slice(0, i).join("/")}`;
        const n = this.owns(prefix) ? this.node(prefix) : undefined;
        if (n?.kind !== "link") continue;
        const dir = prefix.slice(0, prefix.lastIndexOf("/")) || "/";
        next = resolvePath(
          n.target.startsWith("/") ? n.target : resolvePath(dir, n.target),
          parts.slice(i).join("/") || ".",
        );
      }
      if (!next) return p;
      p = next;
    }
    return p;
  }

  info(path: string, name: string, n: PseudoNode): FileInfo {
    const base = { path, name, size: 0, mtime: this.now(), readOnly: true };
    if (n.kind === "link") return { ...base, dir: false, link: n.target };
    return { ...base, dir: n.kind === "dir" };
  }

  /** A symlink at the end of `path` described rather than followed; undefined if it is none. */
  link(path: string): FileInfo | undefined {
    const i = path.lastIndexOf("/");
    const parent = this.canonical(path.slice(0, i) || "/");
    const real = join(parent, path.slice(i + 1));
    const n = this.owns(real) ? this.node(real) : undefined;
    return n?.kind === "link" ? this.info(path, path.slice(i + 1), n) : undefined;
  }

  /** The entries of a pseudo directory (as lstat describes them). */
  list(dir: string): FileInfo[] {
    const n = this.node(dir);
    const names = n?.kind === "dir" ? [...new Set(n.entries())].sort() : [];
    return names
      .map((e) => {
        const c = this.node(join(dir, e));
        return c && this.info(join(dir, e), e, c);
      })
      .filter((x): x is FileInfo => !!x);
  }
}
