// Where the package's data folders (chaos/, envs/, experiments/, methods/, models/) live, from
// src/ under vitest and from dist/src/ when built.
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

let root: string | undefined;

export function packageRoot(): string {
  if (root) return root;
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, "package.json"))) {
    const up = dirname(dir);
    if (up === dir) throw new Error("cannot find the microremed package root");
    dir = up;
  }
  root = dir;
  return dir;
}
