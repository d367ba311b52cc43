// The package's public face, as a user's project meets it: the package linked into an empty
// folder's node_modules under its name, a method written against `import("microremed")`'s types
// is type-checked there by tsc (and one that breaks the interface is refused), then run through
// the runner the package exports (runBenchmark) and through the CLI, on the embedded cluster.
import { copyFileSync, mkdirSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import { beforeAll, describe, expect, it } from "vitest";
import { checkBuilt, cli, ROOT, readCases, tmp, write } from "./cli-helpers.js";

beforeAll(checkBuilt);

const TSC = join(ROOT, "node_modules/typescript/bin/tsc");
const POD_FAIL = "cases:\n  - {failure: pod-fail, target: time-service}\n";

/** A user's project: the package in its node_modules (a link, as `npm link` makes), the example method beside. */
function project(): string {
  const app = tmp("mr-face-");
  mkdirSync(join(app, "node_modules"));
  symlinkSync(ROOT, join(app, "node_modules", "microremed"), "dir");
  write(app, "package.json", JSON.stringify({ name: "app", type: "module", private: true }));
  copyFileSync(join(ROOT, "examples/method.mjs"), join(app, "method.mjs"));
  write(app, "exp.yaml", POD_FAIL);
  return app;
}

/** tsc over one file of the project, checking its JSDoc types as a user's editor would. */
const typeCheck = (app: string, file: string) =>
  execa(
    process.execPath,
    [TSC, "--noEmit", "--allowJs", "--checkJs", "--strict", "--skipLibCheck", "--module", "nodenext"].concat([
      "--moduleResolution",
      "nodenext",
      "--target",
      "es2022",
      "--types",
      "node",
      file,
    ]),
    { cwd: app, reject: false, env: { NODE_PATH: join(ROOT, "node_modules") } },
  );

describe("the package's public face", () => {
  it("a method typed by import('microremed') type-checks, and one that breaks the interface does not", async () => {
    const app = project();
    // @types/node for the package's declarations, from the package's own dependencies
    symlinkSync(join(ROOT, "node_modules/@types"), join(app, "node_modules/@types"), "dir");
    const ok = await typeCheck(app, "method.mjs");
    expect(ok.exitCode, String(ok.stdout)).toBe(0);
    write(
      app,
      "broken.mjs",
      '// @ts-check\n/** @type {import("microremed").Method} */\nexport default { name: "x", maxAttempts: "one", remediate: async () => ({ attempts: [] }) };\n',
    );
    const bad = await typeCheck(app, "broken.mjs");
    expect(bad.exitCode).not.toBe(0);
    expect(String(bad.stdout)).toMatch(/maxAttempts|conversation/);
  }, 120_000);

  it("runBenchmark, imported by the package's name, runs the module method; the CLI runs it the same", async () => {
    const app = project();
    write(
      app,
      "run.mjs",
      [
        'import { runBenchmark } from "microremed";',
        "const s = await runBenchmark({",
        '  env: "simple-micro", model: "noop", method: "./method.mjs", experimentPath: "exp.yaml",',
        '  savePath: "logs", runName: "face", speed: 600, settle: 5,',
        "});",
        "console.log(JSON.stringify(s));",
      ].join("\n"),
    );
    const r = await execa(process.execPath, ["run.mjs"], { cwd: app, reject: false, timeout: 400_000 });
    expect(r.exitCode, String(r.stderr)).toBe(0);
    const summary = JSON.parse(String(r.stdout).trim().split("\n").pop() ?? "{}");
    expect(summary).toMatchObject({
      method: "restart-root-cause",
      evaluated: 1,
      successes: 1,
      successRate: 1,
    });
    expect(readCases(join(app, "logs", "face"))[0]).toMatchObject({ status: "success" });
    // an option the runner does not have is refused, naming the ones it has
    write(
      app,
      "typo.mjs",
      'import { runBenchmark } from "microremed";\nawait runBenchmark({ remediateMethod: "x" });\n',
    );
    const typo = await execa(process.execPath, ["typo.mjs"], { cwd: app, reject: false });
    expect(typo.exitCode).not.toBe(0);
    expect(String(typo.stderr)).toMatch(/unknown run option remediateMethod[\s\S]*fix: .*experimentPath/);

    const c = await cli(
      ["run", "--env", "simple-micro", "--model", "noop", "--remediate-method", "./method.mjs"].concat([
        "--experiment-path",
        "exp.yaml",
        "--save-path",
        "logs",
        "--run-name",
        "cli",
        "--speed",
        "600",
        "--settle",
        "5",
      ]),
      { cwd: app, timeout: 400_000 },
    );
    expect(c.exitCode, c.stderr).toBe(0);
    expect(readCases(join(app, "logs", "cli"))[0]).toMatchObject({
      status: "success",
      method: "restart-root-cause",
    });
  }, 600_000);
});
