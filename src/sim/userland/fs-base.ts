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
