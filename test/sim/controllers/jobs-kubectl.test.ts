// batch/v1 Jobs and CronJobs through real kubectl, on a pinned clock moved by the test. Checked
// against kubernetes' own sources (v1.31):
// - pkg/controller/job/job_controller.go: pods up to parallelism until completions succeed;
//   backoffLimit ("Job has reached the specified backoff limit", reason BackoffLimitExceeded),
//   activeDeadlineSeconds (DeadlineExceeded, "Job was active longer than specified deadline"),
//   FailureTarget / SuccessCriteriaMet before Failed / Complete (CompletionsReached, "Reached
//   expected number of succeeded pods"); events SuccessfulCreate "Created pod: x", Completed
//   "Job completed". pod_failure_policy.go for the FailJob message.
// - pkg/registry/batch/job/strategy.go (generateSelector): batch.kubernetes.io/controller-uid and
//   job-name labels; pkg/apis/batch/v1/defaults.go (backoffLimit 6, completions/parallelism 1).
// - Indexed jobs: https://kubernetes.io/docs/concepts/workloads/controllers/job/#completion-mode
//   (JOB_COMPLETION_INDEX, the batch.kubernetes.io/job-completion-index annotation).
// - pkg/printers/internalversion/printers.go: NAME STATUS COMPLETIONS DURATION AGE for jobs,
//   NAME SCHEDULE TIMEZONE SUSPEND ACTIVE LAST SCHEDULE AGE for cronjobs.
// - pkg/controller/cronjob/cronjob_controllerv2.go: job name <cronjob>-<minutes since epoch>,
//   "Created job x", history limits; kubectl create job --from=cronjob/x.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { R } from "../../../src/sim/api/resources.js";
import { ManualClock } from "../../../src/sim/core/clock.js";
import type { CronJob, Job, Pod } from "../../../src/sim/core/objects.js";
import { ensureNamespace, startCluster, type TestCluster, waitFor } from "../helpers/exec.js";

const NS = "jobs";
let t: TestCluster;
const clock = new ManualClock(Date.parse("2026-03-01T00:00:30Z"));

beforeAll(async () => {
  t = await startCluster(1, clock);
  ensureNamespace(t.c, NS);
});
afterAll(async () => {
  await t?.stop();
});

const job = (name: string) => t.c.ctx.registry.tryGet(R("Job"), NS, name) as Job | undefined;
const cond = (o: Job | undefined, type: string) => (o?.status?.conditions ?? []).find((c) => c.type === type);
const podsOf = (name: string) =>
  t.c.ctx.registry.list(R("Pod"), NS, { labelSelector: `batch.kubernetes.io/job-name=${name}` }) as Pod[];

/** Run kubectl while the pinned clock moves (as cluster time would while it waits). */
async function kubectlWhileTime(args: string[], input?: string) {
  let done = false;
  const run = t.kubectl(args, input).finally(() => {
    done = true;
  });
  while (!done) {
    clock.advance(500);
    await new Promise((r) => setTimeout(r, 5));
  }
  return run;
}

function apply(yaml: string) {
  return t.kubectl(["apply", "-n", NS, "-f", "-"], yaml);
}

describe("Jobs", () => {
  it("runs a job to completion; kubectl wait --for=condition=complete returns", async () => {
    const c = await t.kubectl([
      "create",
      "job",
      "hello",
      "-n",
      NS,
      "--image=busybox:1.36",
      "--",
      "sh",
      "-c",
      "echo hello from the job",
    ]);
    expect(c.stdout).toBe("job.batch/hello created");
    const w = await kubectlWhileTime([
      "wait",
      "-n",
      NS,
      "--for=condition=complete",
      "job/hello",
      "--timeout=120s",
    ]);
    expect(w.stdout).toBe("job.batch/hello condition met");
    const j = job("hello")!;
    expect(j.spec).toMatchObject({
      completions: 1,
      parallelism: 1,
      backoffLimit: 6,
      completionMode: "NonIndexed",
    });
    expect(j.spec.selector!.matchLabels!["batch.kubernetes.io/controller-uid"]).toBe(j.metadata.uid);
    // SetDefaults_Job: the Job carries its pods' labels, the generated ones included
    expect(j.metadata.labels).toMatchObject({ "batch.kubernetes.io/job-name": "hello", "job-name": "hello" });
    expect(j.status).toMatchObject({ succeeded: 1, ready: 0, terminating: 0 });
    expect(cond(j, "SuccessCriteriaMet")).toMatchObject({ status: "True", reason: "CompletionsReached" });
    expect(cond(j, "Complete")).toMatchObject({
      status: "True",
      reason: "CompletionsReached",
      message: "Reached expected number of succeeded pods",
    });
    const row = await t.kubectl(["get", "jobs", "-n", NS]);
    expect(row.stdout).toMatch(
      /^NAME\s+STATUS\s+COMPLETIONS\s+DURATION\s+AGE\nhello\s+Complete\s+1\/1\s+\d+s\s+\S+$/,
    );
    const logs = await t.kubectl(["logs", "-n", NS, "job/hello"]);
    expect(logs.stdout).toBe("hello from the job");
    const ev = await t.kubectl([
      "get",
      "events",
      "-n",
      NS,
      "--field-selector",
      "involvedObject.kind=Job,involvedObject.name=hello",
      "-o",
      "jsonpath={range .items[*]}{.reason}:{.message}|{end}",
    ]);
    expect(ev.stdout).toMatch(/^SuccessfulCreate:Created pod: hello-[a-z0-9]{5}\|Completed:Job completed\|$/);
  });

  it("fails after backoffLimit with BackoffLimitExceeded", async () => {
    await apply(`
apiVersion: batch/v1
kind: Job
metadata: {name: doomed}
spec:
  backoffLimit: 1
  template:
    spec:
      restartPolicy: Never
      containers: [{name: c, image: "busybox:1.36", command: ["/bin/false"]}]
`);
    const w = await kubectlWhileTime([
      "wait",
      "-n",
      NS,
      "--for=condition=failed",
      "job/doomed",
      "--timeout=300s",
    ]);
    expect(w.stdout).toBe("job.batch/doomed condition met");
    const j = job("doomed")!;
    expect(j.status!.failed).toBe(2);
    expect(cond(j, "FailureTarget")).toMatchObject({ status: "True", reason: "BackoffLimitExceeded" });
    expect(cond(j, "Failed")).toMatchObject({
      status: "True",
      reason: "BackoffLimitExceeded",
      message: "Job has reached the specified backoff limit",
    });
    expect(podsOf("doomed").map((p) => p.status!.phase)).toEqual(["Failed", "Failed"]);
    const row = await t.kubectl(["get", "job", "doomed", "-n", NS, "--no-headers"]);
    expect(row.stdout).toMatch(/^doomed\s+Failed\s+0\/1\s+\S+\s+\S+$/);
    const ev = await t.kubectl(["describe", "job", "doomed", "-n", NS]);
    expect(ev.stdout).toMatch(
      /Warning\s+BackoffLimitExceeded\s+\S+\s+job-controller\s+Job has reached the specified backoff limit/,
    );
  });

  it("runs an Indexed job: each pod sees JOB_COMPLETION_INDEX", async () => {
    await apply(`
apiVersion: batch/v1
kind: Job
metadata: {name: idx}
spec:
  completions: 3
  parallelism: 3
  completionMode: Indexed
  template:
    spec:
      restartPolicy: Never
      containers: [{name: c, image: "busybox:1.36", command: ["sh", "-c", "echo index=$JOB_COMPLETION_INDEX"]}]
`);
    await kubectlWhileTime(["wait", "-n", NS, "--for=condition=complete", "job/idx", "--timeout=120s"]);
    expect(job("idx")!.status).toMatchObject({ succeeded: 3, completedIndexes: "0-2" });
    const pods = podsOf("idx");
    const byIndex = new Map(
      pods.map((p) => [p.metadata.annotations!["batch.kubernetes.io/job-completion-index"], p]),
    );
    expect([...byIndex.keys()].sort()).toEqual(["0", "1", "2"]);
    for (const [i, p] of byIndex) {
      expect(p.metadata.name).toMatch(new RegExp(`^idx-${i}-[a-z0-9]{5}$`));
      expect(p.spec.hostname).toBe(`idx-${i}`);
      const out = await t.kubectl(["logs", "-n", NS, p.metadata.name!]);
      expect(out.stdout).toBe(`index=${i}`);
    }
  });

  it("fails a job past activeDeadlineSeconds, and on a podFailurePolicy FailJob rule", async () => {
    await apply(`
apiVersion: batch/v1
kind: Job
metadata: {name: slow}
spec:
  activeDeadlineSeconds: 5
  template:
    spec:
      restartPolicy: Never
      containers: [{name: c, image: "busybox:1.36", command: ["sleep", "600"]}]
---
apiVersion: batch/v1
kind: Job
metadata: {name: policy}
spec:
  podFailurePolicy:
    rules:
      - action: FailJob
        onExitCodes: {containerName: main, operator: In, values: [42]}
  template:
    spec:
      restartPolicy: Never
      containers: [{name: main, image: "busybox:1.36", command: ["sh", "-c", "exit 42"]}]
`);
    await kubectlWhileTime([
      "wait",
      "-n",
      NS,
      "--for=condition=failed",
      "job/slow",
      "job/policy",
      "--timeout=120s",
    ]);
    expect(cond(job("slow"), "Failed")).toMatchObject({
      reason: "DeadlineExceeded",
      message: "Job was active longer than specified deadline",
    });
    const p = podsOf("policy")[0];
    expect(cond(job("policy"), "Failed")).toMatchObject({
      reason: "PodFailurePolicy",
      message: `Container main for pod ${NS}/${p.metadata.name} failed with exit code 42 matching FailJob rule at index 0`,
    });
    expect(job("policy")!.status!.failed).toBe(1);
  });

  it("refuses a Job whose pods would restart Always, as the API server does", async () => {
    const r = await t.kubectl(
      ["apply", "-n", NS, "-f", "-"],
      `
apiVersion: batch/v1
kind: Job
metadata: {name: bad}
spec:
  template:
    spec:
      containers: [{name: c, image: "busybox:1.36"}]
`,
    );
    expect(r.exitCode).not.toBe(0);
    expect(r.stderr).toContain(
      'spec.template.spec.restartPolicy: Required value: valid values: "OnFailure", "Never"',
    );
  });

  it("deletes a finished job after ttlSecondsAfterFinished", async () => {
    await apply(`
apiVersion: batch/v1
kind: Job
metadata: {name: short}
spec:
  ttlSecondsAfterFinished: 30
  template:
    spec:
      restartPolicy: Never
      containers: [{name: c, image: "busybox:1.36", command: ["true"]}]
`);
    await waitFor("complete", () => cond(job("short"), "Complete"), clock);
    expect(job("short")).toBeDefined();
    await waitFor("deleted", () => !job("short"), clock);
  });
});

describe("CronJobs", () => {
  it("creates a job every scheduled minute, keeps history, and serves create job --from", async () => {
    await apply(`
apiVersion: batch/v1
kind: CronJob
metadata: {name: tick}
spec:
  schedule: "*/1 * * * *"
  successfulJobsHistoryLimit: 2
  jobTemplate:
    spec:
      template:
        spec:
          restartPolicy: OnFailure
          containers: [{name: c, image: "busybox:1.36", command: ["date"]}]
`);
    const cj = t.c.ctx.registry.get(R("CronJob"), NS, "tick") as CronJob;
    expect(cj.spec).toMatchObject({ concurrencyPolicy: "Allow", suspend: false, failedJobsHistoryLimit: 1 });
    const owned = () =>
      (t.c.ctx.registry.list(R("Job"), NS) as Job[]).filter(
        (j) => j.metadata.ownerReferences?.[0]?.uid === cj.metadata.uid,
      );
    // three and a half minutes of cluster time: three scheduled runs, the oldest deleted past the limit of 2
    const start = clock.now();
    await waitFor(
      "history trimmed",
      () => clock.now() >= start + 210_000 && owned().filter((j) => cond(j, "Complete")).length === 2,
      clock,
      30_000,
    );
    for (const j of owned()) {
      expect(j.metadata.name).toMatch(/^tick-\d{8}$/);
      expect(Number(j.metadata.name!.slice(5)) * 60000).toBeLessThanOrEqual(clock.now());
    }
    const row = await t.kubectl(["get", "cronjob", "tick", "-n", NS]);
    expect(row.stdout).toMatch(
      /^NAME\s+SCHEDULE\s+TIMEZONE\s+SUSPEND\s+ACTIVE\s+LAST SCHEDULE\s+AGE\ntick\s+\*\/1 \* \* \* \*\s+<none>\s+False\s+\d+\s+\S+\s+\S+$/,
    );
    const ev = await t.kubectl([
      "get",
      "events",
      "-n",
      NS,
      "--field-selector",
      "involvedObject.kind=CronJob",
      "-o",
      "jsonpath={range .items[*]}{.reason}|{end}",
    ]);
    expect(ev.stdout).toContain("SuccessfulCreate|");
    expect(ev.stdout).toContain("SawCompletedJob|");
    expect(ev.stdout).toContain("SuccessfulDelete|");

    const manual = await t.kubectl(["create", "job", "by-hand", "--from=cronjob/tick", "-n", NS]);
    expect(manual.stdout).toBe("job.batch/by-hand created");
    const w = await kubectlWhileTime([
      "wait",
      "-n",
      NS,
      "--for=condition=complete",
      "job/by-hand",
      "--timeout=120s",
    ]);
    expect(w.stdout).toBe("job.batch/by-hand condition met");
    expect(job("by-hand")!.metadata.annotations!["cronjob.kubernetes.io/instantiate"]).toBe("manual");
  });

  it("lists jobs and cronjobs in discovery under batch/v1", async () => {
    const r = await t.kubectl(["api-resources", "--api-group=batch", "--no-headers"]);
    expect(r.stdout).toMatch(/^cronjobs\s+cj\s+batch\/v1\s+true\s+CronJob\njobs\s+batch\/v1\s+true\s+Job$/);
  });
});
