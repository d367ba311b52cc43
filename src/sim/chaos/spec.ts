// What the Chaos Mesh 2.x objects say, read the way its webhook defaults and its controllers read
// them: Go durations ("1200s", "1h30m"), memory sizes ("1280MiB", "256MB", "50%"), the pause
// annotation, the finalizer, and which actions are one-shot (pod-kill, container-kill: applied
// once, never "recovered", unaffected by duration).
import type { Doc } from "../core/objects.js";
import type { KObject } from "../core/types.js";

/** One outcome in a record's bounded event list (v1alpha1.RecordEvent). */
export interface RecordEvent {
  type: string;
  operation: string;
  message?: string;
  timestamp: string;
}

/** A record of status.experiment.containerRecords (v1alpha1.Record): one target and its phase. */
export interface ChaosRecord {
  id: string;
  selectorKey: string;
  phase: string;
  injectedCount: number;
  recoveredCount: number;
  events?: RecordEvent[];
}

/** The status the controllers keep on a chaos object. */
export interface ChaosStatus {
  experiment: { desiredPhase?: string; containerRecords?: ChaosRecord[] };
  conditions?: { type: string; status: string }[];
  /** StressChaos, IOChaos and NetworkChaos: the instances injected per record id. */
  instances?: Record<string, unknown>;
}

/** v1alpha1.PodSelectorSpec, as a chaos object states it. */
export interface ChaosSelector {
  pods?: Record<string, string[]>;
  namespaces?: string[];
  fieldSelectors?: Record<string, string>;
  labelSelectors?: Record<string, string>;
  expressionSelectors?: { key: string; operator: string; values?: string[] }[];
  annotationSelectors?: Record<string, string>;
  podPhaseSelectors?: string[];
  nodes?: string[];
  nodeSelectors?: Record<string, string>;
}

/** A selector spec with its mode (v1alpha1.PodSelector): the object's own, or NetworkChaos' target. */
export interface SelectorSpec {
  selector?: ChaosSelector;
  mode?: string;
  value?: string;
}

/**
 * The spec fields every kind's controller reads; each kind's own fields (NetworkSpec, IOSpec,
 * StressSpec) are read by that kind's code from the same open document.
 */
export interface CommonSpec extends SelectorSpec {
  action?: string;
  duration?: string;
  /** Container-scoped kinds: the containers to inject into (else the first). */
  containerNames?: string[];
  /** PodChaos pod-kill: the deletion's grace period in seconds. */
  gracePeriod?: number;
  /** NetworkChaos: the other end of the traffic, with its own selector and mode. */
  target?: SelectorSpec;
  externalTargets?: string[];
}

/** A chaos object as the controllers read it (objects.ts's Chaos with the fields they know). */
export interface ChaosObject extends KObject {
  spec: CommonSpec & Doc;
  status?: ChaosStatus;
}

/** The spec fields of NetworkChaos the fault reads (netem: delay, loss, corrupt). */
export interface NetworkSpec {
  action?: string;
  direction?: string;
  delay?: { latency?: string; jitter?: string };
  loss?: { loss?: string };
  corrupt?: { corrupt?: string };
}

/** The spec fields of IOChaos the fault reads. */
export interface IOSpec {
  action?: string;
  volumePath?: string;
  path?: string;
  percent?: number | string;
  delay?: string;
  errno?: number | string;
}

/** The spec fields of StressChaos the fault reads. */
export interface StressSpec {
  stressors?: {
    cpu?: { workers?: number | string; load?: number | string };
    memory?: { workers?: number | string; size?: string };
  };
}

/** The spec fields of HTTPChaos the fault reads (api/v1alpha1/httpchaos_types.go). */
export interface HTTPSpec {
  target?: string;
  port?: number | string;
  path?: string;
  method?: string;
  code?: number | string;
  abort?: boolean;
  delay?: string;
  replace?: { code?: number | string };
}

export const CHAOS_KINDS = ["StressChaos", "NetworkChaos", "PodChaos", "IOChaos", "HTTPChaos"] as const;
export type ChaosKind = (typeof CHAOS_KINDS)[number];

/** The finalizer the records controller puts on every chaos object (finalizers/controller.go). */
export const FINALIZER = "chaos-mesh/records";
export const PAUSE_ANNOTATION = "experiment.chaos-mesh.org/pause";
/** Chaos Mesh's escape hatch: drop the finalizer without recovering. */
export const CLEAN_FINALIZER_ANNOTATION = "chaos-mesh.chaos-mesh.org/cleanFinalizer";
/** The image pod-failure swaps in (config.ControllerCfg.PodFailurePauseImage default). */
export const PAUSE_IMAGE = "gcr.io/google-containers/pause:latest";

/**
 * A memory stressor's size: go-units RAMInBytes (KB/MB/GB are binary there, like KiB/MiB/GiB),
 * or a percentage of the memory the container may use (its limit, else `total`).
 */
export function parseMemorySize(s: unknown, total: number): number | undefined {
  if (typeof s === "number") return s;
  if (typeof s !== "string") return undefined;
  const pct = s.trim().match(/^(\d+(?:\.\d+)?)\s*%$/);
  if (pct) return Math.round((Number(pct[1]) / 100) * total);
  const m = s.trim().match(/^(\d+(?:\.\d+)?)\s*([kKmMgGtTpP])?[iI]?[bB]?$/);
  if (!m) return undefined;
  const exp = m[2] ? "kmgtp".indexOf(m[2].toLowerCase()) + 1 : 0;
  return Math.round(Number(m[1]) * 1024 ** exp);
}

export const isPaused = (o: KObject) => o.metadata.annotations?.[PAUSE_ANNOTATION] === "true";
export const isDeleting = (o: KObject) => !!o.metadata.deletionTimestamp;

/** pod-kill and container-kill act once: no duration, no recovery to do (IsOneShot). */
export function isOneShot(o: ChaosObject): boolean {
  return o.kind === "PodChaos" && (o.spec?.action === "pod-kill" || o.spec?.action === "container-kill");
}

/** A source key for the FaultBook: "<kind>/<ns>/<name>". */
export const sourceOf = (o: KObject) => `${o.kind}/${o.metadata.namespace}/${o.metadata.name}`;

/** Records are per container (ns/pod/container) for these, else per pod (ns/pod). */
export function containerScoped(o: ChaosObject): boolean {
  if (o.kind === "StressChaos" || o.kind === "IOChaos") return true;
  return o.kind === "PodChaos" && o.spec?.action === "container-kill";
}
