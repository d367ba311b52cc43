// Job and CronJob policies on a pinned clock, checked against kubernetes' sources (v1.31):
// - pkg/controller/job/job_controller.go: at most `parallelism` active pods; with restartPolicy
//   OnFailure the containers' restarts count against backoffLimit (pastBackoffLimitOnFailure);
//   suspend deletes the active pods (Suspended condition, reason JobSuspended) and resuming
//   starts them again (JobResumed).
// - pkg/controller/job/success_policy.go: an Indexed Job meets successPolicy when the listed
//   indexes succeed (SuccessCriteriaMet / Complete with reason SuccessPolicy, "Matched rules at
//   index 0"), and its remaining pods are removed.
// - pkg/apis/batch/validation/validation.go: a Job's template is immutable; a schedule may not
//   carry TZ= or CRON_TZ= (use spec.timeZone).
// - pkg/controller/cronjob/cronjob_controllerv2.go: concurrencyPolicy Forbid skips a run while
//   one is active (JobAlreadyActive); suspend stops scheduling.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { R } from "../../../src/sim/api/resources.js";
import { ManualClock } from "../../../src/sim/core/clock.js";
import type { Job, Pod } from "../../../src/sim/core/objects.js";
import { ensureNamespace, startCluster, type TestCluster, waitFor } from "../helpers/exec.js";

const NS = "jobpol";
let t: TestCluster;
const clock = new ManualClock(Date.parse("2026-04-01T00:00:10Z"));

beforeAll(async () => {
  t = await startCluster(1, clock);
  ensureNamespace(t.c, NS);
});
afterAll(async () => {
  await t?.stop();
});

const reg = () => t.c.ctx.registry;
const job = (name: string) => reg().tryGet(R("Job"), NS, name) as Job | undefined;
const cond = (o: Job | undefined, type: string) => (o?.status?.conditions ?? []).find((c) => c.type === type);
const podsOf = (name: string) =>
  reg().list(R("Pod"), NS, { labelSelector: `batch.kubernetes.io/job-name=${name}` }) as Pod[];
const activeOf = (name: string) =>
  podsOf(name).filter(
    (p) => !p.metadata.deletionTimestamp && !["Succeeded", "Failed"].includes(p.status?.phase ?? ""),
  );

function createJob(name: string, spec: Record<string, unknown>, command: string[], restartPolicy = "Never") {
  return reg().create(R("Job"), NS, {
    apiVersion: "batch/v1",
    kind: "Job",
    metadata: { name },
    spec: {
      ...spec,
      template: { spec: { restartPolicy, containers: [{ name: "c", image: "busybox:1.36", command }] } },
    },
  });
}

describe("Job policies", () => {
  it("keeps at most `parallelism` pods active until `completions` succeed", async () => {
    createJob("par", { completions: 5, parallelism: 2 }, ["sh", "-c", "sleep 10"]);
    let most = 0;
    await waitFor(
      "complete",
      () => {
        most = Math.max(most, activeOf("par").length);
        return cond(job("par"), "Complete");
      },
      clock,
    );
    expect(most).toBe(2);
    expect(podsOf("par")).toHaveLength(5);
    expect(job("par")!.status!.succeeded).toBe(5);
  });

  it("counts container restarts against backoffLimit under restartPolicy OnFailure", async () => {
    createJob("restarts", { backoffLimit: 2 }, ["sh", "-c", "exit 1"], "OnFailure");
    await waitFor("failed", () => cond(job("restarts"), "Failed"), clock, 30_000);
    expect(cond(job("restarts"), "Failed")).toMatchObject({ reason: "BackoffLimitExceeded" });
    // one pod, restarted in place by the kubelet, then removed by the controller
    expect(podsOf("restarts").filter((p) => !p.metadata.deletionTimestamp)).toHaveLength(0);
  });

  it("completes an Indexed job early on its successPolicy", async () => {
    createJob(
      "leader",
      {
        completions: 3,
        parallelism: 3,
        completionMode: "Indexed",
        successPolicy: { rules: [{ succeededIndexes: "0" }] },
      },
      // index 0 finishes at once; the others would run for an hour
      ["sh", "-c", 'if [ "$JOB_COMPLETION_INDEX" = 0 ]; then exit 0; fi; sleep 3600'],
    );
    await waitFor("complete", () => cond(job("leader"), "Complete"), clock);
    expect(cond(job("leader"), "SuccessCriteriaMet")).toMatchObject({
      reason: "SuccessPolicy",
      message: "Matched rules at index 0",
    });
    expect(job("leader")!.status).toMatchObject({ succeeded: 1, completedIndexes: "0" });
    expect(activeOf("leader")).toHaveLength(0);
  });

  it("suspends and resumes a job", async () => {
    createJob("pausable", {}, ["sleep", "3600"]);
    await waitFor("a pod", () => activeOf("pausable").length === 1, clock);
    const kubectl = await t.kubectl([
      "patch",
      "job",
      "pausable",
      "-n",
      NS,
      "-p",
      '{"spec":{"suspend":true}}',
    ]);
    expect(kubectl.exitCode).toBe(0);
    await waitFor("suspended", () => cond(job("pausable"), "Suspended")?.status === "True", clock);
    expect(cond(job("pausable"), "Suspended")).toMatchObject({
      reason: "JobSuspended",
      message: "Job suspended",
    });
    await waitFor("no pods", () => activeOf("pausable").length === 0, clock);
    const row = await t.kubectl(["get", "job", "pausable", "-n", NS, "--no-headers"]);
    expect(row.stdout).toMatch(/^pausable\s+Suspended\s+0\/1\s/);
    await t.kubectl(["patch", "job", "pausable", "-n", NS, "-p", '{"spec":{"suspend":false}}']);
    await waitFor("resumed", () => cond(job("pausable"), "Suspended")?.status === "False", clock);
    expect(cond(job("pausable"), "Suspended")?.reason).toBe("JobResumed");
    await waitFor("a pod again", () => activeOf("pausable").length === 1, clock);
  });
});

describe("what the API server refuses", () => {
  it("a change to a Job's pod template (immutable), and a time zone in a schedule", async () => {
    createJob("fixed", {}, ["sleep", "3600"]);
    const r = await t.kubectl(["set", "image", "job/fixed", "c=busybox:1.37", "-n", NS]);
    expect(r.exitCode).not.toBe(0);
    expect(r.stderr).toMatch(/spec\.template: Invalid value: .*: field is immutable/);
    const cj = await t.kubectl([
      "create",
      "cronjob",
      "tz",
      "-n",
      NS,
      "--image=busybox:1.36",
      "--schedule=CRON_TZ=UTC 0 * * * *",
      "--",
      "date",
    ]);
    expect(cj.exitCode).not.toBe(0);
    expect(cj.stderr).toContain(
      'spec.schedule: Invalid value: "CRON_TZ=UTC 0 * * * *": cannot use TZ or CRON_TZ in schedule, use timeZone field instead',
    );
  });
});

describe("CronJob policies", () => {
  it("skips a run while one is active under Forbid, and stops when suspended", async () => {
    reg().create(R("CronJob"), NS, {
      apiVersion: "batch/v1",
      kind: "CronJob",
      metadata: { name: "lonely" },
      spec: {
        schedule: "* * * * *",
        concurrencyPolicy: "Forbid",
        jobTemplate: {
          spec: {
            template: {
              spec: {
                restartPolicy: "Never",
                containers: [{ name: "c", image: "busybox:1.36", command: ["sleep", "150"] }],
              },
            },
          },
        },
      },
    });
    const cj = reg().get(R("CronJob"), NS, "lonely");
    const owned = () =>
      reg()
        .list(R("Job"), NS)
        .filter((j) => j.metadata.ownerReferences?.[0]?.uid === cj.metadata.uid);
    const start = clock.now();
    await waitFor("three minutes", () => clock.now() >= start + 185_000, clock, 30_000);
    // a run takes 2.5 minutes: the minute after it started finds it still active
    const ev = await t.kubectl([
      "get",
      "events",
      "-n",
      NS,
      "--field-selector",
      "involvedObject.name=lonely",
      "-o",
      "jsonpath={range .items[*]}{.reason}|{end}",
    ]);
    expect(ev.stdout).toContain("JobAlreadyActive|");
    expect(owned().length).toBeLessThanOrEqual(2);
    await t.kubectl(["patch", "cronjob", "lonely", "-n", NS, "-p", '{"spec":{"suspend":true}}']);
    const count = owned().length;
    const paused = clock.now();
    await waitFor("five more minutes", () => clock.now() >= paused + 300_000, clock, 30_000);
    expect(owned().length).toBe(count);
    const row = await t.kubectl(["get", "cj", "lonely", "-n", NS, "--no-headers"]);
    expect(row.stdout).toMatch(/^lonely\s+\* \* \* \* \*\s+<none>\s+True\s+\d\s+\S+\s+\S+$/);
  });
});
