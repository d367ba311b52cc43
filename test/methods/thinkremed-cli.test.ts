// ThinkRemed through the CLI on the embedded cluster, with scripted models: each scenario is one
// `microremed run` of one case, checked through what the run leaves behind (cases.jsonl and the
// case's conversation). Runs the built CLI (`npm test` builds it first). The failure is a bad
// configuration (pod-config-error): its fix is a rollback, so a playbook that changes nothing
// fails the verification.
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { execa } from "execa";
import { beforeAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import type { CaseRecord } from "../../src/runlog/records.js";
import { print, probe, type Turn } from "./thinkremed-helpers.js";

const CLI = join(dirname(fileURLToPath(import.meta.url)), "../../dist/src/cli/main.js");
const FIX = `- hosts: localhost
  gather_facts: false
  tasks:
    - command: kubectl rollout undo deployment/{{service}} -n {{namespace}}
    - command: kubectl rollout status deployment/{{service}} -n {{namespace}} --timeout=600s
`;
const NOTHING = "- hosts: localhost\n  gather_facts: false\n  tasks:\n    - debug: {msg: nothing}\n";

let dir: string;
beforeAll(() => {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run npm run build first`);
  dir = mkdtempSync(join(tmpdir(), "thinkremed-cli-"));
  writeFileSync(
    join(dir, "one.yaml"),
    stringify({ cases: [{ failure: "pod-config-error", target: "time-service" }] }),
  );
});

/** One case through `microremed run` with a scripted Coordinator; its record and conversation. */
async function runCase(name: string, turns: Turn[], extra: string[] = []) {
  const script = join(dir, `${name}.yaml`);
  writeFileSync(script, stringify({ turns }));
  const args = [
    "run",
    "--env",
    "simple-micro",
    "--remediate-method",
    "ThinkRemed",
    "--model",
    `scripted:${script}`,
  ];
  args.push(
    "--experiment-path",
    join(dir, "one.yaml"),
    "--speed",
    "60",
    "--save-path",
    dir,
    "--run-name",
    name,
    ...extra,
  );
  const r = await execa("node", [CLI, ...args], { reject: false, all: true, timeout: 240_000 });
  const file = join(dir, name, "cases.jsonl");
  expect(existsSync(file), r.all).toBe(true);
  const rec = JSON.parse(readFileSync(file, "utf8").trim().split("\n")[0]) as CaseRecord;
  const convo = JSON.parse(readFileSync(join(dir, name, "case-001", "conversation.json"), "utf8"));
  return { rec, convo, log: r.all ?? "" };
}

const usage = { inputTokens: 1000, outputTokens: 100 };

// each scenario starts an embedded cluster, deploys simple-micro and runs ansible: allow time
describe("ThinkRemed through the CLI on the embedded cluster", { timeout: 240_000 }, () => {
  it("probes, prints a playbook, and the case succeeds", async () => {
    // the second probe meets the limits the probe's contract states: 2>&1, an output
    // longer than its share cut head-and-tail, and the read-only tc and mount inside the pod
    const exec = "kubectl exec deploy/{{service}} -c sidecar-busybox --";
    const { rec, convo, log } = await runCase("probe-then-fix", [
      probe("kubectl get pods -o wide; kubectl top pods | grep {{service}}", usage),
      probe(
        [
          "kubectl describe deploy {{service}} 2>&1 | tail -n 3",
          "kubectl get deploy,rs,pods -o yaml",
          `${exec} tc qdisc show`,
          `${exec} mount | grep mysql`,
          `${exec} tc qdisc add dev eth0 root netem delay 100ms`,
        ].join("; "),
        usage,
      ),
      print(FIX, usage),
    ]);
    expect(rec.status, log).toBe("success");
    expect(rec).toMatchObject({ method: "ThinkRemed", attempts: 1, probeRounds: 2 });
    expect(rec.tokens).toMatchObject({ inputTokens: 3000, outputTokens: 300 });
    expect(rec.usageByRole.coordinator).toMatchObject({ inputTokens: 3000, outputTokens: 300 });
    const [observation, limits] = convo.conversation
      .filter((m: { role: string }) => m.role === "tool")
      .map((m: { content: string }) => m.content);
    expect(observation).toContain("$ kubectl -n simple-micro get pods -o wide");
    expect(observation).toContain("time-service");

    const parts = limits.split(/^(?=\$ )/m);
    expect(parts, limits).toHaveLength(5);
    // describe's last Events, after 2>&1
    expect(parts[0]).toMatch(/^\$ kubectl -n simple-micro describe deploy time-service 2>&1 \| tail -n 3\n/);
    expect(parts[0]).toMatch(/ScalingReplicaSet/);
    // 8000 characters shared by five commands: the YAML keeps its head and tail around a count
    expect(parts[1]).toMatch(
      /^\$ kubectl -n simple-micro get deploy,rs,pods -o yaml\napiVersion: v1\nitems:\n/,
    );
    expect(parts[1]).toMatch(
      /\n\[… \d+ of \d+ lines \(\d+ characters\) cut from the middle; to see them, narrow the command: \| grep WORD/,
    );
    expect(parts[1]).toMatch(/\nkind: List\nmetadata:\n {2}resourceVersion: ""\n$/);
    expect(parts[1].length).toBeLessThan(1600 + 300);
    // no NetworkChaos in this case: the pod's interfaces have no qdisc but noqueue
    expect(parts[2]).toMatch(
      /\nqdisc noqueue 0: dev lo root refcnt 2 \nqdisc noqueue 0: dev eth0 root refcnt 2\n$/,
    );
    expect(parts[3]).toMatch(/\n\S+ on \/var\/log\/mysql type \S+ \(/);
    expect(parts[4]).toMatch(
      /\nrefused: exec tc: tc may only list qdiscs: tc \[-s\] qdisc show \[dev <device>\]/,
    );
  });

  it("reflects after a failed verification and succeeds on the second attempt", async () => {
    const { rec, convo, log } = await runCase("reflect-then-fix", [print(NOTHING, usage), print(FIX, usage)]);
    expect(rec.status, log).toBe("success");
    expect(rec).toMatchObject({ attempts: 2, probeRounds: 0, tokens: { inputTokens: 2000 } });
    expect(convo.attempts.map((a: { verdict: { pass: boolean } }) => a.verdict.pass)).toEqual([false, true]);
    const reflection = convo.conversation.find((m: { content: string }) =>
      m.content.includes("has not been remediated"),
    );
    expect(reflection.content).toContain("PLAY RECAP");
    expect(reflection.content).toContain(`Verification: failed: ${convo.attempts[0].verdict.reason}`);
  });

  it("tells a method whose report names no service what users and the namespace show, never the fault's own check", async () => {
    const { rec, convo, log } = await runCase(
      "reflect-symptom",
      [print(NOTHING, usage), print(FIX.replaceAll("{{service}}", "time-service"), usage)],
      ["--report", "symptom"],
    );
    expect(rec.status, log).toBe("success");
    const first = convo.attempts[0].verdict;
    // the record keeps the whole verdict; the model heard only what its alert lets it know
    expect(first.reason).toContain("time-service");
    expect(first.told).toBeDefined();
    expect(first.told).not.toContain(first.reason);
    const reflection = convo.conversation.find((m: { content: string }) =>
      m.content.includes("has not been remediated"),
    );
    expect(reflection.content).toContain(`Verification: failed: ${first.told}`);
    expect(reflection.content).not.toContain(first.reason);
  });

  it("gives up after T_max attempts", async () => {
    const { rec, log } = await runCase("exhausted", [print(NOTHING, usage), print(NOTHING, usage)]);
    expect(rec.status, log).toBe("failure");
    expect(rec).toMatchObject({ attempts: 2, tokens: { inputTokens: 2000, outputTokens: 200 } });
  });

  it("answers malformed tool arguments with an observation and goes on", async () => {
    const { rec, convo, log } = await runCase("malformed", [
      { toolCalls: [{ name: "probe_system", arguments: '{"command": "kubectl get' }], usage },
      print(FIX, usage),
    ]);
    expect(rec.status, log).toBe("success");
    expect(rec).toMatchObject({ attempts: 1, probeRounds: 1 });
    expect(convo.conversation.find((m: { role: string }) => m.role === "tool").content).toContain(
      "not valid JSON",
    );
  });

  it("records a model that never calls a tool", async () => {
    const text = { content: "Restart the service.", usage };
    const { rec, log } = await runCase("no-tool", [text, text, text, text]);
    expect(rec.status, log).toBe("failure");
    expect(rec).toMatchObject({ attempts: 2, probeRounds: 0, tokens: { inputTokens: 4000 } });
    expect(rec.errors.filter((e) => e.includes("plain text again after a reminder"))).toHaveLength(2);
  });
});
