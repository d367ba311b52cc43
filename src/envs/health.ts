// The health of a namespace: its workloads, their desired replicas and whether all are Ready.
// A baseline taken before the fault lets the verifier tell collateral damage from recovery.
import type { KubeClient } from "../kube/client.js";
import type { Deployment, StatefulSet, Workload } from "../kube/objects.js";

export interface WorkloadHealth {
  kind: "Deployment" | "StatefulSet";
  name: string;
  replicas: number;
  ready: number;
  updated: number;
  /** The controller has seen the latest spec and every replica is updated, ready and available. */
  settled: boolean;
}

export type HealthSnapshot = WorkloadHealth[];

function health(o: Workload): WorkloadHealth {
  const replicas = o.spec?.replicas ?? 1;
  const st = o.status;
  const ready = st?.readyReplicas ?? 0;
  const current = (o as StatefulSet).status?.currentReplicas ?? 0;
  const updated = st?.updatedReplicas ?? (o.kind === "StatefulSet" ? current : 0);
  const observed = (st?.observedGeneration ?? 0) >= (o.metadata.generation ?? 0);
  const total = st?.replicas ?? 0;
  const available = o.kind === "Deployment" ? ((o as Deployment).status?.availableReplicas ?? 0) : ready;
  const settled =
    observed && ready === replicas && updated === replicas && total === replicas && available === replicas;
  return {
    kind: o.kind as WorkloadHealth["kind"],
    name: o.metadata.name!,
    replicas,
    ready,
    updated,
    settled,
  };
}

export async function snapshot(client: KubeClient, namespace: string): Promise<HealthSnapshot> {
  const [deps, sts] = await Promise.all([
    client.list<Deployment>("apps/v1", "Deployment", namespace),
    client.list<StatefulSet>("apps/v1", "StatefulSet", namespace),
  ]);
  return [...deps, ...sts].map(health).sort((a, b) => a.name.localeCompare(b.name));
}

export const allSettled = (s: HealthSnapshot) => s.length > 0 && s.every((w) => w.settled);

/** What is wrong with `now` compared with the healthy `baseline` ([] when nothing). */
export function collateralDamage(baseline: HealthSnapshot, now: HealthSnapshot): string[] {
  const problems: string[] = [];
  for (const b of baseline) {
    const n = now.find((w) => w.kind === b.kind && w.name === b.name);
    if (!n) problems.push(`${b.kind} ${b.name} is gone`);
    else if (n.replicas < b.replicas)
      problems.push(`${b.kind} ${b.name} was scaled from ${b.replicas} to ${n.replicas} replicas`);
    else if (!n.settled)
      problems.push(`${b.kind} ${b.name} has ${n.ready}/${n.replicas} ready (${n.updated} updated)`);
  }
  return problems;
}
