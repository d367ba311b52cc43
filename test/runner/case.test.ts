// runCase with fake roles: real implementations of each role's interface that answer as told and
// note that they ran, a method that returns or throws as told, and a clock that moves only when
// told. No cluster: the pipeline's own logic (order, outcome, reason, cleanup) is what is tested.
import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { MicroRemedError } from "../../src/errors.js";
import { resolveModel } from "../../src/llm/registry.js";
import type { Method, MethodContext, MethodResult } from "../../src/methods/types.js";
import { runCase } from "../../src/runner/case.js";
import type { CaseRoles } from "../../src/runner/context.js";
import type { PlannedCase } from "../../src/runner/experiments.js";
import { caseSetup } from "../../src/runner/setup.js";
import type { Score, Verdict } from "../../src/verify/types.js";
import { FakeClock } from "../helpers/clock.js";
import { offlineClient, runConfig, simpleMicro } from "../helpers/offline.js";
import { RecordingExecutor } from "../methods/thinkremed-helpers.js";

const PLANNED: PlannedCase = { index: 3, faults: [{ failure: "pod-fail", target: "time-service" }] };
const ok = (reason: string): Verdict => ({ pass: true, reason, measurements: {} });
const score = (reference: Verdict, health = ok("all workloads Ready")): Score => ({
  pass: reference.pass && health.pass,
  reason: reference.pass ? health.reason : reference.reason,
  measurements: {},
  reference,
  health,
});
const PLAYBOOK = "- hosts: localhost\n  tasks: []\n";

/** A method that does what it is told: answer with a result, or throw. */
class ToldMethod implements Method {
  readonly name = "told";
  readonly maxAttempts = 1;
  constructor(private readonly act: (ctx: MethodContext) => Promise<MethodResult>) {}
  remediate(ctx: MethodContext): Promise<MethodResult> {
    return this.act(ctx);
  }
}

/** One attempt that ran a playbook through the executor it was handed. */
const playsOnce = new ToldMethod(async (ctx) => {
  const execution = await ctx.executor.run(PLAYBOOK, {
    caseDir: ctx.caseDir,
    name: "playbook-1",
    namespace: "x",
  });
  return {
    attempts: [{ index: 1, playbook: PLAYBOOK, execution, problems: execution.problems, probeRounds: 0 }],
    conversation: [],
    usage: { generator: { inputTokens: 100, outputTokens: 20 } },
  };
});

function fakeCase(
  o: { method?: Method; roles?: Partial<CaseRoles>; final?: Score; abort?: AbortController } = {},
) {
  const calls: string[] = [];
  const note =
    <T>(name: string, value: T) =>
    async () => {
      calls.push(name);
      return value;
    };
  const roles: Partial<CaseRoles> = {
    preparer: { prepare: note("prepare", { health: [] }) },
    injector: {
      inject: async (_ctx, faults) => {
        calls.push("inject");
        return faults.map((f) => ({ failure: f.failure.id, namespace: "simple-micro", target: f.target }));
      },
    },
    confirmer: {
      confirm: note("confirm", { faultShown: true, reason: "fault visible: 0/1 Ready", measurements: {} }),
    },
    identity: {
      issue: note("identity", {
        user: "system:serviceaccount:simple-micro:oncall",
        kubeconfigPath: "/nonexistent/kubeconfig",
        remove: note("identity removed", undefined),
      }),
    },
    diagnoser: {
      diagnose: note("diagnose", {
        env: "simple-micro",
        namespace: "simple-micro",
        service: "time-service",
        failure: "pod-fail",
        category: "pod",
        title: "Pod failure",
        runtimeContext: "",
        inventory: "",
      }),
    },
    scorer: { scorer: () => ({ score: note("score", o.final ?? score(ok("time-service pods Ready"))) }) },
    restorer: { restore: note("restore", undefined) },
    ...o.roles,
  };
  const executor = new RecordingExecutor();
  const ctx = caseSetup({
    client: offlineClient(),
    time: new FakeClock(),
    env: simpleMicro(),
    cfg: runConfig(),
    method: o.method ?? playsOnce,
    model: resolveModel("noop"),
    executor,
    maxAttempts: 1,
    caseDir: mkdtempSync(join(tmpdir(), "case-test-")),
    onPhase: (phase) => calls.push(`phase ${phase}`),
    signal: (o.abort ?? new AbortController()).signal,
    roles,
  });
  return { ctx, calls, executor, run: (trial?: number) => runCase(PLANNED, ctx, trial) };
}

describe("runCase", () => {
  it("runs the roles in order and records a success", async () => {
    const { ctx, calls, executor, run } = fakeCase();
    const rec = await run(2);
    expect(calls.filter((c) => !c.startsWith("phase "))).toEqual([
      "prepare",
      "inject",
      "confirm",
      "identity",
      "diagnose",
      "score",
      "restore",
      "identity removed",
    ]);
    expect(calls.filter((c) => c.startsWith("phase "))).toEqual([
      "phase prepare",
      "phase inject",
      "phase confirm",
      "phase method",
      "phase settle and verify",
      "phase restore",
    ]);
    // the playbook ran as the case's identity, not the harness
    expect(executor.playbooks).toEqual([PLAYBOOK]);
    expect(rec).toMatchObject({
      index: 3,
      trial: 2,
      failure: "pod-fail",
      target: "time-service",
      status: "success",
      success: true,
      injected: true,
      attempts: 1,
      maxAttempts: 1,
      method: "told",
      model: "noop",
      tokens: { inputTokens: 100, outputTokens: 20 },
      verdicts: { injection: { faultShown: true }, reference: { pass: true }, health: { pass: true } },
      remediation: { finalMs: 0 },
      remediationSeconds: 0,
      errors: [],
    });
    expect(rec.reason).toBeUndefined();
    expect(Object.keys(rec.phases).sort()).toEqual([
      "confirm",
      "execute",
      "identity",
      "inject",
      "method",
      "restore",
      "verify",
    ]);
    expect(existsSync(join(ctx.caseDir, "conversation.json"))).toBe(true);
  });

  it("re-bases shown time before the method, and the alert's onset moves with it", async () => {
    let since: number | undefined;
    const { ctx, run } = fakeCase({
      roles: {
        injector: {
          inject: async (_c, faults) =>
            faults.map((f) => ({
              failure: f.failure.id,
              namespace: "simple-micro",
              target: f.target,
              onsetMs: 400_000,
            })),
        },
        diagnoser: {
          diagnose: async (_c, _f, seen) => {
            since = seen.sinceMs;
            return { env: "simple-micro", namespace: "simple-micro", runtimeContext: "", inventory: "" };
          },
        },
      },
    });
    const clock = ctx.scope.time as FakeClock;
    // the cluster re-based its shown time 30 minutes back: what the runner noted moves alike
    clock.moves = -1_800_000;
    const rec = await runCase(PLANNED, { ...ctx, methodLead: 600_000 });
    expect(rec.status).toBe("success");
    expect(clock.leads).toEqual([600_000]);
    expect(since).toBe(400_000 - 1_800_000);
    // a run that does not re-base per case asks for nothing
    clock.leads.length = 0;
    await run();
    expect(clock.leads).toEqual([]);
  });

  it("an injector whose fault never shows: injection failure, and nothing but restore runs after", async () => {
    const { calls, run } = fakeCase({
      roles: {
        confirmer: {
          confirm: async () => ({
            faultShown: false,
            reason: "the fault did not show within 30 s: all time-service pods Ready",
            measurements: {},
          }),
        },
      },
    });
    const rec = await run();
    expect(calls.filter((c) => !c.startsWith("phase "))).toEqual(["prepare", "inject", "restore"]);
    expect(rec).toMatchObject({
      status: "injection-failure",
      success: false,
      injected: false,
      attempts: 0,
      verdicts: { injection: { faultShown: false } },
      reason: {
        code: "not-injected",
        detail: "the fault did not show within 30 s: all time-service pods Ready",
      },
    });
    expect(rec.verdicts.reference).toBeUndefined();
  });

  it("a method that throws: an error of the run, with the error's reason, and cleanup", async () => {
    const unreachable = new MicroRemedError(
      "E_CLUSTER_UNREACHABLE",
      "the cluster at https://x does not answer",
    );
    const { calls, run } = fakeCase({
      method: new ToldMethod(async () => {
        throw unreachable;
      }),
    });
    const rec = await run();
    expect(rec).toMatchObject({ status: "error", success: false, reason: { code: "unreachable" } });
    expect(rec.errors).toEqual([unreachable.oneLine()]);
    expect(calls).toContain("restore");
    expect(calls).toContain("identity removed");
    // a defect of the harness is recorded with its stack
    const defect = await fakeCase({
      method: new ToldMethod(async () => {
        throw new TypeError("x is undefined");
      }),
    }).run();
    expect(defect).toMatchObject({ status: "error", reason: { code: "harness" } });
    expect(defect.errors[0]).toMatch(/^TypeError: x is undefined\n\s+at /);
  });

  it("a method whose provider failed: an error with the provider's reason, not the model's failure", async () => {
    const rec = await fakeCase({
      method: new ToldMethod(async () => ({
        attempts: [{ index: 1, problems: [], probeRounds: 0 }],
        conversation: [],
        usage: {},
        error: { reason: "rate-limit", message: "openai:gpt-4o gave up after 5 attempts: 429" },
      })),
    }).run();
    expect(rec).toMatchObject({
      status: "error",
      reason: { code: "rate-limit", detail: "method: openai:gpt-4o gave up after 5 attempts: 429" },
    });
  });

  it("a restorer that fails: the error is recorded, a success becomes an error, the identity is still removed", async () => {
    const { calls, run } = fakeCase({
      roles: {
        restorer: {
          restore: async () => {
            throw new MicroRemedError("E_CLUSTER", "time-service did not become Ready again");
          },
        },
      },
    });
    const rec = await run();
    expect(rec.status).toBe("error");
    expect(rec.errors).toEqual(["cleanup: error E_CLUSTER: time-service did not become Ready again"]);
    expect(rec.reason?.code).toBe("cluster");
    expect(calls).toContain("identity removed");
    // a case that failed anyway stays a failure: its checks measured the method
    const failed = await fakeCase({
      final: score({ pass: false, reason: "time-service pods not Ready", measurements: {} }),
      roles: {
        restorer: {
          restore: async () => {
            throw new MicroRemedError("E_CLUSTER", "restore failed");
          },
        },
      },
    }).run();
    expect(failed).toMatchObject({ status: "failure", reason: { code: "ineffective" } });
  });

  it("Ctrl-C while the method acts: interrupted, and restore still runs", async () => {
    const abort = new AbortController();
    const { calls, run } = fakeCase({
      abort,
      method: new ToldMethod(async () => {
        abort.abort();
        throw new MicroRemedError("E_INTERRUPTED", "the call was interrupted", undefined, {
          reason: "interrupted",
        });
      }),
    });
    const rec = await run();
    expect(rec).toMatchObject({ status: "interrupted", reason: { code: "interrupted" } });
    expect(calls.slice(-3)).toEqual(["phase restore", "restore", "identity removed"]);
  });

  it("a score that fails: a failure, with the reason read off the verdicts", async () => {
    const rec = await fakeCase({
      final: score({
        pass: false,
        reason: "the time-service pods are not all Running and Ready",
        measurements: {},
      }),
    }).run();
    expect(rec).toMatchObject({
      status: "failure",
      success: false,
      verdicts: { reference: { pass: false } },
      reason: { code: "ineffective", detail: "the time-service pods are not all Running and Ready" },
    });
  });
});
