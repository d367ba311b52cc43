// Every reason a failed case can have, produced through `microremed run` with scripted
// models (and noop) on the embedded cluster, one case each, read back from cases.jsonl. The
// reasons come from what the case recorded: the executor's task results, the verdicts, the
// cluster's 403 (the case's identity cannot reach Chaos Mesh's namespace, src/identity/rules.ts).
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import type { CaseRecord } from "../../src/runlog/records.js";
import { checkBuilt, cli, readCases, tmp, write } from "./cli-helpers.js";

let dir: string;
let n = 0;

beforeAll(() => {
  checkBuilt();
  dir = tmp("mr-reasons-");
});

const play = (tasks: string) => `- hosts: localhost\n  gather_facts: false\n  tasks:\n${tasks}`;
const printPlaybook = (playbook: string) => ({
  toolCalls: [{ name: "print_playbook", arguments: { playbook } }],
});

/** One case of `failure` on time-service, answered by `model` (a scripted turn list or a built-in). */
async function runOne(
  model: { turns: unknown[] } | string,
  opts: { failure?: string; method?: string; extra?: string[] } = {},
): Promise<CaseRecord> {
  const k = ++n;
  const exp = write(
    dir,
    `exp-${k}.yaml`,
    stringify({ cases: [{ failure: opts.failure ?? "pod-fail", target: "time-service" }] }),
  );
  const id =
    typeof model === "string" ? model : `scripted:${write(dir, `model-${k}.yaml`, stringify(model))}`;
  const save = join(dir, `run-${k}`);
  const r = await cli(
    [
      "run",
      "--env",
      "simple-micro",
      "--remediate-method",
      opts.method ?? "SoloGen",
      "--model",
      id,
      "--experiment-path",
      exp,
      "--save-path",
      save,
      "--speed",
      "600",
      ...(opts.extra ?? []),
    ],
    { timeout: 300_000 },
  );
  expect(r.exitCode, r.stderr).toBe(0);
  const [rec] = readCases(join(save, readdirSync(save)[0]));
  expect(rec.status, JSON.stringify(rec)).toBe("failure");
  return rec;
}

describe("reasons through run", { timeout: 300_000 }, () => {
  it("an answer in prose: no-playbook", async () => {
    const rec = await runOne({ turns: [{ content: "I would restart the time-service pod." }] });
    expect(rec.reason?.code).toBe("no-playbook");
    expect(rec.reason?.detail).toMatch(/without calling print_playbook/);
  });

  it("broken YAML: invalid-playbook with the parser's message", async () => {
    const rec = await runOne({ turns: [printPlaybook("- hosts: [localhost\n  tasks: {\n")] });
    expect(rec.reason?.code).toBe("invalid-playbook");
    // ansible-playbook --syntax-check's words (the checker leaves YAML to ansible)
    expect(rec.reason?.detail).toMatch(
      /Syntax Error while loading YAML\. did not find expected ',' or '\]' \(line 2, column 8\)/,
    );
  });

  it("a task that fails: task-failed names the task and kubectl's message", async () => {
    const rec = await runOne({
      turns: [
        printPlaybook(
          play(
            "    - name: scale the missing deployment\n      ansible.builtin.command: kubectl scale deployment no-such-service --replicas=2 -n {{namespace}}\n",
          ),
        ),
      ],
    });
    expect(rec.reason?.code).toBe("task-failed");
    expect(rec.reason?.detail).toContain('"scale the missing deployment"');
    expect(rec.reason?.detail).toMatch(/\(ansible\.builtin\.command\) failed: .*no objects passed to scale/);
  });

  it("an action the cluster refuses: refused, quoting the 403", async () => {
    const rec = await runOne({
      turns: [
        printPlaybook(
          play(
            // where the harness keeps its chaos: Chaos Mesh's own namespace
            "    - name: remove the chaos\n      ansible.builtin.command: kubectl delete podchaos --all -n chaos-mesh\n",
          ),
        ),
      ],
    });
    expect(rec.reason?.code).toBe("refused");
    expect(rec.reason?.detail).toMatch(/"remove the chaos".*is forbidden: User/);
  });

  it("a playbook that changes nothing: ineffective, with the measurement", async () => {
    const rec = await runOne("noop", { failure: "cpu-stress" });
    expect(rec.reason?.code).toBe("ineffective");
    expect(rec.reason?.detail).toMatch(/^cpu \d+m of \d+m limit \(time-service-/);
  });

  it("a fix that scales a neighbour to zero: collateral, naming what broke", async () => {
    const rec = await runOne({
      turns: [
        printPlaybook(
          play(
            "    - ansible.builtin.command: kubectl rollout restart deployment/{{service}} -n {{namespace}}\n    - ansible.builtin.command: kubectl rollout status deployment/{{service}} -n {{namespace}} --timeout=300s\n    - ansible.builtin.command: kubectl scale deployment hello-service --replicas=0 -n {{namespace}}\n",
          ),
        ),
      ],
    });
    expect(rec.verdicts.reference?.pass).toBe(true);
    expect(rec.reason).toEqual({
      code: "collateral",
      detail: "Deployment hello-service was scaled from 1 to 0 replicas",
    });
  });

  it("a playbook that sleeps past --playbook-timeout: timeout", async () => {
    const rec = await runOne(
      { turns: [printPlaybook(play("    - ansible.builtin.command: sleep 120\n"))] },
      { extra: ["--playbook-timeout", "3"] },
    );
    expect(rec.reason?.code).toBe("timeout");
    expect(rec.reason?.detail).toMatch(/timed out after 3 s/);
  });

  it("ThinkRemed using T_max attempts: gave-up, with a reason per attempt", async () => {
    const failing = play(
      "    - name: scale the missing deployment\n      ansible.builtin.command: kubectl scale deployment no-such-service --replicas=2 -n {{namespace}}\n",
    );
    const rec = await runOne(
      { turns: [printPlaybook(failing), { content: "Let me think." }, { content: "Still thinking." }] },
      { method: "ThinkRemed", extra: ["--max-attempts", "2"] },
    );
    expect(rec.reason?.code).toBe("gave-up");
    expect(rec.reason?.detail).toMatch(/^after 2 attempts; last: no-playbook: /);
    expect(rec.attemptReasons?.map((a) => a?.code)).toEqual(["task-failed", "no-playbook"]);
  });
});
