// Finding a tool as the runner's PATH does, and what of the host the sandbox must show for it.
import { accessSync, constants, realpathSync } from "node:fs";
import { basename, delimiter, dirname, join, resolve } from "node:path";

/** The executable `bin` names, as the runner's PATH finds it; undefined when there is none. */
export function findTool(bin: string): string | undefined {
  const candidates = bin.includes("/")
    ? [resolve(bin)]
    : (process.env.PATH ?? "")
        .split(delimiter)
        .filter(Boolean)
        .map((d) => join(d, bin));
  for (const c of candidates) {
    try {
      accessSync(c, constants.X_OK);
      return c;
    } catch {
      // not here
    }
  }
  return undefined;
}

/** Folders the sandbox must show for a tool installed outside /usr (a venv, ~/.local). */
export function toolFolders(path: string): string[] {
  const real = realpathSync(path);
  if (real.startsWith("/usr/")) return [];
  const dir = dirname(real);
  // a bin/ folder belongs to a prefix whose lib/ holds the tool's Python packages
  return basename(dir) === "bin" ? [dirname(dir), dir] : [dir];
}
