// Jobs, as kube's job controller runs them (pkg/controller/job/job_controller.go, v1.31): create
// pods up to parallelism until `completions` succeed (NonIndexed) or every index in
// [0, completions) has a succeeded pod (Indexed); count each finished pod once; fail the Job when
// failures pass backoffLimit (restarts, under restartPolicy OnFailure), when it outlives
// activeDeadlineSeconds, or on a podFailurePolicy FailJob rule; finish early on a successPolicy.
// As 1.31 does, the interim condition (FailureTarget, SuccessCriteriaMet) comes first and the
// terminal one (Failed, Complete) once no pod of the Job still runs or terminates. Recreating
// failed pods waits the controller's back-off (10 s doubling to 6 min).

import { R } from "../api/resources.js";
import type { SimContext } from "../context/context.js";
import { parseStamp } from "../core/clock.js";
import { controllerOf, keyOf, splitKey } from "../core/meta.js";
import type { Job, Pod } from "../core/objects.js";
import type { KObject } from "../core/types.js";
import type { JobState } from "./job-manage.js";
import { managePods, type Tracking, writeJobStatus } from "./job-manage.js";
import {
  formatIndexes,
  indexOf,
  matchFailurePolicy,
  matchSuccessPolicy,
  parseIndexes,
  restartsOf,
} from "./job-pods.js";
import { type Condition, Requeuer, setCondition } from "./workload-status.js";
import { isActive, namespaceActive } from "./workload-util.js";

export const JOB_CONTROLLER = "job";
const SOURCE = { component: "job-controller" };

const isTrue = (job: Job, type: string) =>
  (job.status?.conditions ?? []).some((c) => c.type === type && c.status === "True");
export const jobFinished = (job: Job) => isTrue(job, "Complete") || isTrue(job, "Failed");

export function installJobController(ctx: SimContext): void {
  const { store, runtime } = ctx;
  const requeue = new Requeuer(ctx, JOB_CONTROLLER);
  const tracking = new Map<string, Tracking>();
  runtime.register(JOB_CONTROLLER, (key) => syncJob(ctx, key, tracking, requeue));
  store.subscribe((e) => {
    if (e.rt.kind === "Job") {
      if (e.type === "DELETED") tracking.delete(e.object.metadata.uid!);
      else runtime.enqueue(JOB_CONTROLLER, keyOf(e.object));
      return;
    }
    if (e.rt.kind !== "Pod") return;
    const ref = controllerOf(e.object);
    if (ref?.kind !== "Job") return;
    if (
      e.type === "DELETED" &&
      isActive({ ...e.object, metadata: { ...e.object.metadata, deletionTimestamp: undefined } })
    ) {
      const t = tracking.get(ref.uid);
      if (t && !t.counted.has(e.object.metadata.uid!)) t.lost.add(e.object.metadata.uid!);
    }
    runtime.enqueue(JOB_CONTROLLER, `${e.object.metadata.namespace}/${ref.name}`);
  });
}

function syncJob(ctx: SimContext, key: string, tracking: Map<string, Tracking>, requeue: Requeuer): void {
  const { registry, store, clock, events } = ctx;
  const [ns, name] = splitKey(key);
  const job = registry.tryGet(R("Job"), ns, name) as Job | undefined;
  if (!job || jobFinished(job) || job.metadata.deletionTimestamp) return;
  const uid = job.metadata.uid!;
  let t = tracking.get(uid);
  if (!t) {
    t = { counted: new Set(), lost: new Set() };
    tracking.set(uid, t);
  }
  const now = clock.now();
  const stamp = registry.now();
  const spec = job.spec;
  const indexed = spec.completionMode === "Indexed";
  const pods = (store.list(R("Pod"), ns) as Pod[]).filter((p) => controllerOf(p)?.uid === uid);
  // the conditions are the ones this controller wrote, with its Condition's statuses
  const st = structuredClone(job.status ?? {}) as JobState;
  let conds: Condition[] = st.conditions ?? [];
  const cond = (type: string, status: "True" | "False", reason: string, message: string) => {
    conds = setCondition(conds, {
      type,
      status,
      reason,
      message,
      lastProbeTime: stamp,
      lastTransitionTime: stamp,
    } as Condition);
  };
  const deletePods = (list: KObject[]) => {
    for (const p of list) {
      t.counted.add(p.metadata.uid!); // what the controller removes is no failure
      registry.delete(R("Pod"), ns, p.metadata.name!);
      events.record(job, "Normal", "SuccessfulDelete", `Deleted pod: ${p.metadata.name}`, SOURCE);
    }
  };

  // suspension stops every pod; resuming starts the clock again
  if (spec.suspend) {
    deletePods(pods.filter(isActive));
    if (!isTrue(job, "Suspended")) {
      cond("Suspended", "True", "JobSuspended", "Job suspended");
      events.record(job, "Normal", "Suspended", "Job suspended", SOURCE);
    }
    delete st.startTime;
    writeJobStatus(ctx, job, { ...st, conditions: conds }, pods);
    return;
  }
  if (isTrue(job, "Suspended")) {
    cond("Suspended", "False", "JobResumed", "Job resumed");
    events.record(job, "Normal", "Resumed", "Job resumed", SOURCE);
    st.startTime = stamp;
  }
  st.startTime ??= stamp;

  // each finished pod counts once
  const completed = parseIndexes(st.completedIndexes, spec.completions);
  let failJob: { reason: string; message: string } | undefined;
  for (const p of pods) {
    const pid = p.metadata.uid!;
    const phase = p.status?.phase;
    if (t.counted.has(pid) || (phase !== "Succeeded" && phase !== "Failed")) continue;
    t.counted.add(pid);
    if (phase === "Succeeded") {
      const i = indexOf(p);
      if (!indexed) st.succeeded = (st.succeeded ?? 0) + 1;
      else if (i !== undefined && i < (spec.completions ?? 0) && !completed.has(i)) {
        completed.add(i);
        st.succeeded = (st.succeeded ?? 0) + 1;
      }
      continue;
    }
    const match = matchFailurePolicy(job, p);
    if (match?.action === "Ignore") continue;
    if (match?.action === "FailJob") failJob ??= { reason: "PodFailurePolicy", message: match.message };
    st.failed = (st.failed ?? 0) + 1;
    t.lastFailure = now;
  }
  for (const pid of t.lost) {
    if (t.counted.has(pid)) continue;
    t.counted.add(pid);
    st.failed = (st.failed ?? 0) + 1;
    t.lastFailure = now;
  }
  t.lost.clear();
  if (indexed) st.completedIndexes = formatIndexes(completed);

  const active = pods.filter(isActive);
  const running = pods.filter((p) => !(p.status?.phase === "Succeeded" || p.status?.phase === "Failed"));
  const restarts =
    spec.template?.spec?.restartPolicy === "OnFailure" ? active.reduce((n, p) => n + restartsOf(p), 0) : 0;
  const limit = spec.backoffLimit ?? 6;
  const startedAt = parseStamp(clock, st.startTime);
  const deadline = spec.activeDeadlineSeconds;

  // why the Job fails, or whether it met its success criteria
  const failure =
    failJob ??
    (isTrue(job, "FailureTarget")
      ? undefined
      : (st.failed ?? 0) > limit || (restarts > 0 && restarts >= Math.max(1, limit))
        ? { reason: "BackoffLimitExceeded", message: "Job has reached the specified backoff limit" }
        : deadline !== undefined && now >= startedAt + deadline * 1000
          ? { reason: "DeadlineExceeded", message: "Job was active longer than specified deadline" }
          : undefined);
  const policyRule = indexed ? matchSuccessPolicy(job, completed) : undefined;
  const succeeded = st.succeeded ?? 0;
  const complete =
    policyRule !== undefined
      ? { reason: "SuccessPolicy", message: `Matched rules at index ${policyRule}` }
      : (
            indexed
              ? spec.completions !== undefined && completed.size >= spec.completions
              : spec.completions !== undefined
                ? succeeded >= spec.completions
                : succeeded > 0 && active.length === 0
          )
        ? { reason: "CompletionsReached", message: "Reached expected number of succeeded pods" }
        : undefined;

  if (failure && !isTrue(job, "FailureTarget")) {
    cond("FailureTarget", "True", failure.reason, failure.message);
    events.record(job, "Warning", failure.reason, failure.message, SOURCE);
    deletePods(active);
  } else if (!failure && complete && !isTrue(job, "SuccessCriteriaMet") && !isTrue(job, "FailureTarget")) {
    cond("SuccessCriteriaMet", "True", complete.reason, complete.message);
    deletePods(active);
  }
  const target = conds.find(
    (c) => (c.type === "FailureTarget" || c.type === "SuccessCriteriaMet") && c.status === "True",
  );
  if (target) {
    // the terminal condition waits until no pod of the Job runs or terminates any more
    if (!running.length) {
      if (target.type === "FailureTarget") cond("Failed", "True", target.reason, target.message);
      else {
        cond("Complete", "True", target.reason, target.message);
        st.completionTime = stamp;
        events.record(job, "Normal", "Completed", "Job completed", SOURCE);
      }
    }
  } else if (namespaceActive(ctx, ns)) {
    managePods(ctx, job, active, completed, st, t, now, requeue);
  }
  if (deadline !== undefined && !target) requeue.after(key, Math.max(0, startedAt + deadline * 1000 - now));
  writeJobStatus(ctx, job, { ...st, conditions: conds }, pods);
}
