// Jobs, as kube's job controller runs them (pkg/controller/job/job_controller.go, v1.31): create
// pods up to parallelism until `completions` succeed (NonIndexed) or every index in
// [0, completions) has a succeeded pod (Indexed); count each finished pod once; fail the Job when
// failures pass backoffLimit (restarts, under restartPolicy OnFailure), when it outlives
// activeDeadlineSeconds, or on a podFailurePolicy FailJob rule; finish early on a successPolicy.
// As 1.31 does, the interim condition (FailureTarget, SuccessCriteriaMet) comes first and the
// terminal one (Failed, Complete) once no pod of the Job still runs or terminates. Recreating
// failed pods waits the controller's back-off (10 s doubling to 6 min).
import { parseStamp } from "../clock.js";
import type { KObject } from "../types.js";
import { controllerOf, keyOf, R, type SimContext, splitKey } from "./context.js";
import {
  formatIndexes,
  indexOf,
  jobPod,
  matchFailurePolicy,
  matchSuccessPolicy,
  parseIndexes,
  restartsOf,
} from "./job-pods.js";
import { type Condition, Requeuer, setCondition, writeStatus } from "./workload-status.js";
import { freshName, isActive, isTerminating, type J, namespaceActive, podReady } from "./workload-util.js";

export const JOB_CONTROLLER = "job";
const SOURCE = { component: "job-controller" };
const BACKOFF_BASE = 10_000;
const BACKOFF_MAX = 360_000;
const BURST = 500;

/** What the controller remembers per Job (kube keeps it in pod finalizers and uncountedTerminatedPods). */
interface Tracking {
  counted: Set<string>;
  /** Active pods deleted before they finished: failures (podReplacementPolicy TerminatingOrFailed). */
  lost: Set<string>;
  lastFailure?: number;
}

const isTrue = (job: KObject, type: string) =>
  (job.status?.conditions ?? []).some((c: J) => c.type === type && c.status === "True");
export const jobFinished = (job: KObject) => isTrue(job, "Complete") || isTrue(job, "Failed");

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
  const job = registry.tryGet(R("Job"), ns, name);
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
  const pods = store.list(R("Pod"), ns).filter((p) => controllerOf(p)?.uid === uid);
  const st: J = structuredClone(job.status ?? {});
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
    write(ctx, job, { ...st, conditions: conds }, pods, t);
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
      else if (i !== undefined && i < spec.completions && !completed.has(i)) {
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
              ? completed.size >= spec.completions
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
  write(ctx, job, { ...st, conditions: conds }, pods, t);
}

/** Create the pods the Job still needs, unless the failure back-off still runs. */
function managePods(
  ctx: SimContext,
  job: KObject,
  active: KObject[],
  completed: Set<number>,
  st: J,
  t: Tracking,
  now: number,
  requeue: Requeuer,
): void {
  const spec = job.spec;
  const ns = job.metadata.namespace;
  const parallelism = spec.parallelism ?? 1;
  const failed = st.failed ?? 0;
  if (failed > 0 && t.lastFailure !== undefined) {
    const wait = Math.min(BACKOFF_MAX, BACKOFF_BASE * 2 ** (failed - 1)) - (now - t.lastFailure);
    if (wait > 0) {
      requeue.after(keyOf(job), wait);
      return;
    }
  }
  const wanted: (number | undefined)[] = [];
  if (spec.completionMode === "Indexed") {
    const busy = new Set(active.map(indexOf));
    for (let i = 0; i < spec.completions && wanted.length < parallelism - active.length; i++)
      if (!completed.has(i) && !busy.has(i)) wanted.push(i);
  } else {
    const succeeded = st.succeeded ?? 0;
    const want =
      spec.completions === undefined
        ? succeeded > 0
          ? 0
          : parallelism
        : Math.min(parallelism, spec.completions - succeeded);
    for (let i = active.length; i < want; i++) wanted.push(undefined);
  }
  for (const index of wanted.slice(0, BURST)) {
    const prefix = `${job.metadata.name}-${index === undefined ? "" : `${index}-`}`;
    const pod = ctx.registry.create(R("Pod"), ns, jobPod(job, freshName(ctx, R("Pod"), ns, prefix), index));
    active.push(pod);
    ctx.events.record(job, "Normal", "SuccessfulCreate", `Created pod: ${pod.metadata.name}`, SOURCE);
  }
}

/** The status counters, as the controller writes them (zero counts omitted, ready/terminating kept). */
function write(ctx: SimContext, job: KObject, st: J, pods: KObject[], _t: Tracking): void {
  const live = pods.filter((p) => ctx.registry.tryGet(R("Pod"), p.metadata.namespace, p.metadata.name!));
  const fresh = live.map((p) => ctx.registry.get(R("Pod"), p.metadata.namespace, p.metadata.name!));
  const active = fresh.filter(isActive);
  const out: J = {};
  if (st.conditions?.length) out.conditions = st.conditions;
  for (const k of ["startTime", "completionTime"]) if (st[k]) out[k] = st[k];
  const counts: Record<string, number> = {
    active: active.length,
    succeeded: st.succeeded ?? 0,
    failed: st.failed ?? 0,
  };
  for (const [k, v] of Object.entries(counts)) if (v > 0) out[k] = v;
  out.terminating = fresh.filter(
    (p) => isTerminating(p) && p.status?.phase !== "Succeeded" && p.status?.phase !== "Failed",
  ).length;
  if (st.completedIndexes) out.completedIndexes = st.completedIndexes;
  out.uncountedTerminatedPods = {};
  out.ready = active.filter(podReady).length;
  writeStatus(ctx, R("Job"), ctx.registry.get(R("Job"), job.metadata.namespace, job.metadata.name!), out);
}
