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
    o.spec.serviceAccountName ||= "default";
    o.spec.serviceAccount = o.spec.serviceAccountName;
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
    // pkg/apis/apps/v1/defaults.go: an empty strategy (kubectl create deployment sends
    // `strategy: {}`) is a RollingUpdate of 25%/25%, not one whose bounds are both zero
    o.spec.strategy ??= {};
    if (!o.spec.strategy.type) o.spec.strategy.type = "RollingUpdate";
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
    o.spec.updateStrategy ??= {};
    if (!o.spec.updateStrategy.type) {
      o.spec.updateStrategy.type = "RollingUpdate";
      o.spec.updateStrategy.rollingUpdate ??= {};
    }
    if (o.spec.updateStrategy.type === "RollingUpdate" && o.spec.updateStrategy.rollingUpdate)
      o.spec.updateStrategy.rollingUpdate.partition ??= 0;
    defaultPodSpec(o.spec.template?.spec);
  }),
  DaemonSet: kind<DaemonSet>((o) => {
    o.spec.updateStrategy ??= {};
    if (!o.spec.updateStrategy.type) o.spec.updateStrategy.type = "RollingUpdate";
    if (o.spec.updateStrategy.type === "RollingUpdate") {
      o.spec.updateStrategy.rollingUpdate ??= {};
      o.spec.updateStrategy.rollingUpdate.maxUnavailable ??= 1;
      o.spec.updateStrategy.rollingUpdate.maxSurge ??= 0;
    }
    o.spec.revisionHistoryLimit ??= 10;
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
    // conversion to the internal Secret merges stringData into data (stringData wins) and drops it
    if (o.stringData) {
      const encoded = Object.entries(o.stringData).map(([k, v]) => [
        k,
        Buffer.from(String(v)).toString("base64"),
      ]);
      o.data = { ...(o.data ?? {}), ...Object.fromEntries(encoded) };
      delete o.stringData;
    }
  }),
  // pkg/apis/networking/v1/defaults.go: ports are TCP unless said; a policy is an Ingress one,
  // and an Egress one too when it has egress rules. podSelector is a required (non-pointer) field,
  // decoded as {} when absent.
  NetworkPolicy(o) {
    o.spec ??= {};
    const spec = o.spec as Open;
    spec.podSelector ??= {};
    for (const dir of ["ingress", "egress"])
      for (const rule of (spec[dir] ?? []) as Open[])
        for (const p of (rule?.ports ?? []) as Open[]) if (p && typeof p === "object") p.protocol ??= "TCP";
    if (!Array.isArray(spec.policyTypes) || spec.policyTypes.length === 0)
      spec.policyTypes = ((spec.egress ?? []) as unknown[]).length ? ["Ingress", "Egress"] : ["Ingress"];
  },
  // pkg/apis/discovery/v1/defaults.go
  EndpointSlice(o) {
    for (const p of (o.ports ?? []) as Open[]) {
      if (!p || typeof p !== "object") continue;
      p.name ??= "";
      p.protocol ??= "TCP";
    }
  },
  // pkg/apis/scheduling/v1/defaults.go
  PriorityClass(o) {
    o.preemptionPolicy ??= "PreemptLowerPriority";
  },
  // pkg/apis/storage/v1/defaults.go
  StorageClass(o) {
    o.reclaimPolicy ??= "Delete";
    o.volumeBindingMode ??= "Immediate";
  },
  // pkg/apis/autoscaling/v2/defaults.go: one replica at least, and 80% CPU when no metric is given
  HorizontalPodAutoscaler(o) {
    o.spec ??= {};
    const spec = o.spec as Open;
    spec.minReplicas ??= 1;
    if (!Array.isArray(spec.metrics) || spec.metrics.length === 0)
      spec.metrics = [
        {
          type: "Resource",
          resource: { name: "cpu", target: { type: "Utilization", averageUtilization: 80 } },
        },
      ];
    // a behavior given has its unset rules filled: scale up by 4 pods or 100% per 15 s at once,
    // down by 100% per 15 s (its window left to the controller's 5 minutes)
    const behavior = spec.behavior as Open | undefined;
    if (behavior && typeof behavior === "object") {
      const rules = (given: unknown, policies: Open[], window?: number): Open => {
        const g = (given && typeof given === "object" ? given : {}) as Open;
        return {
          ...(window !== undefined ? { stabilizationWindowSeconds: window } : {}),
          selectPolicy: "Max",
          policies,
          ...Object.fromEntries(Object.entries(g).filter(([, v]) => v !== undefined && v !== null)),
        };
      };
      behavior.scaleUp = rules(
        behavior.scaleUp,
        [
          { type: "Pods", value: 4, periodSeconds: 15 },
          { type: "Percent", value: 100, periodSeconds: 15 },
        ],
        0,
      );
      behavior.scaleDown = rules(behavior.scaleDown, [{ type: "Percent", value: 100, periodSeconds: 15 }]);
    }
  },
};

type Open = Record<string, unknown>;

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
