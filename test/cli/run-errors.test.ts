// An error of the run is not the model's failure. Through `run`, a provider
// that fails every retry, one that answers an empty 200, and a missing ansible-playbook each end
// their cases as `error` with the cause named; the success rate counts none of them; and a second
// `run` with the same options re-runs exactly those cases.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { delta, openaiFrames, startWireServer, type WireServer } from "../llm/wire-server.js";
import { CLI, checkBuilt, ROOT, readCases, readJson, scriptedPlaybooks, tmp, write } from "./cli-helpers.js";

const FIX =
  "- hosts: localhost\n  gather_facts: false\n  tasks:\n    - ansible.builtin.shell: kubectl rollout restart deployment/time-service -n simple-micro && kubectl rollout status deployment/time-service -n simple-micro --timeout=600s\n";

let server: WireServer | undefined;
beforeAll(checkBuilt);
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function run(dir: string, model: string, extra: string[] = [], env: Record<string, string> = {}) {
  const exp = write(
    dir,
    "two.yaml",
    "cases:\n  - {failure: pod-fail, target: time-service}\n  - {failure: pod-fail, target: time-service}\n",
  );
  const r = await execa(
    process.execPath,
    [
      CLI,
      "run",
      "--env",
      "simple-micro",
      "--model",
      model,
      "--experiment-path",
      exp,
      "--save-path",
      dir,
      "--run-name",
      "errors",
      "--speed",
      "600",
      "--settle",
      "5",
      ...extra,
    ],
    { reject: false, timeout: 400_000, cwd: ROOT, env },
  );
  return { code: r.exitCode, stderr: String(r.stderr) };
}

const fixFrames = () =>
  openaiFrames([
    delta(
      {
        role: "assistant",
        content: `Action: print_playbook\nAction Input: ${JSON.stringify({ playbook: FIX })}`,
      },
      "stop",
    ),
  ]);

describe("errors of the run", () => {
  it("a provider that fails every retry: error (outage), not counted, re-run on resume", async () => {
    server = await startWireServer(() => ({
      status: 503,
      json: { error: { message: "the server is overloaded" } },
      headers: { "retry-after-ms": "0" },
    }));
    const dir = tmp("mr-errors-");
    const args = ["--base-url", `${server.url}/v1`];
    const first = await run(dir, "openai-compatible:m", args);
    expect(first.code, first.stderr).toBe(0);
    const cases = readCases(join(dir, "errors"));
    expect(cases.map((c) => [c.status, c.reason?.code])).toEqual([
      ["error", "outage"],
      ["error", "outage"],
    ]);
    const s = readJson(join(dir, "errors", "summary.json"));
    // nothing was evaluated: the rate is unknown, not 0%
    expect(s).toMatchObject({ evaluated: 0, successes: 0, errors: 2, successRate: null });
    expect(readFileSync(join(dir, "errors", "summary.txt"), "utf8")).toContain(
      "Success Rate: - (0/0 cases; 2 errors of the run, not counted;",
    );
    expect(first.stderr).toMatch(/running success rate - \(0\/\d; 1 error of the run, not counted\)/);

    // the provider is back: the same command re-runs exactly the two errors, which now succeed
    await server.close();
    server = await startWireServer(() => ({ sse: fixFrames() }));
    const second = await run(dir, "openai-compatible:m", ["--base-url", `${server.url}/v1`]);
    expect(second.code, second.stderr).toBe(0);
    const all = readCases(join(dir, "errors"));
    expect(all.slice(2).map((c) => [c.index, c.status])).toEqual([
      [1, "success"],
      [2, "success"],
    ]);
    expect(readJson(join(dir, "errors", "summary.json"))).toMatchObject({
      evaluated: 2,
      successes: 2,
      errors: 0,
    });
  }, 600_000);

  it("an empty 200 from the provider: error (empty-reply)", async () => {
    server = await startWireServer(() => ({
      sse: openaiFrames([delta({ role: "assistant", content: "" }, "stop")]),
    }));
    const dir = tmp("mr-errors-");
    const r = await run(dir, "openai-compatible:m", ["--base-url", `${server.url}/v1`, "--experiments", "1"]);
    expect(r.code, r.stderr).toBe(0);
    const [c] = readCases(join(dir, "errors"));
    expect(c).toMatchObject({ status: "error", reason: { code: "empty-reply" } });
    expect(readJson(join(dir, "errors", "summary.json"))).toMatchObject({ evaluated: 0, errors: 1 });
  }, 300_000);

  it("a missing ansible-playbook: error (tool-missing), re-run once it is there", async () => {
    const dir = tmp("mr-errors-");
    const model = `scripted:${scriptedPlaybooks(dir, "fix.yaml", [FIX])}`;
    const first = await run(dir, model, [], {
      MICROREMED_ANSIBLE_PLAYBOOK: join(dir, "no-such-ansible-playbook"),
    });
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toMatch(/warning: .*no-such-ansible-playbook was not found/);
    const cases = readCases(join(dir, "errors"));
    expect(cases.map((c) => [c.status, c.reason?.code])).toEqual([
      ["error", "tool-missing"],
      ["error", "tool-missing"],
    ]);
    const second = await run(dir, model);
    expect(second.code, second.stderr).toBe(0);
    expect(
      readCases(join(dir, "errors"))
        .slice(2)
        .map((c) => c.status),
    ).toEqual(["success", "success"]);
  }, 600_000);
});
