// The parts of kube's job controller that look at single pods (pkg/controller/job): completion
// indexes (indexed_job_utils.go), the pod failure policy (pod_failure_policy.go), the success
// policy (success_policy.go), and the pods it creates for a Job.
import { COMPLETION_INDEX } from "../api/batch.js";
import type {
  ContainerStatus,
  EnvVar,
  FailurePolicyRule,
  Job,
  OnExitCodes,
  Pod,
  PodCondition,
  SuccessPolicyRule,
} from "../core/objects.js";
import type { KObject } from "../core/types.js";
import { podFromTemplate } from "./workload-util.js";

export const indexOf = (p: KObject): number | undefined => {
  const v = p.metadata.annotations?.[COMPLETION_INDEX] ?? p.metadata.labels?.[COMPLETION_INDEX];
  return v !== undefined && /^\d+$/.test(v) ? Number(v) : undefined;
};

/** "1,3-5,7": the compressed interval list kube writes in status.completedIndexes. */
export function formatIndexes(set: Set<number>): string {
  const xs = [...set].sort((a, b) => a - b);
  const out: string[] = [];
  for (let i = 0; i < xs.length; ) {
    let j = i;
    while (j + 1 < xs.length && xs[j + 1] === xs[j] + 1) j++;
    out.push(j > i ? `${xs[i]}-${xs[j]}` : String(xs[i]));
    i = j + 1;
  }
  return out.join(",");
}

export function parseIndexes(s: string | undefined, completions = Number.MAX_SAFE_INTEGER): Set<number> {
  const out = new Set<number>();
  for (const part of (s ?? "").split(",").filter(Boolean)) {
    const [a, b] = part.split("-").map(Number);
    for (let i = a; i <= (b ?? a) && i < completions; i++) out.add(i);
  }
  return out;
}

/** A new pod for the Job (for `index` when it is Indexed), as the controller's pod control makes it. */
export function jobPod(job: Job, name: string, index: number | undefined): Pod {
  const pod = podFromTemplate(
    job,
    job.spec.template,
    name,
    `${job.metadata.name}-${index === undefined ? "" : `${index}-`}`,
  );
  if (index === undefined) return pod;
  pod.metadata.annotations = { ...(pod.metadata.annotations ?? {}), [COMPLETION_INDEX]: String(index) };
  pod.metadata.labels = { ...(pod.metadata.labels ?? {}), [COMPLETION_INDEX]: String(index) };
  // the index reaches each container through the downward API, and the pod's hostname is stable
  const env = {
    name: "JOB_COMPLETION_INDEX",
    valueFrom: { fieldRef: { fieldPath: `metadata.annotations['${COMPLETION_INDEX}']` } },
  };
  for (const c of [...(pod.spec.containers ?? []), ...(pod.spec.initContainers ?? [])])
    c.env = [env, ...(c.env ?? []).filter((e: EnvVar) => e.name !== env.name)];
  pod.spec.hostname ??= `${job.metadata.name}-${index}`;
  return pod;
}

export type FailureAction = "FailJob" | "FailIndex" | "Ignore" | "Count";

export interface FailureMatch {
  action: FailureAction;
  /** The Failed condition's message for FailJob. */
  message: string;
}

function exitCodeMatches(req: OnExitCodes, pod: Pod): { container: string; code: number } | undefined {
  const statuses: ContainerStatus[] = [
    ...(pod.status?.initContainerStatuses ?? []),
    ...(pod.status?.containerStatuses ?? []),
  ];
  for (const s of statuses) {
    if (req.containerName && req.containerName !== s.name) continue;
    const code = s.state?.terminated?.exitCode;
    if (code === undefined || code === 0) continue;
    const listed = (req.values ?? []).includes(code);
    if (req.operator === "In" ? listed : !listed) return { container: s.name, code };
  }
  return undefined;
}

/** The first rule of spec.podFailurePolicy a failed pod matches (matchPodFailurePolicy). */
export function matchFailurePolicy(job: Job, pod: Pod): FailureMatch | undefined {
  const rules: FailurePolicyRule[] = job.spec?.podFailurePolicy?.rules ?? [];
  const where = `${pod.metadata.namespace}/${pod.metadata.name}`;
  for (const [i, rule] of rules.entries()) {
    if (rule.onExitCodes) {
      const m = exitCodeMatches(rule.onExitCodes, pod);
      if (m)
        return {
          action: rule.action as FailureAction, // one of the four the API accepts
          message: `Container ${m.container} for pod ${where} failed with exit code ${m.code} matching ${rule.action} rule at index ${i}`,
        };
    }
    for (const pat of rule.onPodConditions ?? []) {
      const hit = (pod.status?.conditions ?? []).find(
        (c: PodCondition) => c.type === pat.type && c.status === (pat.status ?? "True"),
      );
      if (hit)
        return {
          action: rule.action as FailureAction, // one of the four the API accepts
          message: `Pod ${where} has condition ${pat.type} matching ${rule.action} rule at index ${i}`,
        };
    }
  }
  return undefined;
}

/** The index of the first successPolicy rule the succeeded indexes meet (matchSuccessPolicy). */
export function matchSuccessPolicy(job: Job, succeeded: Set<number>): number | undefined {
  const rules: SuccessPolicyRule[] = job.spec?.successPolicy?.rules ?? [];
  for (const [i, rule] of rules.entries()) {
    const want = rule.succeededIndexes
      ? parseIndexes(rule.succeededIndexes, job.spec.completions)
      : undefined;
    const have = want ? [...want].filter((x) => succeeded.has(x)).length : succeeded.size;
    const count = rule.succeededCount;
    if (want && count === undefined && have === want.size) return i;
    if (count !== undefined && have >= count) return i;
  }
  return undefined;
}

/** The restarts of a pod's containers (what backoffLimit counts under restartPolicy OnFailure). */
export const restartsOf = (p: Pod): number =>
  [...(p.status?.initContainerStatuses ?? []), ...(p.status?.containerStatuses ?? [])].reduce(
    (n: number, s: ContainerStatus) => n + (s.restartCount ?? 0),
    0,
  );
