// Files the runner reads and writes in a case's folder, which a sandboxed playbook can write too:
// it may leave a symlink (to ~/.bashrc, to /etc/...) or a FIFO where the runner will write or read
// next. So when the sandbox closes the folder keeps only regular files and folders, the runner
// replaces what is there instead of writing through it, and reads only regular files. (The
// sandbox's processes are gone by then, so nothing puts a link back.)
import { lstatSync, readdirSync, readFileSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";

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

/**
 * Removes from a case's folder everything a sandboxed tool left that is neither a regular file nor
 * a folder (symlinks, FIFOs, sockets), so no later reader or writer of the runner (the records,
 * the report's trace) follows a link to a file of the host. Returns what it removed.
 */
export function sanitizeCaseDir(dir: string): string[] {
  const removed: string[] = [];
  const walk = (d: string) => {
    let names: string[];
    try {
      names = readdirSync(d);
    } catch {
      return;
    }
    for (const name of names) {
      const p = join(d, name);
      let st: ReturnType<typeof lstatSync>;
      try {
        st = lstatSync(p);
      } catch {
        continue;
      }
      if (st.isDirectory()) walk(p);
      else if (!st.isFile()) {
        unlinkSync(p);
        removed.push(p);
      }
    }
  };
  walk(dir);
  return removed;
}
