// What every part of a container's filesystem shares: the errors it answers with (errno's
// names and messages), what a stat says, and how a path is resolved against a working directory.

export type FsCode = "ENOENT" | "EISDIR" | "ENOTDIR" | "EEXIST" | "EROFS" | "ENOTEMPTY" | "EINVAL" | "EACCES";

const MESSAGES: Record<FsCode, string> = {
  ENOENT: "No such file or directory",
  EISDIR: "Is a directory",
  ENOTDIR: "Not a directory",
  EEXIST: "File exists",
  EROFS: "Read-only file system",
  ENOTEMPTY: "Directory not empty",
  EINVAL: "Invalid argument",
  EACCES: "Permission denied",
};

export class FsError extends Error {
  constructor(
    readonly code: FsCode,
    readonly path: string,
  ) {
    super(MESSAGES[code]);
  }
}

export interface FileInfo {
  path: string;
  name: string;
  dir: boolean;
  size: number;
  mtime: number;
  readOnly: boolean;
  /** A symlink's target (lstat of a pseudo filesystem's link). */
  link?: string;
  /** Permission bits, when the file says (an image's); else ls derives them. */
  mode?: number;
  nlink?: number;
  /** user:group, when not root. */
  owner?: string;
}

/** Normalize a path against a working directory: resolves ".", ".." and repeated slashes. */
export function resolvePath(cwd: string, p: string): string {
  const parts: string[] = [];
  for (const s of `${p.startsWith("/") ? "" : cwd}/${p}`.split("/")) {
    if (!s || s === ".") continue;
    if (s === "..") parts.pop();
    else parts.push(s);
  }
  return `/${parts.join("/")}`;
}

/** A file, directory or symlink of a layer; the optional parts are an image's (image-tree.ts). */
export interface TreeNode {
  dir: boolean;
  data: Buffer;
  mtime: number;
  /** Permission bits (0o755, 0o1777, ...). */
  mode?: number;
  /** A symlink's target. */
  link?: string;
  /** user:group. */
  owner?: string;
  nlink?: number;
  /** What stat says a directory's size is (its entries' blocks). */
  size?: number;
}

/** A path with the tree's directory links resolved (bin/sh in a merged /usr is usr/bin/sh). */
export function canonicalIn(nodes: ReadonlyMap<string, TreeNode>, rel: string, followLast = false): string {
  const parts = rel.split("/").filter(Boolean);
  let out: string[] = [];
  for (let i = 0, hops = 0; i < parts.length; i++) {
    const p = parts[i];
    if (p === ".") continue;
    if (p === "..") {
      out.pop();
      continue;
    }
    const cand = [...out, p].join("/");
    const n = nodes.get(cand);
    if (n?.link !== undefined && (i < parts.length - 1 || followLast) && hops++ < 16) {
      const base = n.link.startsWith("/") ? [] : out;
      parts.splice(0, i + 1, ...base, ...n.link.split("/").filter(Boolean));
      out = [];
      i = -1;
      continue;
    }
    out.push(p);
  }
  return out.join("/");
}
