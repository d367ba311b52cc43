// Resume: running the same command again continues after the last finished case; a case
// cut off midway is cleaned up and run again; records are append-only; a resume with another
// configuration is refused in one line naming what differs. Each run starts its own embedded
// cluster (--cluster sim), as a user's second invocation would: only the records carry over.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { execa } from "execa";
import { beforeAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import {
  checkBuilt,
  cli,
  lastLine,
  type RunJson,
  readCases,
  readJson,
  scriptedPlaybooks,
  startCli,
  tmp,
  waitForStderr,
  write,
} from "./cli-helpers.js";

let dir: string;
let args: string[];
let runDir: string;
const counts = (recs: { index: number }[]) => {
  const m: Record<number, number> = {};
  for (const r of recs) m[r.index] = (m[r.index] ?? 0) + 1;
  return m;
};

beforeAll(() => {
  checkBuilt();
  dir = tmp("mr-resume-");
  const exp = write(
    dir,
    "three.yaml",
    stringify({
      cases: [
        { failure: "cpu-stress", target: "time-service" },
        { failure: "pod-fail", target: "hello-service" },
        { failure: "memory-stress", target: "time-service" },
      ],
    }),
  );
  // Every case restarts its target (which repairs all three faults); the pod-fail case first
  // sleeps while a marker file exists, and removes it: slow once, quick when run again. The
  // marker is in the case's folder, the one place of the host a playbook's sandbox can see.
  const playbook = `- hosts: localhost
  gather_facts: false
  tasks:
    - name: slow on the first run of one case
      ansible.builtin.shell: "if [ -e slow-{{failure}} ]; then rm slow-{{failure}}; sleep 95; fi"
    - name: replace the faulty pod
      ansible.builtin.shell: kubectl rollout restart deployment/{{service}} -n {{namespace}} && kubectl rollout status deployment/{{service}} -n {{namespace}} --timeout=600s
`;
  const script = scriptedPlaybooks(dir, "restart.yaml", [playbook]);
  args = [
    ...["run", "--env", "simple-micro", "--namespace", "resume", "--save-path", dir, "--run-name", "r"],
    ...[
      "--experiment-path",
      exp,
      "--remediate-method",
      "SoloGen",
      "--model",
      `scripted:${script}`,
      "--speed",
      "400",
    ],
  ];
  runDir = join(dir, "r");
});

describe("resuming a run", { timeout: 150_000 }, () => {
  let firstText = "";
  let firstStart = "";

  it("a run interrupted in its second case has recorded the first as done and the second as interrupted", async () => {
    const marker = join(runDir, "case-002", "slow-pod-fail");
    mkdirSync(dirname(marker), { recursive: true });
    writeFileSync(marker, "");
    const child = startCli(args);
    await waitForStderr(child, /^\[2\/3\] pod-fail → hello-service: method$/);
    // interrupt once the slow playbook runs
    const deadline = Date.now() + 20_000;
    while (Date.now() < deadline && existsSync(marker)) await new Promise((r) => setTimeout(r, 100));
    child.kill("SIGINT");
    const r = await child;
    expect(r.exitCode, String(r.stderr)).toBe(130);
    expect(lastLine(String(r.stderr))).toMatch(
      /^error E_INTERRUPTED: .*fix: run the same command again to resume/,
    );
    expect(readCases(runDir).map((c) => [c.index, c.status])).toEqual([
      [1, "success"],
      [2, "interrupted"],
    ]);
    firstText = readFileSync(join(runDir, "cases.jsonl"), "utf8");
    firstStart = readJson<RunJson>(join(runDir, "run.json")).startedAt;
    expect(String((await execa("ps", ["-eo", "args"])).stdout)).not.toMatch(/^sleep 95$/m);
  });

  it("a resume with another configuration is refused in one line naming what differs", async () => {
    // checked before any cluster is reached: this kubeconfig does not exist
    const seed = await cli([
      ...args,
      "--seed",
      "7",
      "--cluster",
      "kube",
      "--kubeconfig",
      join(dir, "no-such-kubeconfig"),
    ]);
    expect(seed.exitCode).toBe(1);
    expect(seed.stderr.trim().split("\n")).toHaveLength(1);
    expect(seed.stderr.trim()).toMatch(
      /^error E_RESUME_MISMATCH: .*different configuration \(seed: 42 → 7\).*fix: run with the same options to resume it, or pass another --save-path or --run-name/,
    );
    const model = await cli([...args, "--model", "oracle"]);
    expect(model.exitCode).toBe(1);
    expect(lastLine(model.stderr)).toMatch(
      /^error E_RESUME_MISMATCH: .*\(model: "scripted:.*restart\.yaml" → "oracle"\)/,
    );
    const method = await cli([...args, "--remediate-method", "ThinkRemed", "--settle", "5"]);
    expect(lastLine(method.stderr)).toMatch(
      /^error E_RESUME_MISMATCH: .*method: "SoloGen" → "ThinkRemed", settle: 10 → 5/,
    );
    // nothing was written
    expect(readFileSync(join(runDir, "cases.jsonl"), "utf8")).toBe(firstText);
  });

  it("the same command continues: the interrupted case runs again, the finished one does not", async () => {
    const r = await cli(args);
    expect(r.exitCode, r.stderr.slice(-3000)).toBe(0);
    expect(r.stderr).toContain("resuming r: 1 of 3 cases already done");
    expect(r.stderr).not.toContain("[1/3]");
    expect(r.stderr).toContain("[2/3] pod-fail → hello-service: success");
    expect(r.stderr).toContain("[3/3] memory-stress → time-service: success");
    const text = readFileSync(join(runDir, "cases.jsonl"), "utf8");
    // append-only: what the first run wrote is still there, unchanged, at the start
    expect(text.startsWith(firstText)).toBe(true);
    const recs = readCases(runDir);
    expect(recs.map((c) => [c.index, c.status])).toEqual([
      [1, "success"],
      [2, "interrupted"],
      [2, "success"],
      [3, "success"],
    ]);
    expect(counts(recs)).toEqual({ 1: 1, 2: 2, 3: 1 });
    // the summary counts each case once, by its last record
    expect(readJson(join(runDir, "summary.json"))).toMatchObject({
      cases: 3,
      evaluated: 3,
      successes: 3,
      interrupted: 0,
    });
    expect(r.stdout).toContain("Success Rate: 100.0% (3/3 cases");
    const run = readJson<RunJson>(join(runDir, "run.json"));
    expect(run.startedAt).toBe(firstStart);
    expect(run.resumedAt! > firstStart).toBe(true);
  });

  it("a finished run run again does nothing more", async () => {
    const before = readFileSync(join(runDir, "cases.jsonl"), "utf8");
    const r = await cli(args);
    expect(r.exitCode, r.stderr.slice(-3000)).toBe(0);
    expect(r.stderr).toContain("resuming r: 3 of 3 cases already done");
    expect(r.stderr).not.toMatch(/\[\d\/3\]/);
    expect(readFileSync(join(runDir, "cases.jsonl"), "utf8")).toBe(before);
    expect(readJson(join(runDir, "summary.json"))).toMatchObject({ cases: 3, successes: 3 });
  });
});
