// Defaulting of a pod spec and its containers, as the API server applies it to pods and to the
// pod templates of every workload kind (defaults.ts) and of Jobs and CronJobs (batch.ts).
import type { Container, PodSpec } from "../core/objects.js";

function defaultContainer(c: Container) {
  c.imagePullPolicy ??=
    String(c.image ?? "").endsWith(":latest") || !String(c.image ?? "").includes(":")
      ? "Always"
      : "IfNotPresent";
  c.terminationMessagePath ??= "/dev/termination-log";
  c.terminationMessagePolicy ??= "File";
  c.resources ??= {};
  for (const p of c.ports ?? []) p.protocol ??= "TCP";
  for (const probe of [c.readinessProbe, c.livenessProbe, c.startupProbe]) {
    if (!probe) continue;
    probe.timeoutSeconds ??= 1;
    probe.periodSeconds ??= 10;
    probe.successThreshold ??= 1;
    probe.failureThreshold ??= 3;
    if (probe.httpGet) probe.httpGet.scheme ??= "HTTP";
  }
  // requests default to limits when only limits are set
  if (c.resources.limits && !c.resources.requests) c.resources.requests = { ...c.resources.limits };
}

export function defaultPodSpec(spec: PodSpec | undefined) {
  if (!spec) return;
  spec.restartPolicy ??= "Always";
  spec.terminationGracePeriodSeconds ??= 30;
  spec.dnsPolicy ??= "ClusterFirst";
  spec.securityContext ??= {};
  spec.schedulerName ??= "default-scheduler";
  // v1 conversion (pkg/apis/core/v1/conversion.go): the deprecated serviceAccount fills an empty
  // serviceAccountName, and is written back as a copy of it
  if (!spec.serviceAccountName && spec.serviceAccount) spec.serviceAccountName = spec.serviceAccount;
  if (spec.serviceAccountName) spec.serviceAccount = spec.serviceAccountName;
  for (const c of [...(spec.containers ?? []), ...(spec.initContainers ?? [])]) defaultContainer(c);
  for (const v of spec.volumes ?? []) {
    if (v.configMap) v.configMap.defaultMode ??= 420;
    if (v.secret) v.secret.defaultMode ??= 420;
  }
}
