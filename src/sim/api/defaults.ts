// Defaulting, as the API server applies it on create and update, for the kinds whose defaults
// clients read back (kubectl rollout, describe, and ansible's diffs).

import type {
  Container,
  DaemonSet,
  Deployment,
  Job,
  Namespace,
  Pod,
  PodSpec,
  ReplicaSet,
  Secret,
  Service,
  StatefulSet,
} from "../core/objects.js";
import type { KObject } from "../core/types.js";
import { defaultCronJob, defaultJobSpec } from "./batch.js";
import { defaultPodSpec } from "./defaults-pod.js";

/** A defaulter for one kind: DEFAULTERS picks it by the object's kind, so it reads the object as that kind. */
const kind =
  <T extends KObject>(fn: (o: T) => void) =>
  (o: KObject) =>
    fn(o as T);

const DEFAULTERS: Record<string, (o: KObject) => void> = {
  Pod: kind<Pod>((o) => {
    defaultPodSpec(o.spec);
    o.spec.enableServiceLinks ??= true;
    o.spec.serviceAccountName ??= "default";
    o.spec.serviceAccount ??= o.spec.serviceAccountName;
    o.spec.priority ??= 0;
    o.spec.preemptionPolicy ??= "PreemptLowerPriority";
    o.spec.tolerations ??= [
      {
        key: "node.kubernetes.io/not-ready",
        operator: "Exists",
        effect: "NoExecute",
        tolerationSeconds: 300,
      },
      {
        key: "node.kubernetes.io/unreachable",
        operator: "Exists",
        effect: "NoExecute",
        tolerationSeconds: 300,
      },
    ];
    o.status ??= { phase: "Pending", qosClass: qosClass(o.spec) };
  }),
  Deployment: kind<Deployment>((o) => {
    o.spec.replicas ??= 1;
    o.spec.revisionHistoryLimit ??= 10;
    o.spec.progressDeadlineSeconds ??= 600;
    o.spec.strategy ??= { type: "RollingUpdate" };
    if (o.spec.strategy.type === "RollingUpdate") {
      o.spec.strategy.rollingUpdate ??= {};
      o.spec.strategy.rollingUpdate.maxSurge ??= "25%";
      o.spec.strategy.rollingUpdate.maxUnavailable ??= "25%";
    }
    defaultPodSpec(o.spec.template?.spec);
  }),
  ReplicaSet: kind<ReplicaSet>((o) => {
    o.spec.replicas ??= 1;
    defaultPodSpec(o.spec.template?.spec);
  }),
  StatefulSet: kind<StatefulSet>((o) => {
    o.spec.replicas ??= 1;
    o.spec.podManagementPolicy ??= "OrderedReady";
    o.spec.revisionHistoryLimit ??= 10;
    o.spec.updateStrategy ??= { type: "RollingUpdate", rollingUpdate: { partition: 0 } };
    defaultPodSpec(o.spec.template?.spec);
  }),
  DaemonSet: kind<DaemonSet>((o) => {
    o.spec.updateStrategy ??= { type: "RollingUpdate", rollingUpdate: { maxUnavailable: 1, maxSurge: 0 } };
    defaultPodSpec(o.spec.template?.spec);
  }),
  Job: kind<Job>((o) => {
    defaultJobSpec(o.spec);
  }),
  CronJob(o) {
    defaultCronJob(o);
  },
  Service: kind<Service>((o) => {
    o.spec ??= {};
    o.spec.type ??= "ClusterIP";
    o.spec.sessionAffinity ??= "None";
    o.spec.ipFamilies ??= ["IPv4"];
    o.spec.ipFamilyPolicy ??= "SingleStack";
    o.spec.internalTrafficPolicy ??= "Cluster";
    for (const p of o.spec.ports ?? []) {
      p.protocol ??= "TCP";
      p.targetPort ??= p.port;
    }
    o.status ??= { loadBalancer: {} };
  }),
  Namespace: kind<Namespace>((o) => {
    o.metadata.labels = { ...(o.metadata.labels ?? {}), "kubernetes.io/metadata.name": o.metadata.name! };
  }),
  Secret: kind<Secret>((o) => {
    o.type ??= "Opaque";
  }),
};

export function applyDefaults(obj: KObject): KObject {
  DEFAULTERS[obj.kind]?.(obj);
  return obj;
}

export function qosClass(spec: PodSpec | undefined): "Guaranteed" | "Burstable" | "BestEffort" {
  const cs: Container[] = spec?.containers ?? [];
  const any = cs.some(
    (c) => Object.keys(c.resources?.requests ?? {}).length || Object.keys(c.resources?.limits ?? {}).length,
  );
  if (!any) return "BestEffort";
  const guaranteed = cs.every((c) => {
    const l = c.resources?.limits ?? {};
    const r = c.resources?.requests ?? {};
    return l.cpu && l.memory && (r.cpu ?? l.cpu) === l.cpu && (r.memory ?? l.memory) === l.memory;
  });
  return guaranteed ? "Guaranteed" : "Burstable";
}
