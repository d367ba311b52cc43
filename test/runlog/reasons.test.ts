// Reasons from recorded facts: the executions come from the real executor (real
// ansible-playbook, no cluster needed for these playbooks), the verdicts are the verifiers'
// shapes as a run records them (cases.jsonl of a noop run on simple-micro).
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { AnsibleExecutor, type ExecutionResult } from "../../src/ansible/executor.js";
import { REASON_CODES } from "../../src/outcome.js";
import {
  type AttemptFacts,
  attemptReason,
  deriveReasons,
  type ExecutionFact,
  errorCause,
  measurementText,
  type ReasonInput,
} from "../../src/runlog/reasons.js";

const ROOT = join(import.meta.dirname, "../..");
const dir = mkdtempSync(join(tmpdir(), "reasons-"));
const executor = (timeoutMs = 60_000) =>
  new AnsibleExecutor({
    inventory: join(ROOT, "inventory.ini"),
    kubeconfig: "/nonexistent",
    timeoutMs,
    sandbox: "bwrap",
  });
const play = (tasks: string) => `- hosts: localhost\n  gather_facts: false\n  tasks:\n${tasks}`;
let n = 0;
const run = (pb: string, timeoutMs?: number): Promise<ExecutionResult> =>
  executor(timeoutMs).run(pb, { caseDir: dir, name: `playbook-${++n}`, namespace: "simple-micro" });
const attempt = (execution?: ExecutionFact, problems: string[] = []): AttemptFacts => ({
  index: 1,
  execution,
  problems: [...problems, ...(execution?.problems ?? [])],
});

// as recorded by a noop run (pod verifier, health verifier)
const notReady = {
  pass: false,
  reason:
    "the time-service pods are not all Running and Ready: time-service-86b7b788b4-xfzhk Running NotReady",
  measurements: {},
};
const healthy = {
  pass: true,
  reason: "all 2 workloads of simple-micro are present, not scaled down and Ready",
  measurements: {},
};
const scaledDown = {
  pass: false,
  reason: "Deployment hello-service was scaled from 1 to 0 replicas",
  measurements: { workloads: ["Deployment/hello-service 0/0", "Deployment/time-service 1/1"] },
};
const cpuHot = {
  pass: false,
  reason: "time-service-1/time-service uses 1000m of its 1000m cpu limit (100%)",
  measurements: {
    cpu: [{ pod: "time-service-1", container: "time-service", usage: "1000m", limit: "1000m", ratio: 1 }],
  },
};
const failed = (x: Partial<ReasonInput>): ReasonInput => ({
  status: "failure",
  attempts: [],
  verdicts: { reference: notReady, health: notReady },
  ...x,
});

describe("reasons", { timeout: 120_000 }, () => {
  it("has one table of codes, each with a one-line description", () => {
    for (const [code, { class: c, meaning }] of Object.entries(REASON_CODES)) {
      expect(code).toMatch(/^[a-z-]+$/);
      expect(meaning).not.toContain("\n");
      expect(["answer", "injection", "run"]).toContain(c);
    }
  });

  it("no playbook: the method's problem is the detail", () => {
    const r = deriveReasons(
      failed({
        attempts: [
          attempt(undefined, ["the model answered without calling print_playbook and without a playbook"]),
        ],
      }),
    );
    expect(r.reason).toEqual({
      code: "no-playbook",
      detail: "the model answered without calling print_playbook and without a playbook",
    });
  });

  it("invalid playbook: the YAML parser's message, or ansible's --syntax-check error", async () => {
    const yaml = await run("- hosts: [localhost\n");
    expect(attemptReason(attempt(yaml))).toMatchObject({
      code: "invalid-playbook",
      detail: /not valid YAML/,
    });
    const syntax = await run(play("    - name: bad\n      no_such_module_anywhere: {x: 1}\n"));
    const r = attemptReason(attempt(syntax));
    expect(r?.code).toBe("invalid-playbook");
    expect(r?.detail).toMatch(/no_such_module_anywhere/);
  });

  it("task failed: the first failed task's name and message", async () => {
    const e = await run(
      play(
        "    - name: fine\n      ansible.builtin.debug: {msg: ok}\n    - name: scale the missing deployment\n      ansible.builtin.command: sh -c 'echo no objects passed to scale >&2; exit 1'\n",
      ),
    );
    expect(e.ok).toBe(false);
    const r = attemptReason(attempt(e));
    expect(r?.code).toBe("task-failed");
    expect(r?.detail).toContain('"scale the missing deployment"');
    expect(r?.detail).toContain("no objects passed to scale");
    // a record from before the executor kept task results: the same reason from ansible's text
    const legacy = attemptReason(attempt({ ...e, tasks: undefined }));
    expect(legacy?.code).toBe("task-failed");
    expect(legacy?.detail).toMatch(
      /^task "scale the missing deployment" failed: .*no objects passed to scale/,
    );
  });

  it("refused: the cluster's Forbidden message from a task, quoted", async () => {
    // kubectl's words for a 403 (k8s.io/apimachinery StatusError: "<resource> \"<name>\" is forbidden: User ...")
    const e = await run(
      play(
        `    - name: delete the pod\n      ansible.builtin.shell: |\n        echo 'Error from server (Forbidden): pods "x" is forbidden: User "system:serviceaccount:simple-micro:remediator" cannot delete resource "pods"' >&2; exit 1\n`,
      ),
    );
    const r = attemptReason(attempt(e));
    expect(r?.code).toBe("refused");
    expect(r?.detail).toMatch(/is forbidden: User/);
  });

  it("timeout: a playbook killed at its limit", async () => {
    const e = await run(play("    - ansible.builtin.command: sleep 60\n"), 3000);
    expect(attemptReason(attempt(e))).toMatchObject({ code: "timeout", detail: /timed out after 3 s/ });
  });

  it("ineffective and collateral: judged by the verdicts after a clean run", async () => {
    const clean = await run(play("    - ansible.builtin.debug: {msg: nothing}\n"));
    const noop = deriveReasons(
      failed({ attempts: [attempt(clean)], verdicts: { reference: cpuHot, health: healthy } }),
    );
    expect(noop.reason).toMatchObject({ code: "ineffective" });
    expect(noop.reason?.detail).toMatch(/^cpu 1000m of 1000m limit/);
    const scaled = deriveReasons(
      failed({ attempts: [attempt(clean)], verdicts: { reference: healthy, health: scaledDown } }),
    );
    expect(scaled.reason).toEqual({
      code: "collateral",
      detail: "Deployment hello-service was scaled from 1 to 0 replicas",
    });
    // ThinkRemed's own verification is the combined verdict: the health sentences tell them apart
    const combined = { ...scaledDown, measurements: {} };
    expect(attemptReason({ ...attempt(clean), verdict: combined })?.code).toBe("collateral");
    expect(attemptReason({ ...attempt(clean), verdict: notReady })?.code).toBe("ineffective");
  });

  it("gave up: ThinkRemed used T_max attempts; a reason per attempt", async () => {
    const clean = await run(play("    - ansible.builtin.debug: {msg: nothing}\n"));
    const first = { ...attempt(clean), verdict: notReady };
    const second = { ...attempt(undefined, ["no playbook after 8 Coordinator turns"]), index: 2 };
    const r = deriveReasons(failed({ attempts: [first, second], maxAttempts: 2 }));
    expect(r.attempts.map((a) => a?.code)).toEqual(["ineffective", "no-playbook"]);
    expect(r.reason?.code).toBe("gave-up");
    expect(r.reason?.detail).toBe(
      "after 2 attempts; last: no-playbook: no playbook after 8 Coordinator turns",
    );
  });

  it("errors: the recorded cause, else the cause read from the error", () => {
    expect(deriveReasons(failed({ status: "success" })).reason).toBeUndefined();
    expect(
      deriveReasons(failed({ status: "error", error: "provider said so", errorCause: "rate-limit" })).reason,
    ).toEqual({ code: "rate-limit", detail: "provider said so" });
    expect(errorCause("error E_MODEL: openai:gpt-4o failed after 5 attempts: 429 Too Many Requests")).toBe(
      "rate-limit",
    );
    expect(errorCause("error E_MODEL: gpt failed after 5 attempts: 503 Service Unavailable")).toBe("outage");
    expect(errorCause("error E_MISSING_TOOL: kubectl was not found on PATH")).toBe("tool-missing");
    expect(errorCause("TypeError: x is undefined")).toBe("harness");
    // a provider failure before any playbook ran decides a failed case
    const early = deriveReasons(failed({ attempts: [attempt()], error: "method: request timed out" }));
    expect(early.reason?.code).toBe("timeout");
    expect(deriveReasons(failed({ status: "injection-failure" })).reason?.code).toBe("not-injected");
    expect(deriveReasons(failed({ status: "interrupted" })).reason?.code).toBe("interrupted");
  });

  it("measurements of each verifier's shape", () => {
    expect(
      measurementText({
        pass: false,
        reason: "",
        measurements: {
          dd: [{ pod: "mysql-0", mbps: 2.5 }],
          ping: [{ pod: "a", lossPercent: 60, avgMs: 1 }],
        },
      }),
    ).toBe("dd 2.5 MB/s (mysql-0); ping 60% loss, 1 ms (a)");
    // pod-config-error: the cpu and memory checks nested
    expect(measurementText({ pass: false, reason: "", measurements: { cpu: cpuHot.measurements } })).toBe(
      "cpu 1000m of 1000m limit (time-service-1)",
    );
  });
});
