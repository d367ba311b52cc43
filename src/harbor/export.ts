// `microremed export harbor`: one Harbor task folder per case of the chosen tiers. The image
// installs this very MicroRemed from its npm pack (or the tarball given), so the task runs what
// was exported.
import { execFileSync } from "node:child_process";
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { MicroRemedError } from "../errors.js";
import { resolveData } from "../runner/config.js";
import { packageRoot } from "../util/paths.js";
import type { HarborCase } from "./case.js";
import { dockerfile, entrypoint, instruction, solveSh, type TaskTimes, taskToml, testSh } from "./files.js";
import { type ExportPlan, planTasks } from "./plan.js";

export interface ExportOptions extends ExportPlan, TaskTimes {
  out: string;
  /** MicroRemed as an npm tarball; default: `npm pack` of this installation. */
  packageTarball?: string;
}

/** This installation as an npm tarball, in a temporary folder the caller removes. */
function packThis(): { file: string; dir: string } {
  const dir = mkdtempSync(join(tmpdir(), "microremed-pack-"));
  try {
    execFileSync("npm", ["pack", "--silent", "--pack-destination", dir], {
      cwd: packageRoot(),
      stdio: ["ignore", "pipe", "pipe"],
    });
  } catch (e) {
    rmSync(dir, { recursive: true, force: true });
    throw new MicroRemedError(
      "E_MISSING_TOOL",
      `npm pack of ${packageRoot()} failed: ${(e as Error).message.split("\n")[0]}`,
      "install npm, or pass --package with a MicroRemed tarball (npm pack)",
      { cause: e },
    );
  }
  const tgz = readdirSync(dir).find((f) => f.endsWith(".tgz"));
  if (!tgz) throw new MicroRemedError("E_MISSING_TOOL", `npm pack wrote no tarball in ${dir}`);
  return { file: join(dir, tgz), dir };
}

function writeExecutable(path: string, text: string) {
  writeFileSync(path, text);
  chmodSync(path, 0o755);
}

export function writeTask(dir: string, c: HarborCase, times: TaskTimes, tarball: string): void {
  const inventory = readFileSync(resolveData("inventory.ini"), "utf8");
  for (const sub of ["environment/task", "tests", "solution"]) mkdirSync(join(dir, sub), { recursive: true });
  writeFileSync(join(dir, "task.toml"), taskToml(c, times));
  writeFileSync(join(dir, "instruction.md"), instruction(c, inventory));
  writeFileSync(join(dir, "environment", "Dockerfile"), dockerfile());
  copyFileSync(tarball, join(dir, "environment", "microremed.tgz"));
  writeFileSync(join(dir, "environment", "task", "case.json"), `${JSON.stringify(c, null, 2)}\n`);
  writeExecutable(join(dir, "environment", "task", "entrypoint.sh"), entrypoint(c));
  writeExecutable(join(dir, "tests", "test.sh"), testSh());
  writeExecutable(join(dir, "solution", "solve.sh"), solveSh(c, inventory));
}

/** Every task of the plan, each in OUT/<case name>; returns the folders written. */
export function exportHarbor(o: ExportOptions): string[] {
  const cases = planTasks(o);
  const out = resolve(o.out);
  const taken = cases.map((c) => join(out, c.name)).filter((d) => existsSync(d));
  if (taken.length)
    throw new MicroRemedError(
      "E_USAGE",
      `${taken.length} task folder(s) exist already, e.g. ${taken[0]}`,
      "export into an empty folder, or remove the old tasks first",
    );
  const packed = o.packageTarball ? undefined : packThis();
  const tarball = o.packageTarball ? resolve(o.packageTarball) : packed!.file;
  if (!existsSync(tarball))
    throw new MicroRemedError(
      "E_USAGE",
      `no tarball at ${tarball}`,
      "pass --package with a file npm pack wrote",
    );
  try {
    return cases.map((c) => {
      const dir = join(out, c.name);
      writeTask(dir, c, o, tarball);
      return dir;
    });
  } finally {
    if (packed) rmSync(packed.dir, { recursive: true, force: true });
  }
}
