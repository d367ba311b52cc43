// Runs a rollout golden (test/sim/controllers/golden/*.yaml): a pod lifecycle golden
// (../helpers/kubelet-harness.ts: pinned clock, scripted containers, pods and their events) whose
// steps may also change objects (the Deployment's template, a ServiceAccount) and state what the
// Deployment, its ReplicaSets and the controllers' events look like.
import { R } from "../../../src/sim/api/resources.js";
import type { Event, ReplicaSet } from "../../../src/sim/core/objects.js";
import type { KObject } from "../../../src/sim/core/types.js";
import { type Golden, GoldenRun, type Step, textMatches } from "../helpers/kubelet-harness.js";

interface ConditionWant {
  status: string;
  reason: string;
  message?: string;
}

export interface RolloutStep extends Step {
  /** Merge into an object's fields (a Deployment's spec.template, ...), as kubectl patch does. */
  patch?: { kind: string; name: string; merge: Record<string, unknown> };
  /** Delete an object (a ServiceAccount, ...). */
  remove?: { kind: string; name: string };
  /** The Deployment's `kubectl get` columns and conditions. */
  deployment?: {
    name: string;
    ready?: string;
    upToDate?: number;
    available?: number;
    conditions?: Record<string, ConditionWant | "absent">;
  };
  /** ReplicaSets by the image of their first container: desired, current and ready counts. */
  replicasets?: Record<string, { desired: number; current?: number; ready?: number }>;
  /** Events of Deployments and ReplicaSets since the previous step: "Reason: message". */
  controllerEvents?: string[];
}

export interface RolloutGolden extends Golden {
  steps: RolloutStep[];
}

type Open = Record<string, unknown>;

function merge(into: Open, patch: Open): Open {
  const out: Open = { ...into };
  for (const [k, v] of Object.entries(patch)) {
    const cur = out[k];
    out[k] =
      v && typeof v === "object" && !Array.isArray(v) && cur && typeof cur === "object" && !Array.isArray(cur)
        ? merge(cur as Open, v as Open)
        : v;
  }
  return out;
}

export class RolloutRun {
  readonly run: GoldenRun;
  private events: string[] = [];

  constructor(readonly golden: RolloutGolden) {
    this.run = new GoldenRun(golden);
    this.run.cluster.ctx.store.subscribe((e) => {
      if (e.rt.kind !== "Event" || e.type === "DELETED") return;
      const o = e.object as Event;
      const kind = o.involvedObject?.kind;
      if (kind !== "Deployment" && kind !== "ReplicaSet") return;
      if (e.type === "MODIFIED" && (o.count ?? 1) <= ((e.old as Event | undefined)?.count ?? 1)) return;
      this.events.push(`${o.reason}: ${o.message}`);
    });
  }

  step(s: RolloutStep): string[] {
    const { registry } = this.run.cluster.ctx;
    this.run.advanceTo(s.at);
    if (s.patch) {
      const rt = R(s.patch.kind);
      const cur = registry.get(rt, "default", s.patch.name);
      registry.update(rt, "default", s.patch.name, merge(cur, s.patch.merge) as KObject);
    }
    if (s.remove) registry.delete(R(s.remove.kind), "default", s.remove.name);
    const diffs = this.run.step(s);
    const at = (d: string) => `at ${s.at}: ${d}`;
    if (s.deployment) diffs.push(...this.deploymentDiff(s.deployment).map(at));
    if (s.replicasets) diffs.push(...this.replicaSetDiff(s.replicasets).map(at));
    if (s.controllerEvents) {
      const ok =
        s.controllerEvents.length === this.events.length &&
        s.controllerEvents.every((w, i) => textMatches(w, this.events[i]));
      if (!ok)
        diffs.push(
          at(
            `controller events: want ${JSON.stringify(s.controllerEvents)}, have ${JSON.stringify(this.events)}`,
          ),
        );
    }
    this.events = [];
    return diffs;
  }

  private deploymentDiff(want: NonNullable<RolloutStep["deployment"]>): string[] {
    const d = this.run.cluster.ctx.registry.get(R("Deployment"), "default", want.name) as KObject & {
      spec: { replicas?: number };
      status?: {
        readyReplicas?: number;
        updatedReplicas?: number;
        availableReplicas?: number;
        conditions?: { type: string; status: string; reason?: string; message?: string }[];
      };
    };
    const st = d.status ?? {};
    const have = {
      ready: `${st.readyReplicas ?? 0}/${d.spec.replicas ?? 1}`,
      upToDate: st.updatedReplicas ?? 0,
      available: st.availableReplicas ?? 0,
    };
    const diffs: string[] = [];
    for (const k of ["ready", "upToDate", "available"] as const)
      if (want[k] !== undefined && want[k] !== have[k])
        diffs.push(`deployment ${want.name} ${k}: want ${want[k]}, have ${have[k]}`);
    for (const [type, w] of Object.entries(want.conditions ?? {})) {
      const c = (st.conditions ?? []).find((x) => x.type === type);
      if (w === "absent") {
        if (c) diffs.push(`deployment ${want.name} ${type}: want absent, have ${JSON.stringify(c)}`);
        continue;
      }
      if (
        !c ||
        c.status !== w.status ||
        c.reason !== w.reason ||
        (w.message !== undefined && !textMatches(w.message, c.message))
      )
        diffs.push(`deployment ${want.name} ${type}: want ${JSON.stringify(w)}, have ${JSON.stringify(c)}`);
    }
    return diffs;
  }

  private replicaSetDiff(want: NonNullable<RolloutStep["replicasets"]>): string[] {
    const sets = this.run.cluster.ctx.registry.list(R("ReplicaSet"), "default") as ReplicaSet[];
    const diffs: string[] = [];
    for (const [image, w] of Object.entries(want)) {
      const rs = sets.find((x) => x.spec?.template?.spec?.containers?.[0]?.image === image);
      if (!rs) {
        diffs.push(`replicaset of ${image}: missing`);
        continue;
      }
      const have = {
        desired: rs.spec?.replicas ?? 1,
        current: rs.status?.replicas ?? 0,
        ready: rs.status?.readyReplicas ?? 0,
      };
      for (const k of ["desired", "current", "ready"] as const)
        if (w[k] !== undefined && w[k] !== have[k])
          diffs.push(`replicaset of ${image} ${k}: want ${w[k]}, have ${have[k]}`);
    }
    return diffs;
  }
}
