// Your own method, trials and shards, through the CLI on the embedded cluster:
// a method from a module and a cmd: agent (a shell script that fixes a pod-fail with kubectl)
// solve their cases; broken agents (exits 1, hangs past its limit, prints garbage) are recorded
// with the cause; --trials 3 gives pass@1/pass@3/pass^3; --shard 1/2 + 2/2 = the unsharded run.
import { chmodSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { checkBuilt, cli, ROOT, readCases, readJson, tmp, write } from "./cli-helpers.js";

beforeAll(checkBuilt);

const POD_FAIL = "cases:\n  - {failure: pod-fail, target: time-service}\n";

function runArgs(dir: string, exp: string, method: string, extra: string[] = []): string[] {
  return [
    "run",
    "--env",
    "simple-micro",
    "--model",
    "noop",
    "--remediate-method",
    method,
    "--experiment-path",
    exp,
    "--save-path",
    dir,
    "--run-name",
    "ext",
    "--speed",
    "600",
    "--settle",
    "5",
    ...extra,
  ];
}

async function runOne(method: string, extra: string[] = [], exp = POD_FAIL) {
  const dir = tmp("mr-ext-");
  const file = write(dir, "exp.yaml", exp);
  const r = await cli(runArgs(dir, file, method, extra), { timeout: 400_000 });
  expect(r.exitCode, r.stderr).toBe(0);
  return { dir, cases: readCases(join(dir, "ext")), run: readJson(join(dir, "ext", "run.json")) };
}

describe("your own method", () => {
  it("an ES module exporting the method interface solves its case", async () => {
    const { cases, run } = await runOne(join(ROOT, "examples/method.mjs"));
    expect(cases).toHaveLength(1);
    expect(cases[0]).toMatchObject({ status: "success", method: "restart-root-cause" });
    expect(run.maxAttempts).toBe(1);
  }, 300_000);

  it("a cmd: agent (a shell script running kubectl as the case's identity) solves its case", async () => {
    const { dir, cases } = await runOne("cmd:./examples/agent.sh");
    expect(cases[0]).toMatchObject({ status: "success" });
    // what it printed is recorded, and it acted through the API proxy as the agent
    const caseDir = join(dir, "ext", "case-001");
    expect(readCases(join(dir, "ext"))[0].errors).toEqual([]);
    const { readFileSync } = await import("node:fs");
    expect(readFileSync(join(caseDir, "agent.stderr"), "utf8")).toMatch(
      /restarting deployment\/time-service/,
    );
  }, 300_000);

  it("a cmd: agent's run folder, without --run-name, is one segment with no colon, and report finds it", async () => {
    const dir = tmp("mr-ext-name-");
    const file = write(dir, "exp.yaml", POD_FAIL);
    const args = runArgs(dir, file, "cmd:./examples/agent.sh");
    args.splice(args.indexOf("--run-name"), 2);
    const r = await cli(args, { timeout: 400_000 });
    expect(r.exitCode, r.stderr).toBe(0);
    const name = "simple-micro_cmd-examples-agent.sh_exp_noop";
    // the full id stays in run.json
    expect(readJson(join(dir, name, "run.json")).config).toMatchObject({ method: "cmd:./examples/agent.sh" });
    const report = await cli(["report", dir, "--format", "json"]);
    expect(report.exitCode, report.stderr).toBe(0);
    expect(JSON.parse(report.stdout).byTier).toEqual([
      expect.objectContaining({ method: "cmd:./examples/agent.sh", evaluated: 1, successes: 1 }),
    ]);
  }, 300_000);

  it("broken agents are recorded with the cause: exit 1, a hang past the limit, garbage on stdout", async () => {
    const dir = tmp("mr-ext-bad-");
    const exits = write(dir, "exits.sh", "#!/bin/sh\necho 'cannot decide' >&2\nexit 1\n");
    const hangs = write(dir, "hangs.sh", "#!/bin/sh\nsleep 600\n");
    const garbage = write(dir, "garbage.sh", "#!/bin/sh\ncat >/dev/null\necho '{{{ not a playbook'\n");
    for (const f of [exits, hangs, garbage]) chmodSync(f, 0o755);

    const a = await runOne(`cmd:${exits}`);
    expect(a.cases[0]).toMatchObject({ status: "failure" });
    expect(a.cases[0].errors.join(" ")).toMatch(/exited with code 1: cannot decide/);

    const b = await runOne(`cmd:${hangs}`, ["--playbook-timeout", "3"]);
    expect(b.cases[0]).toMatchObject({ status: "failure", reason: { code: "timeout" } });

    const c = await runOne(`cmd:${garbage}`);
    expect(c.cases[0]).toMatchObject({ status: "failure", reason: { code: "ineffective" } });
  }, 900_000);

  it("a module that exports no method is refused before any cluster starts, with the contract", async () => {
    const dir = tmp("mr-ext-");
    const mod = write(dir, "nothing.mjs", "export const x = 1;\n");
    const r = await cli(runArgs(dir, write(dir, "exp.yaml", POD_FAIL), mod));
    expect(r.exitCode).not.toBe(0);
    expect(r.stderr).toMatch(/E_UNKNOWN_METHOD: .*does not export a method.*remediate\(ctx\)/);
  });
});

describe("repeated trials and shards", () => {
  it("--trials 3 runs each case three times and reports pass@1, pass@3 and pass^3", async () => {
    const { cases } = await runOne("SoloGen", ["--model", "oracle", "--trials", "3"]);
    expect(cases.map((c) => [c.index, c.trial, c.status])).toEqual([
      [1, 1, "success"],
      [1, 2, "success"],
      [1, 3, "success"],
    ]);
  }, 600_000);

  it("--shard 1/2 and 2/2 together run exactly the unsharded run's cases", async () => {
    const exp = "cases:\n  - pod-fail\n  - pod-fail\n  - pod-fail\n";
    const whole = await runOne("SoloGen", ["--model", "oracle"], exp);
    const one = await runOne("SoloGen", ["--model", "oracle", "--shard", "1/2"], exp);
    const two = await runOne("SoloGen", ["--model", "oracle", "--shard", "2/2"], exp);
    const key = (c: { index: number; target: string; failure: string }) =>
      `${c.index} ${c.failure} ${c.target}`;
    expect(one.cases.map(key)).toEqual([whole.cases[0], whole.cases[2]].map(key));
    expect(two.cases.map(key)).toEqual([whole.cases[1]].map(key));
    expect(one.run).toMatchObject({ plannedCases: 3, shard: "1/2" });
  }, 900_000);
});
