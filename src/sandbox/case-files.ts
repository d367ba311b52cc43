// Files the runner reads and writes in a case's folder, which a sandboxed playbook can write too:
// it may leave a symlink (to ~/.bashrc, to /etc/...) or a FIFO where the runner will write or read
// next. So the runner replaces what is there instead of writing through it, and reads only
// regular files. (The sandbox's processes are gone by then, so nothing swaps the file back.)
import { lstatSync, readFileSync, rmSync, writeFileSync } from "node:fs";

/** Writes `text` to a new file at `path`, never through a link or into a device left there. */
export function writeCaseFile(path: string, text: string): void {
  rmSync(path, { force: true, recursive: true });
  writeFileSync(path, text, { flag: "wx" });
}

/** The text of the regular file at `path`; "" when there is none (or something else is there). */
export function readCaseFile(path: string): string {
  try {
    if (!lstatSync(path).isFile()) return "";
  } catch {
    return "";
  }
  return readFileSync(path, "utf8");
}
