// Redirections, applied left to right over a copy of the descriptor table, as sh does: so
// `>/dev/null 2>&1` silences both and `2>&1 >/dev/null` sends stderr where stdout was.
import { FsError } from "../userland/fs.js";
import type { Stdio } from "../userland/process.js";
import { bufferInput, DISCARD, EMPTY_INPUT, type Input, type Output } from "../userland/stream.js";
import type { Redir } from "./ast.js";
import { expandString } from "./expand.js";
import type { ShellState } from "./state.js";

/** Writes to a file in the container, appending chunk by chunk (the file was opened before). */
class FileOutput implements Output {
  constructor(
    private readonly sh: ShellState,
    private readonly path: string,
  ) {}
  write(data: string | Buffer): void {
    try {
      this.sh.p.fs.write(this.path, data, true);
    } catch {
      // the file went away under the writer: the bytes are lost, as with a deleted inode
    }
  }
}

function openOut(sh: ShellState, target: string, append: boolean, io: Stdio): Output | undefined {
  if (target === "/dev/null") return DISCARD;
  const path = sh.p.path(target);
  try {
    sh.p.fs.write(path, "", append);
    return new FileOutput(sh, path);
  } catch (e) {
    const why = e instanceof FsError && e.code === "ENOENT" ? "Directory nonexistent" : (e as Error).message;
    sh.error(`cannot create ${target}: ${why}`, io);
    return undefined;
  }
}

/** The streams after the redirections; undefined (after a message) when a file cannot be opened. */
export async function redirect(sh: ShellState, redirs: Redir[], io: Stdio): Promise<Stdio | undefined> {
  if (!redirs.length) return io;
  let stdin: Input = io.stdin;
  const out: Record<1 | 2, Output> = { 1: io.stdout, 2: io.stderr };
  for (const r of redirs) {
    const target = await expandString(sh, r.target, io);
    if (r.op === "<<") {
      stdin = bufferInput(target);
      continue;
    }
    if (r.op === "<") {
      if (target === "/dev/null") stdin = EMPTY_INPUT;
      else {
        try {
          stdin = bufferInput(sh.p.fs.read(sh.p.path(target)));
        } catch (e) {
          sh.error(
            `cannot open ${target}: ${e instanceof FsError && e.code === "ENOENT" ? "No such file" : (e as Error).message}`,
            io,
          );
          return undefined;
        }
      }
      continue;
    }
    const fd = r.fd === 2 ? 2 : 1;
    if (r.op === ">&" && (target === "1" || target === "2" || target === "-")) {
      out[fd] = target === "-" ? DISCARD : out[Number(target) as 1 | 2];
      continue;
    }
    if (r.op === ">&" && r.fd !== 1) {
      sh.error(`${target}: bad file descriptor`, io);
      return undefined;
    }
    const to =
      target === "/dev/stdout"
        ? out[1]
        : target === "/dev/stderr"
          ? out[2]
          : openOut(sh, target, r.op === ">>", io);
    if (!to) return undefined;
    // `&> file` (fd -1) and bash's `>& file` send both streams there
    if (r.fd === -1 || r.op === ">&") out[1] = out[2] = to;
    else out[fd] = to;
  }
  return { stdin, stdout: out[1], stderr: out[2] };
}
