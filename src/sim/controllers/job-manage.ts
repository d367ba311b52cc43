// The parts of a Job's sync that create its pods (with the failure back-off) and write its
// status counters, as kube's job controller does (pkg/controller/job/job_controller.go:
// manageJob, and the status it updates with zero counters omitted but ready/terminating kept).

import { R } from "../api/resources.js";
import { ApiError } from "../api/status.js";
import type { SimContext } from "../context/context.js";
import { keyOf } from "../core/meta.js";
import type { Job, JobStatus, Pod } from "../core/objects.js";
import { indexOf, jobPod } from "./job-pods.js";
import { type Condition, type Requeuer, writeStatus } from "./workload-status.js";
import { freshName, isActive, isTerminating, podReady } from "./workload-util.js";

const BACKOFF_BASE = 10_000;
const BACKOFF_MAX = 360_000;
/** kube creates at most this many pods per sync. */
const BURST = 500;
const SOURCE = { component: "job-controller" };

export /** What the controller remembers per Job (kube keeps it in pod finalizers and uncountedTerminatedPods). */
interface Tracking {
  counted: Set<string>;
  /** Active pods deleted before they finished: failures (podReplacementPolicy TerminatingOrFailed). */
  lost: Set<string>;
  lastFailure?: number;
}

/** Create the pods the Job still needs, unless the failure back-off still runs. */
/** A Job's status as the controller keeps it: batch/v1 JobStatus with the controllers' Condition. */
export type JobState = Omit<JobStatus, "conditions"> & { conditions?: Condition[] };

export function managePods(
  ctx: SimContext,
  job: Job,
  active: Pod[],
  completed: Set<number>,
  st: JobState,
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
    for (let i = 0; i < (spec.completions ?? 0) && wanted.length < parallelism - active.length; i++)
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
    let pod: Pod;
    try {
      pod = ctx.registry.create(
        R("Pod"),
        ns,
        jobPod(job, freshName(ctx, R("Pod"), ns, prefix), index),
      ) as Pod;
    } catch (e) {
      // refused by admission: controller_utils.go CreatePods records it and the sync is retried
      if (e instanceof ApiError && e.code !== 409)
        ctx.events.record(job, "Warning", "FailedCreate", `Error creating: ${e.message}`, SOURCE);
      throw e;
    }
    active.push(pod);
    ctx.events.record(job, "Normal", "SuccessfulCreate", `Created pod: ${pod.metadata.name}`, SOURCE);
  }
}

/** The status counters, as the controller writes them (zero counts omitted, ready/terminating kept). */
export function writeJobStatus(ctx: SimContext, job: Job, st: JobState, pods: Pod[]): void {
  const live = pods.filter((p) => ctx.registry.tryGet(R("Pod"), p.metadata.namespace, p.metadata.name!));
  const fresh = live.map((p) => ctx.registry.get(R("Pod"), p.metadata.namespace, p.metadata.name!) as Pod);
  const active = fresh.filter(isActive);
  const out: JobState = {};
  if (st.conditions?.length) out.conditions = st.conditions;
  for (const k of ["startTime", "completionTime"] as const) if (st[k]) out[k] = st[k];
  const counts: Record<"active" | "succeeded" | "failed", number> = {
    active: active.length,
    succeeded: st.succeeded ?? 0,
    failed: st.failed ?? 0,
  };
  for (const k of ["active", "succeeded", "failed"] as const) if (counts[k] > 0) out[k] = counts[k];
  out.terminating = fresh.filter(
    (p) => isTerminating(p) && p.status?.phase !== "Succeeded" && p.status?.phase !== "Failed",
  ).length;
  if (st.completedIndexes) out.completedIndexes = st.completedIndexes;
  out.uncountedTerminatedPods = {};
  out.ready = active.filter(podReady).length;
  writeStatus(ctx, R("Job"), ctx.registry.get(R("Job"), job.metadata.namespace, job.metadata.name!), out);
}
