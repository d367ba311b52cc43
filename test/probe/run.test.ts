// The probe on the user's path: `microremed run` with ThinkRemed and a scripted Coordinator that
// probes the way an attacker would (the probe attacks of test/probe/cluster.test.ts) before it prints the fix. Each
// attack is refused in one line of the observation, no key from the runner's environment and no
// file content reaches the conversation, no file is written, and the case still succeeds.
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import { beforeAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { CLI, checkBuilt } from "../cli/cli-helpers.js";
import { print, probe } from "../methods/thinkremed-helpers.js";

const KEY = "sk-run-probe-test-must-not-leak";
const FIX = `- hosts: localhost
  gather_facts: false
  tasks:
    - command: kubectl rollout undo deployment/{{service}} -n {{namespace}}
    - command: kubectl rollout status deployment/{{service}} -n {{namespace}} --timeout=600s
`;
const usage = { inputTokens: 100, outputTokens: 10 };

let dir: string;
beforeAll(() => {
  checkBuilt();
  dir = mkdtempSync(join(tmpdir(), "probe-run-"));
  writeFileSync(
    join(dir, "one.yaml"),
    stringify({ cases: [{ failure: "pod-config-error", target: "time-service" }] }),
  );
});

describe("probe attacks through microremed run", { timeout: 300_000 }, () => {
  it("are refused in the observation, leak nothing, write nothing, and the case goes on", async () => {
    const cache = join(dir, "cache-written");
    const attacks = [
      "kubectl get ns default -o templatefile=/proc/self/environ",
      "kubectl get ns default -o go-template-file --template=/proc/self/environ",
      `kubectl get pods --cache_dir=${cache}`,
      "kubectl get pods --as=system:admin",
      "kubectl get pods --kubeconfig=/root/.kube/config",
      "kubectl get pods -o yaml | grep -E '(a)\\1'",
      "kubectl exec deploy/time-service -- wget -qO- 'http://time-service\\@169.254.169.254/'",
    ];
    const script = join(dir, "attacker.yaml");
    writeFileSync(
      script,
      stringify({
        turns: [
          probe(attacks.join("; "), usage),
          probe("kubectl get pods\u0000 -A", usage),
          probe(
            "kubectl get pods -o wide | grep -E '(a+)+$' | wc -l; kubectl get pods --all_namespaces; kubectl get secrets -n kube-system",
            usage,
          ),
          print(FIX, usage),
        ],
      }),
    );
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
      "attacker",
    );
    const r = await execa("node", [CLI, ...args], {
      reject: false,
      all: true,
      timeout: 240_000,
      env: { OPENAI_API_KEY: KEY, MICROREMED_TEST_API_KEY: KEY },
    });
    const cases = join(dir, "attacker", "cases.jsonl");
    expect(existsSync(cases), r.all).toBe(true);
    const rec = JSON.parse(readFileSync(cases, "utf8").trim().split("\n")[0]);
    const convoText = readFileSync(join(dir, "attacker", "case-001", "conversation.json"), "utf8");
    const observations: string[] = JSON.parse(convoText)
      .conversation.filter((m: { role: string }) => m.role === "tool")
      .map((m: { content: string }) => m.content);

    expect(rec.status, r.all).toBe("success");
    expect(convoText).not.toContain(KEY);
    expect(readFileSync(cases, "utf8")).not.toContain(KEY);
    expect(existsSync(cache)).toBe(false);
    // one "refused:" line per attack, right after the command it refuses
    const refusals = observations[0].split("\n").filter((l) => l.startsWith("refused: "));
    expect(refusals, observations[0]).toHaveLength(attacks.length);
    expect(observations[0]).toContain("templates from files");
    expect(observations[0]).toContain("--cache-dir writes files");
    expect(observations[0]).toContain("backreferences");
    expect(observations[1]).toMatch(/^\$ .*\nrefused: a NUL byte cannot be part of a command/);
    // the catastrophic grep answers; -A and -n other reach kubectl and the case's RBAC refuses them
    expect(observations[2]).not.toContain("refused:");
    expect(observations[2]).toMatch(/grep -E '\(a\+\)\+\$' \| wc -l\n\d+\n/);
    expect(observations[2]).toContain('cannot list resource "pods" in API group "" at the cluster scope');
    expect(observations[2]).toContain(
      'cannot list resource "secrets" in API group "" in the namespace "kube-system"',
    );
  });
});
