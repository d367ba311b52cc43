// `microremed export harbor` through the CLI: the folders Harbor's task format asks for, each
// task.toml read by Python's TOML parser and validated against Harbor's task model
// (schemas/harbor-task.schema.json), and one case's steps run without a container (task-steps.ts):
// the agent's kubeconfig is confined to the namespace, the oracle's solve.sh scores reward 1 (and
// its stated diagnosis 1), and doing nothing scores 0. Every failure type of Simple-Micro is in
// export-every-type.test.ts (the long lane).
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MicroRemedError } from "../../src/errors.js";
import { validateWith } from "../../src/util/schema.js";
import { checkBuilt, cli, ROOT } from "../cli/cli-helpers.js";
import {
  caseOf,
  endTask,
  readToml,
  runTask,
  solveTask,
  startTask,
  taskRoot,
  verifyTask,
} from "./task-steps.js";

const SCHEMA = JSON.parse(readFileSync(join(ROOT, "schemas", "harbor-task.schema.json"), "utf8"));
const validTask = (doc: unknown) =>
  validateWith<Record<string, unknown>>(SCHEMA, doc, "task.toml", "E_CONFIG", "follow Harbor's task model");

let out: string;
let tasks: string[];

beforeAll(async () => {
  checkBuilt();
  out = mkdtempSync(join(tmpdir(), "mr-export-"));
  // the speeds of a test: the agent's steps run at the harness's speed too
  const r = await cli(
    [
      "export",
      "harbor",
      "--env",
      "simple-micro",
      "--tiers",
      "easy,hard",
      "--limit",
      "1",
      "--seed",
      "7",
    ].concat(["--method-speed", "60", join(out, "tasks")]),
  );
  expect(r.exitCode, r.stderr).toBe(0);
  expect(r.stdout).toMatch(/2 Harbor task\(s\) in .*harbor run -p .* -a claude-code -m /);
  tasks = readdirSync(join(out, "tasks")).map((d) => join(out, "tasks", d));
}, 120_000);

afterAll(() => rmSync(out, { recursive: true, force: true }));

describe("export harbor", () => {
  it("writes Harbor's task folder per case, and each task.toml fits Harbor's task model", async () => {
    expect(tasks.map((t) => t.split("/").pop())).toEqual([
      expect.stringMatching(/^simple-micro-easy-001-[a-z-]+$/),
      expect.stringMatching(/^simple-micro-hard-001-[a-z-]+$/),
    ]);
    for (const t of tasks) {
      for (const f of [
        "task.toml",
        "instruction.md",
        "environment/Dockerfile",
        "environment/microremed.tgz",
        "environment/task/case.json",
        "environment/task/entrypoint.sh",
        "tests/test.sh",
        "solution/solve.sh",
      ])
        expect(existsSync(join(t, f)), f).toBe(true);
      for (const f of ["environment/task/entrypoint.sh", "tests/test.sh", "solution/solve.sh"])
        expect(statSync(join(t, f)).mode & 0o111, f).toBeTruthy();
      const toml = validTask(await readToml(join(t, "task.toml")));
      // the agent and the verifier are different users: the harness's credentials are root's
      expect(toml.agent).toMatchObject({ user: "agent" });
      expect(toml.verifier).toMatchObject({ user: "root" });
      expect((toml.task as { name: string }).name).toBe(`microremed/${t.split("/").pop()}`);
      const docker = readFileSync(join(t, "environment", "Dockerfile"), "utf8");
      expect(docker).toMatch(/npm install -g \/tmp\/microremed\.tgz/);
      expect(docker).toMatch(/chmod 0700 \/opt\/microremed-task/);
      // the full report names the case's service and failure; the instruction names the tools
      const c = caseOf(t);
      const text = readFileSync(join(t, "instruction.md"), "utf8");
      expect(text).toContain(`- Root-cause service: ${c.faults[0].target}`);
      expect(text).toContain(`(${c.faults[0].failure}; `);
      expect(text).toMatch(/kubectl[\s\S]*ansible-playbook[\s\S]*MCP server/);
    }
  });

  it("the schema refuses what Harbor's model does not have", () => {
    expect(() => validTask({ verifier: { timeout_sec: 10, usr: "root" } })).toThrow(MicroRemedError);
    expect(() =>
      validTask({ environment: { mcp_servers: [{ name: "x", transport: "stdio", url: "http://x" }] } }),
    ).toThrow(/command/);
  });

  it("refuses a tier it does not know, with the ones it does", async () => {
    const r = await cli(["export", "harbor", "--tiers", "easiest", join(out, "none")]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/unknown tier "easiest".*easy, medium, hard, expert/);
  });

  it("one case: the agent holds only the namespace's identity; the oracle scores 1, doing nothing 0", async () => {
    const t = tasks[0];
    const r = taskRoot(t);
    try {
      const s = await startTask(t, r);
      expect(s.exitCode, s.stderr).toBe(0);
      const agent = { ...r.env, KUBECONFIG: r.agentKubeconfig };
      const all = await execa("kubectl", ["get", "pods", "-A"], { env: agent, reject: false });
      expect(all.exitCode).not.toBe(0);
      expect(all.stderr).toMatch(/Forbidden.*system:serviceaccount:simple-micro:oncall/);
      const own = await execa("kubectl", ["get", "pods", "-n", "simple-micro"], {
        env: agent,
        reject: false,
      });
      expect(own.exitCode, own.stderr).toBe(0);
      // the harness's admin kubeconfig and the case are in root's folder, never where the agent looks
      expect(statSync(r.state).mode & 0o077).toBe(0);
      expect(readdirSync(r.workdir).sort()).toEqual([
        "incident-report.json",
        "incident-report.md",
        "inventory.ini",
      ]);
      const solved = await solveTask(t, r);
      expect(solved.exitCode, solved.stderr).toBe(0);
      const solvedScore = await verifyTask(t, r);
      expect(solvedScore.reward, solvedScore.why).toEqual({ reward: 1, diagnosis: 1 });
    } finally {
      endTask(r);
    }
    const untouched = await runTask(t, false);
    expect(untouched.reward, untouched.why).toEqual({ reward: 0 });
  }, 300_000);
});
