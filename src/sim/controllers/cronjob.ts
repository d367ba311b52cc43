// CronJobs, as kube's cronjob controller runs them (pkg/controller/cronjob/cronjob_controllerv2.go
// and utils.go), on the cluster clock: at each scheduled minute create a Job named
// <cronjob>-<scheduled minutes since the epoch> from jobTemplate (only the most recent missed
// time counts; startingDeadlineSeconds skips a start that is too late), honour
// concurrencyPolicy (Allow, Forbid, Replace) and suspend, keep status.active and the last
// schedule and success times, and delete finished Jobs beyond the history limits.
import { nextRun, parseCron } from "../api/cron.js";
import { R } from "../api/resources.js";
import type { SimContext } from "../context/context.js";
import { iso, parseStamp } from "../core/clock.js";
import { controllerOf, keyOf, ownerRef, splitKey } from "../core/meta.js";
import type { Condition, CronJob, CronJobStatus, Job, ObjectReference } from "../core/objects.js";
import { jobFinished } from "./job.js";
import { Requeuer, writeStatus } from "./workload-status.js";

const NAME = "cronjob";
const SOURCE = { component: "cronjob-controller" };
const SCHEDULED_AT = "batch.kubernetes.io/cronjob-scheduled-timestamp";
/** Past this many missed times the controller gives up counting (and says so). */
const MAX_MISSED = 100;

const conditionOf = (job: Job) =>
  (job.status?.conditions ?? []).find(
    (c: Condition) => (c.type === "Complete" || c.type === "Failed") && c.status === "True",
  )?.type as "Complete" | "Failed" | undefined;

export function installCronJobController(ctx: SimContext): void {
  const requeue = new Requeuer(ctx, NAME);
  ctx.runtime.register(NAME, (key) => syncCronJob(ctx, key, requeue));
  ctx.store.subscribe((e) => {
    if (e.rt.kind === "CronJob" && e.type !== "DELETED") ctx.runtime.enqueue(NAME, keyOf(e.object));
    if (e.rt.kind !== "Job") return;
    const ref = controllerOf(e.object);
    if (ref?.kind === "CronJob") ctx.runtime.enqueue(NAME, `${e.object.metadata.namespace}/${ref.name}`);
  });
  // the clock re-based: each schedule's next minute is another instant of the engine
  ctx.clock.onShift?.(() => {
    for (const cj of ctx.store.list(R("CronJob"))) ctx.runtime.enqueue(NAME, keyOf(cj));
  });
}

function syncCronJob(ctx: SimContext, key: string, requeue: Requeuer): void {
  const { registry, store, clock, events } = ctx;
  const [ns, name] = splitKey(key);
  const cj = registry.tryGet(R("CronJob"), ns, name) as CronJob | undefined;
  if (!cj || cj.metadata.deletionTimestamp) return;
  const jobs = (store.list(R("Job"), ns) as Job[]).filter((j) => controllerOf(j)?.uid === cj.metadata.uid);
  const st: CronJobStatus = structuredClone(cj.status ?? {});
  const wasActive = new Set((st.active ?? []).map((r: ObjectReference) => r.uid));

  // finished Jobs leave status.active; the last success is remembered
  for (const j of jobs) {
    const done = conditionOf(j);
    if (!done) continue;
    if (wasActive.has(j.metadata.uid))
      events.record(
        cj,
        "Normal",
        "SawCompletedJob",
        `Saw completed job: ${j.metadata.name}, condition: ${done}`,
        SOURCE,
      );
    if (done === "Complete" && j.status?.completionTime) {
      const t = parseStamp(clock, j.status.completionTime);
      if (!st.lastSuccessfulTime || t > parseStamp(clock, st.lastSuccessfulTime))
        st.lastSuccessfulTime = j.status.completionTime;
    }
  }
  let active = jobs.filter((j) => !jobFinished(j) && !j.metadata.deletionTimestamp);
  cleanupHistory(ctx, cj, jobs);

  const parsed = parseCron(String(cj.spec.schedule ?? ""));
  if (!parsed.schedule) {
    events.record(
      cj,
      "Warning",
      "UnparseableSchedule",
      `unparseable schedule: "${cj.spec.schedule}" : ${parsed.error}`,
      SOURCE,
    );
    save(ctx, cj, st, active);
    return;
  }
  if (cj.spec.suspend) {
    save(ctx, cj, st, active);
    return;
  }

  // schedules are read on the clock as shown (a re-based clock moves them: installed below)
  const now = clock.toWall(clock.now());
  let from = Date.parse(st.lastScheduleTime ?? cj.metadata.creationTimestamp ?? "");
  if (Number.isNaN(from)) from = now;
  let scheduled: number | undefined;
  let next = nextRun(parsed.schedule, from);
  for (let missed = 0; next !== undefined && next <= now; missed++) {
    scheduled = next;
    next = nextRun(parsed.schedule, next);
    if (missed === MAX_MISSED)
      events.record(
        cj,
        "Warning",
        "TooManyMissedTimes",
        "too many missed start times. Set or decrease .spec.startingDeadlineSeconds or check clock skew",
        SOURCE,
      );
  }
  if (next !== undefined) requeue.after(key, next - now);
  if (scheduled === undefined) {
    save(ctx, cj, st, active);
    return;
  }

  const deadline = cj.spec.startingDeadlineSeconds;
  if (typeof deadline === "number" && now - scheduled > deadline * 1000) {
    events.record(
      cj,
      "Warning",
      "MissSchedule",
      `Missed scheduled time to start a job: ${new Date(scheduled).toUTCString().replace("GMT", "+0000")}`,
      SOURCE,
    );
    save(ctx, cj, st, active);
    return;
  }
  if (cj.spec.concurrencyPolicy === "Forbid" && active.length) {
    events.record(
      cj,
      "Normal",
      "JobAlreadyActive",
      "Not starting job because prior execution is running and concurrency policy is Forbid",
      SOURCE,
    );
    save(ctx, cj, st, active);
    return;
  }
  if (cj.spec.concurrencyPolicy === "Replace")
    for (const j of active) {
      registry.delete(R("Job"), ns, j.metadata.name!, { propagationPolicy: "Background" });
      events.record(cj, "Normal", "SuccessfulDelete", `Deleted job ${j.metadata.name}`, SOURCE);
      active = [];
    }
  const jobName = `${cj.metadata.name}-${Math.floor(scheduled / 60000)}`;
  if (!registry.tryGet(R("Job"), ns, jobName)) {
    const tpl = cj.spec.jobTemplate ?? {};
    const job = registry.create(R("Job"), ns, {
      apiVersion: "batch/v1",
      kind: "Job",
      metadata: {
        name: jobName,
        namespace: ns,
        labels: { ...(tpl.metadata?.labels ?? {}) },
        annotations: {
          ...(tpl.metadata?.annotations ?? {}),
          [SCHEDULED_AT]: iso(scheduled),
        },
        ownerReferences: [ownerRef(cj)],
      },
      spec: structuredClone(tpl.spec ?? {}),
    }) as Job;
    events.record(cj, "Normal", "SuccessfulCreate", `Created job ${jobName}`, SOURCE);
    active.push(job);
  }
  st.lastScheduleTime = iso(scheduled);
  save(ctx, cj, st, active);
}

/** Delete the oldest finished Jobs past successfulJobsHistoryLimit / failedJobsHistoryLimit. */
function cleanupHistory(ctx: SimContext, cj: CronJob, jobs: Job[]): void {
  const limits = {
    Complete: cj.spec.successfulJobsHistoryLimit ?? 3,
    Failed: cj.spec.failedJobsHistoryLimit ?? 1,
  };
  for (const kind of ["Complete", "Failed"] as const) {
    const done = jobs
      .filter((j) => conditionOf(j) === kind && !j.metadata.deletionTimestamp)
      .sort((a, b) =>
        String(a.status?.startTime ?? a.metadata.creationTimestamp).localeCompare(
          String(b.status?.startTime ?? b.metadata.creationTimestamp),
        ),
      );
    for (const j of done.slice(0, Math.max(0, done.length - limits[kind]))) {
      ctx.registry.delete(R("Job"), j.metadata.namespace, j.metadata.name!, {
        propagationPolicy: "Background",
      });
      ctx.events.record(cj, "Normal", "SuccessfulDelete", `Deleted job ${j.metadata.name}`, SOURCE);
    }
  }
}

function save(ctx: SimContext, cj: CronJob, st: CronJobStatus, active: Job[]): void {
  const out: CronJobStatus = {};
  if (active.length)
    out.active = active.map((j) => ({
      kind: "Job",
      namespace: j.metadata.namespace,
      name: j.metadata.name,
      uid: j.metadata.uid,
      apiVersion: "batch/v1",
      resourceVersion: j.metadata.resourceVersion,
    }));
  if (st.lastScheduleTime) out.lastScheduleTime = st.lastScheduleTime;
  if (st.lastSuccessfulTime) out.lastSuccessfulTime = st.lastSuccessfulTime;
  writeStatus(
    ctx,
    R("CronJob"),
    ctx.registry.get(R("CronJob"), cj.metadata.namespace, cj.metadata.name!),
    out,
  );
}
