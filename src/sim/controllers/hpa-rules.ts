// How the HPA turns the metrics' proposal into the replica count it writes (horizontal.go:
// normalizeDesiredReplicas, normalizeDesiredReplicasWithBehaviors, and what they call): the
// recommendations of the stabilization window (the highest of the last 5 minutes before a
// scale-down), the rate limits (without `behavior`: at most max(2 x current, 4); with it, the
// policies over their periods, from the scale events it remembers), then minReplicas and
// maxReplicas, each with the AbleToScale and ScalingLimited conditions the real one sets.
import type { Condition } from "../core/objects.js";

/** --horizontal-pod-autoscaler-downscale-stabilization. */
export const DOWNSCALE_STABILIZATION_MS = 5 * 60_000;

export interface ScalingPolicy {
  type: "Pods" | "Percent";
  value: number;
  periodSeconds: number;
}
export interface ScalingRules {
  stabilizationWindowSeconds?: number;
  selectPolicy?: "Max" | "Min" | "Disabled";
  policies?: ScalingPolicy[];
}
export interface Behavior {
  scaleUp?: ScalingRules;
  scaleDown?: ScalingRules;
}

interface Recommendation {
  replicas: number;
  at: number;
}
interface ScaleEvent {
  change: number;
  at: number;
  outdated: boolean;
}

/** setConditionInList: the transition time moves only when the status changes. */
export function setCondition(
  list: Condition[],
  now: string,
  type: string,
  status: "True" | "False",
  reason: string,
  message: string,
): void {
  let c = list.find((x) => x.type === type);
  if (!c) {
    c = { type, status: "" };
    list.push(c);
  }
  if (c.status !== status) c.lastTransitionTime = now;
  c.status = status;
  c.reason = reason;
  c.message = message;
}

type SetCondition = (type: string, status: "True" | "False", reason: string, message: string) => void;

/** The controller's memory of one HPA: recommendations and scale events (kept in-process, as kube's). */
export class HpaMemory {
  private readonly recommendations = new Map<string, Recommendation[]>();
  private readonly ups = new Map<string, ScaleEvent[]>();
  private readonly downs = new Map<string, ScaleEvent[]>();

  forget(key: string): void {
    this.recommendations.delete(key);
    this.ups.delete(key);
    this.downs.delete(key);
  }

  recordInitial(key: string, replicas: number, now: number): void {
    if (!this.recommendations.has(key)) this.recommendations.set(key, [{ replicas, at: now }]);
  }

  /** Without behavior: the highest recommendation of the window, then the fixed limits. */
  normalize(
    key: string,
    now: number,
    current: number,
    desired: number,
    min: number,
    max: number,
    set: SetCondition,
  ) {
    const stabilized = this.stabilize(key, now, desired);
    if (stabilized !== desired)
      set(
        "AbleToScale",
        "True",
        "ScaleDownStabilized",
        "recent recommendations were higher than current one, applying the highest recent recommendation",
      );
    else set("AbleToScale", "True", "ReadyForNewScale", "recommended size matches current size");
    const [replicas, reason, message] = withRules(current, stabilized, min, max);
    set("ScalingLimited", replicas === stabilized ? "False" : "True", reason, message);
    return replicas;
  }

  private stabilize(key: string, now: number, desired: number): number {
    let max = desired;
    let old = -1;
    const recs = this.recommendations.get(key) ?? [];
    recs.forEach((r, i) => {
      if (r.at < now - DOWNSCALE_STABILIZATION_MS) old = i;
      else if (r.replicas > max) max = r.replicas;
    });
    if (old >= 0) recs[old] = { replicas: desired, at: now };
    else recs.push({ replicas: desired, at: now });
    this.recommendations.set(key, recs);
    return max;
  }

  /** With behavior: stabilization windows up and down, then the policies' rates. */
  normalizeWithBehavior(
    key: string,
    now: number,
    behavior: Behavior,
    current: number,
    desired: number,
    min: number,
    max: number,
    set: SetCondition,
  ) {
    const up = behavior.scaleUp ?? {};
    const down = behavior.scaleDown ?? {};
    const downWindow = down.stabilizationWindowSeconds ?? DOWNSCALE_STABILIZATION_MS / 1000;
    const upCut = now - (up.stabilizationWindowSeconds ?? 0) * 1000;
    const downCut = now - downWindow * 1000;
    let upRec = desired;
    let downRec = desired;
    let old = -1;
    const recs = this.recommendations.get(key) ?? [];
    recs.forEach((r, i) => {
      if (r.at > upCut) upRec = Math.min(upRec, r.replicas);
      if (r.at > downCut) downRec = Math.max(downRec, r.replicas);
      if (r.at < upCut && r.at < downCut) old = i;
    });
    const stabilized = Math.min(Math.max(current, upRec), downRec);
    if (old >= 0) recs[old] = { replicas: desired, at: now };
    else recs.push({ replicas: desired, at: now });
    this.recommendations.set(key, recs);
    if (stabilized !== desired) {
      if (desired >= current)
        set(
          "AbleToScale",
          "True",
          "ScaleUpStabilized",
          "recent recommendations were lower than current one, applying the lowest recent recommendation",
        );
      else
        set(
          "AbleToScale",
          "True",
          "ScaleDownStabilized",
          "recent recommendations were higher than current one, applying the highest recent recommendation",
        );
    } else set("AbleToScale", "True", "ReadyForNewScale", "recommended size matches current size");
    const [replicas, reason, message] = this.withRate(key, now, up, down, current, stabilized, min, max);
    set("ScalingLimited", replicas === stabilized ? "False" : "True", reason, message);
    return replicas;
  }

  private withRate(
    key: string,
    now: number,
    up: ScalingRules,
    down: ScalingRules,
    current: number,
    desired: number,
    min: number,
    max: number,
  ): [number, string, string] {
    const ups = this.ups.get(key) ?? [];
    const downs = this.downs.get(key) ?? [];
    if (desired > current) {
      const limit = Math.max(current, rateLimit(now, current, ups, downs, up, +1));
      if (max > limit) {
        if (desired > limit)
          return [
            limit,
            "ScaleUpLimit",
            "the desired replica count is increasing faster than the maximum scale rate",
          ];
      } else if (desired > max)
        return [max, "TooManyReplicas", "the desired replica count is more than the maximum replica count"];
    } else if (desired < current) {
      const limit = Math.min(current, rateLimit(now, current, ups, downs, down, -1));
      if (min < limit) {
        if (desired < limit)
          return [
            limit,
            "ScaleDownLimit",
            "the desired replica count is decreasing faster than the maximum scale rate",
          ];
      } else if (desired < min)
        return [min, "TooFewReplicas", "the desired replica count is less than the minimum replica count"];
    }
    return [desired, "DesiredWithinRange", "the desired count is within the acceptable range"];
  }

  /** storeScaleEvent: remembered only when the HPA has a behavior (the rates read them). */
  storeScaleEvent(key: string, now: number, behavior: Behavior | undefined, from: number, to: number): void {
    if (!behavior) return;
    const upward = to > from;
    const rules = (upward ? behavior.scaleUp : behavior.scaleDown) ?? {};
    const longest = Math.max(0, ...(rules.policies ?? []).map((p) => p.periodSeconds));
    const map = upward ? this.ups : this.downs;
    const events = map.get(key) ?? [];
    for (const e of events) if (e.at < now - longest * 1000) e.outdated = true;
    const event = { change: Math.abs(to - from), at: now, outdated: false };
    const i = events.findLastIndex((e) => e.outdated);
    if (i >= 0) events[i] = event;
    else events.push(event);
    map.set(key, events);
  }
}

/** convertDesiredReplicasWithRules: min and max, and at most doubling (or 4) per sync. */
function withRules(current: number, desired: number, min: number, max: number): [number, string, string] {
  const upLimit = Math.max(2 * current, 4);
  let maxAllowed: number;
  let reason: string;
  let message: string;
  if (max > upLimit) {
    maxAllowed = upLimit;
    reason = "ScaleUpLimit";
    message = "the desired replica count is increasing faster than the maximum scale rate";
  } else {
    maxAllowed = max;
    reason = "TooManyReplicas";
    message = "the desired replica count is more than the maximum replica count";
  }
  if (desired < min)
    return [min, "TooFewReplicas", "the desired replica count is less than the minimum replica count"];
  if (desired > maxAllowed) return [maxAllowed, reason, message];
  return [desired, "DesiredWithinRange", "the desired count is within the acceptable range"];
}

/** Replicas changed in the last `periodSeconds` (getReplicasChangePerPeriod). */
function changeIn(now: number, periodSeconds: number, events: ScaleEvent[]): number {
  const cut = now - periodSeconds * 1000;
  return events.reduce((a, e) => (e.at > cut ? a + e.change : a), 0);
}

/**
 * calculateScaleUpLimitWithScalingRules (sign +1) and calculateScaleDownLimitWithBehaviors (-1):
 * each policy's bound from the replica count at the start of its period; Max takes the loosest.
 */
function rateLimit(
  now: number,
  current: number,
  ups: ScaleEvent[],
  downs: ScaleEvent[],
  rules: ScalingRules,
  sign: 1 | -1,
): number {
  const select = rules.selectPolicy ?? "Max";
  if (select === "Disabled") return current;
  // up: Max takes the highest bound; down: Max takes the lowest (the largest change either way)
  const highest = sign > 0 ? select !== "Min" : select === "Min";
  let result = highest ? Number.NEGATIVE_INFINITY : Number.POSITIVE_INFINITY;
  const pick = highest ? Math.max : Math.min;
  for (const p of rules.policies ?? []) {
    const start = current - changeIn(now, p.periodSeconds, ups) + changeIn(now, p.periodSeconds, downs);
    let proposed: number;
    if (sign > 0) proposed = p.type === "Pods" ? start + p.value : Math.ceil(start * (1 + p.value / 100));
    else proposed = p.type === "Pods" ? start - p.value : Math.trunc(start * (1 - p.value / 100));
    result = pick(result, proposed);
  }
  return Number.isFinite(result) ? result : current;
}
