// Background noise (--noise): events that are not the fault, as a busy namespace shows
// them, planned from the run's seed, the case and its trial alone, so the same seed gives the same
// events. Each is aimed at a workload (or ConfigMap) the case's faults leave alone and never
// affects the verdict: the runner waits for what it restarted to be Ready again, an event that
// could not be made is left out of the record (apply.ts), and the ConfigMap edit is undone when
// the case is restored. What a plan names is a workload, not a pod: pods' names are random, the
// plan is not.
// Only Train-Ticket's manifests have ConfigMaps (nacos, rabbitmq, nacosdb-mysql-init), so a
// "ConfigMap edited" event is planned on Train-Ticket only; Simple-Micro and Online-Boutique get
// the other three kinds.
import { Rng } from "../util/rng.js";
import { WARNING_REASONS } from "./warnings.js";

export type NoiseKind = "pod-restart" | "warning-event" | "configmap-edit" | "cpu-burst";

export interface NoiseEvent {
  kind: NoiseKind;
  /** The workload (Deployment) or ConfigMap it is aimed at. */
  target: string;
  /** What was done, in a line (the warning's reason, then its message once made; the annotation set). */
  detail: string;
}

/** The annotation a ConfigMap edit sets: the noise's own, which no system's manifest sets. */
export const EDIT_ANNOTATION = "reviewed-at";

/**
 * Two to three events, among the system's workloads and ConfigMaps that the faults (`avoid`: their
 * targets) leave alone.
 */
export function planNoise(
  seed: number,
  caseKey: string,
  allWorkloads: string[],
  allConfigMaps: string[],
  avoid: string[] = [],
): NoiseEvent[] {
  const rng = new Rng(`${seed}:${caseKey}:noise`);
  const workloads = allWorkloads.filter((w) => !avoid.includes(w));
  const configMaps = allConfigMaps.filter((c) => !avoid.includes(c));
  if (!workloads.length) return [];
  const kinds: NoiseKind[] = ["pod-restart", "warning-event", "cpu-burst"];
  if (configMaps.length) kinds.push("configmap-edit");
  const n = 2 + rng.int(2);
  const out: NoiseEvent[] = [];
  for (let i = 0; i < n; i++) {
    const kind = rng.pick(kinds);
    if (kind === "configmap-edit") {
      const target = rng.pick([...configMaps].sort());
      out.push({ kind, target, detail: `annotation ${EDIT_ANNOTATION}=${rng.chars(8, "0123456789")}` });
      continue;
    }
    const target = rng.pick([...workloads].sort());
    if (kind === "warning-event") {
      // the message is the kubelet's for the pod it lands on (warnings.ts, when it is made)
      out.push({ kind, target, detail: rng.pick(WARNING_REASONS) });
    } else if (kind === "cpu-burst") out.push({ kind, target, detail: `${2 + rng.int(4)} s of CPU work` });
    else out.push({ kind, target, detail: "one pod deleted; its Deployment replaces it" });
  }
  return out;
}
