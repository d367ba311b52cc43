// batch/v1 as the API server stores it: defaults (pkg/apis/batch/v1/defaults.go), the generated
// selector and pod labels (pkg/registry/batch/job/strategy.go, generateSelector) and the
// validation a client meets first (pkg/apis/batch/validation: a Job's pods restart Never or
// OnFailure; an Indexed Job needs completions; a CronJob needs a parseable schedule).

import type { CronJob, Job, JobSpec } from "../core/objects.js";
import type { KObject } from "../core/types.js";
import { parseCron } from "./cron.js";
import { defaultPodSpec } from "./defaults-pod.js";
import type { StatusCause } from "./status.js";

export const CONTROLLER_UID = "batch.kubernetes.io/controller-uid";
export const JOB_NAME = "batch.kubernetes.io/job-name";
export const COMPLETION_INDEX = "batch.kubernetes.io/job-completion-index";

export function defaultJobSpec(spec: JobSpec | undefined): void {
  if (!spec) return;
  if (spec.completions === undefined && spec.parallelism === undefined) {
    spec.completions = 1;
    spec.parallelism = 1;
  }
  spec.parallelism ??= 1;
  spec.backoffLimit ??= spec.backoffLimitPerIndex !== undefined ? 2147483647 : 6;
  spec.completionMode ??= "NonIndexed";
  spec.suspend ??= false;
  for (const r of spec.podFailurePolicy?.rules ?? [])
    for (const c of r.onPodConditions ?? []) c.status ??= "True";
  spec.podReplacementPolicy ??= spec.podFailurePolicy ? "Failed" : "TerminatingOrFailed";
  defaultPodSpec(spec.template?.spec);
}

export function defaultCronJob(obj: KObject): void {
  obj.spec ??= {};
  const o = obj as CronJob;
  o.spec.concurrencyPolicy ??= "Allow";
  o.spec.suspend ??= false;
  o.spec.successfulJobsHistoryLimit ??= 3;
  o.spec.failedJobsHistoryLimit ??= 1;
  defaultPodSpec(o.spec.jobTemplate?.spec?.template?.spec);
}

/**
 * The selector and pod labels the API server generates for a Job without manualSelector: its
 * uid and name, under the batch.kubernetes.io/ keys and the legacy ones. Needs the uid, so it
 * runs once the object has one.
 */
export function generateJobSelector(obj: KObject): void {
  const job = obj as Job;
  const spec = job.spec as JobSpec | undefined;
  if (!spec || spec.manualSelector === true) return;
  const uid = job.metadata.uid!;
  const name = job.metadata.name!;
  const labels = { [CONTROLLER_UID]: uid, [JOB_NAME]: name, "controller-uid": uid, "job-name": name };
  spec.template ??= {};
  spec.template.metadata ??= {};
  spec.template.metadata.labels = { ...(spec.template.metadata.labels ?? {}), ...labels };
  spec.selector ??= { matchLabels: { [CONTROLLER_UID]: uid } };
  // SetDefaults_Job: a Job without labels of its own carries its pods' (as read back, so the
  // generated ones too: `kubectl describe job` lists them)
  if (!Object.keys(job.metadata.labels ?? {}).length)
    job.metadata.labels = { ...spec.template.metadata.labels };
}

function jobSpecCauses(spec: JobSpec | undefined, field: string): StatusCause[] {
  const causes: StatusCause[] = [];
  const fields: Record<string, unknown> | undefined = spec; // the numeric fields, by name
  const policy = spec?.template?.spec?.restartPolicy;
  if (policy !== "OnFailure" && policy !== "Never")
    causes.push({
      field: `${field}.template.spec.restartPolicy`,
      reason: "FieldValueRequired",
      message: 'Required value: valid values: "OnFailure", "Never"',
    });
  if (spec?.completionMode === "Indexed" && spec.completions === undefined)
    causes.push({
      field: `${field}.completions`,
      reason: "FieldValueRequired",
      message: "Required value: when completion mode is Indexed",
    });
  for (const k of ["parallelism", "completions", "backoffLimit", "activeDeadlineSeconds"])
    if (fields?.[k] !== undefined && (typeof fields[k] !== "number" || fields[k] < 0))
      causes.push({
        field: `${field}.${k}`,
        message: `Invalid value: ${JSON.stringify(fields[k])}: must be greater than or equal to 0`,
      });
  return causes;
}

/** What the API server finds wrong with a Job or CronJob (a 422 Invalid through validate.ts). */
export function batchCauses(obj: KObject): StatusCause[] {
  if (obj.kind === "Job") return jobSpecCauses((obj as Job).spec, "spec");
  // a CronJob as a client sent it: the spec may be missing
  const o = obj as Partial<CronJob>;
  const causes: StatusCause[] = [];
  const schedule = o.spec?.schedule;
  if (!schedule)
    causes.push({ field: "spec.schedule", reason: "FieldValueRequired", message: "Required value" });
  else {
    const err = parseCron(String(schedule)).error;
    if (err) causes.push({ field: "spec.schedule", message: `Invalid value: "${schedule}": ${err}` });
  }
  return [...causes, ...jobSpecCauses(o.spec?.jobTemplate?.spec, "spec.jobTemplate.spec")];
}

/**
 * What a Job update may not change (ValidateJobSpecUpdate): the selector, the pod template and
 * the completion mode are immutable once created (a suspended Job's scheduling fields aside).
 */
export function batchUpdateCauses(old: KObject, next: KObject): StatusCause[] {
  if (old.kind !== "Job") return [];
  const causes: StatusCause[] = [];
  const a = (old as Partial<Job>).spec;
  const b = (next as Partial<Job>).spec;
  for (const k of ["selector", "template", "completionMode"] as const) {
    if (JSON.stringify(a?.[k]) === JSON.stringify(b?.[k])) continue;
    causes.push({
      field: `spec.${k}`,
      message: `Invalid value: ${JSON.stringify(b?.[k] ?? null)}: field is immutable`,
    });
  }
  return causes;
}
