// Validation the API server does before storing: names, required fields, immutable fields.

import { parseQuantity } from "../../util/quantity.js";
import type { Container, Deployment, Pod, PodSpec, PodTemplate, Service } from "../core/objects.js";
import type { KObject } from "../core/types.js";
import { batchCauses, batchUpdateCauses } from "./batch.js";
import { type LabelSelectorSpec, selectorMatches } from "./selectors.js";
import { invalid, type StatusCause } from "./status.js";
import { hpaCauses } from "./validate-autoscaling.js";
import { endpointSliceCauses, networkPolicyCauses } from "./validate-networking.js";
import { RBAC_KINDS, rbacNameCauses, validateRbac, validateRbacUpdate } from "./validate-rbac.js";

const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

/** "Deployment.apps", "Pod": the kind as kube-apiserver qualifies it in Invalid errors. */
function qualifiedKind(o: KObject): string {
  const slash = o.apiVersion?.indexOf("/") ?? -1;
  return slash > 0 ? `${o.kind}.${o.apiVersion.slice(0, slash)}` : o.kind;
}

/** Kinds whose names must be DNS-1123 labels (they become DNS names). */
const LABEL_NAMED = new Set(["Namespace", "Service"]);

export function validateName(kind: string, name: string | undefined): StatusCause[] {
  if (!name)
    return [
      {
        field: "metadata.name",
        reason: "FieldValueRequired",
        message: "Required value: name or generateName is required",
      },
    ];
  if (RBAC_KINDS.has(kind)) return rbacNameCauses(name);
  // kube-aggregator names APIServices version.group, "v1." for the core group
  if (kind === "APIService" && /^v[0-9a-z]+\.[a-z0-9.-]*$/.test(name)) return [];
  const label = LABEL_NAMED.has(kind);
  const ok = label
    ? DNS1123_LABEL.test(name) && name.length <= 63
    : DNS1123_SUBDOMAIN.test(name) && name.length <= 253;
  if (ok || kind === "Event") return [];
  return [
    {
      field: "metadata.name",
      message: `Invalid value: "${name}": a lowercase RFC 1123 ${label ? "label" : "subdomain"} must consist of lower case alphanumeric characters, '-'${label ? "" : " or '.'"}, and must start and end with an alphanumeric character`,
    },
  ];
}

function validateLabels(labels: Record<string, string> | undefined, field: string): StatusCause[] {
  return Object.entries(labels ?? {})
    .filter(([, v]) => typeof v !== "string" || v.length > 63 || !LABEL_VALUE.test(v))
    .map(([k, v]) => ({
      field: `${field}.${k}`,
      message: `Invalid value: "${v}": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character`,
    }));
}

function validatePodSpec(spec: PodSpec | undefined, field: string): StatusCause[] {
  const causes: StatusCause[] = [];
  if (!spec || !Array.isArray(spec.containers) || spec.containers.length === 0) {
    return [{ field: `${field}.containers`, reason: "FieldValueRequired", message: "Required value" }];
  }
  const seen = new Set<string>();
  spec.containers.forEach((c: Container, i: number) => {
    if (!c?.name)
      causes.push({
        field: `${field}.containers[${i}].name`,
        reason: "FieldValueRequired",
        message: "Required value",
      });
    else if (seen.has(c.name))
      causes.push({
        field: `${field}.containers[${i}].name`,
        reason: "FieldValueDuplicate",
        message: `Duplicate value: "${c.name}"`,
      });
    else seen.add(c.name);
    if (!c?.image)
      causes.push({
        field: `${field}.containers[${i}].image`,
        reason: "FieldValueRequired",
        message: "Required value",
      });
    for (const [res, q] of Object.entries(c?.resources?.requests ?? {})) {
      const lim = c.resources?.limits?.[res];
      if (lim !== undefined && parseQuantity(String(q)) > parseQuantity(String(lim)))
        causes.push({
          field: `${field}.containers[${i}].resources.requests`,
          message: `Invalid value: "${q}": must be less than or equal to ${res} limit of ${lim}`,
        });
    }
  });
  return causes;
}

/** What validation reads of a Deployment, ReplicaSet, StatefulSet or DaemonSet as a client sent it. */
interface Workload extends KObject {
  spec?: { selector?: LabelSelectorSpec; replicas?: unknown; template?: PodTemplate };
}

const selectorOf = (o: KObject) => (o as Workload).spec?.selector;

function validateWorkload(obj: KObject): StatusCause[] {
  const o = obj as Workload;
  const causes: StatusCause[] = [];
  if (!o.spec?.selector)
    causes.push({ field: "spec.selector", reason: "FieldValueRequired", message: "Required value" });
  else if (!selectorMatches(o.spec.selector, o.spec.template?.metadata?.labels))
    causes.push({
      field: "spec.template.metadata.labels",
      message: `Invalid value: ${JSON.stringify(o.spec.template?.metadata?.labels ?? {})}: \`selector\` does not match template \`labels\``,
    });
  if (typeof o.spec?.replicas === "number" && o.spec.replicas < 0)
    causes.push({
      field: "spec.replicas",
      message: `Invalid value: ${o.spec.replicas}: must be greater than or equal to 0`,
    });
  causes.push(...validatePodSpec(o.spec?.template?.spec, "spec.template.spec"));
  return causes;
}

/**
 * A Deployment's strategy (pkg/apis/apps/validation ValidateDeploymentStrategy): Recreate takes
 * no rollingUpdate, so a patch that switches the type must also drop the block the API server
 * defaulted (`rollingUpdate: null`, or `$retainKeys`).
 */
function validateStrategy(obj: KObject): StatusCause[] {
  const strategy = (obj as Deployment).spec?.strategy;
  if (strategy?.type !== "Recreate" || strategy.rollingUpdate == null) return [];
  return [
    {
      field: "spec.strategy.rollingUpdate",
      reason: "FieldValueForbidden",
      message: "Forbidden: may not be specified when strategy `type` is 'Recreate'",
    },
  ];
}

const VALIDATORS: Record<string, (o: KObject) => StatusCause[]> = {
  Pod: (o) => validatePodSpec((o as Partial<Pod>).spec, "spec"),
  Deployment: (o) => [...validateWorkload(o), ...validateStrategy(o)],
  ReplicaSet: validateWorkload,
  StatefulSet: validateWorkload,
  DaemonSet: validateWorkload,
  Job: batchCauses,
  CronJob: batchCauses,
  NetworkPolicy: networkPolicyCauses,
  EndpointSlice: endpointSliceCauses,
  HorizontalPodAutoscaler: hpaCauses,
};

export function validate(obj: KObject): void {
  const causes = [
    ...validateName(obj.kind, obj.metadata.name),
    ...validateLabels(obj.metadata.labels, "metadata.labels"),
    ...(VALIDATORS[obj.kind]?.(obj) ?? []),
    ...validateRbac(obj),
  ];
  if (causes.length) throw invalid(qualifiedKind(obj), obj.metadata.name ?? "", causes);
}

/** Fields that may not change on update. */
export function validateUpdate(old: KObject, next: KObject): void {
  const causes: StatusCause[] = [];
  if (
    ["Deployment", "ReplicaSet", "StatefulSet", "DaemonSet"].includes(old.kind) &&
    JSON.stringify(selectorOf(old)) !== JSON.stringify(selectorOf(next))
  )
    causes.push({
      field: "spec.selector",
      message: `Invalid value: ${JSON.stringify(selectorOf(next))}: field is immutable`,
    });
  if (old.kind === "Service") {
    const [a, b] = [(old as Partial<Service>).spec?.clusterIP, (next as Partial<Service>).spec?.clusterIP];
    if (a && b && a !== b)
      causes.push({ field: "spec.clusterIP", message: "Invalid value: field is immutable" });
  }
  if (old.kind === "Pod" && !podUpdateAllowed((old as Partial<Pod>).spec, (next as Partial<Pod>).spec))
    causes.push({
      field: "spec",
      reason: "FieldValueForbidden",
      message:
        "Forbidden: pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)",
    });
  causes.push(...validateRbacUpdate(old, next));
  causes.push(...batchUpdateCauses(old, next));
  if (causes.length) throw invalid(qualifiedKind(old), old.metadata.name ?? "", causes);
}

function podUpdateAllowed(a: PodSpec | undefined, b: PodSpec | undefined): boolean {
  const strip = (s: PodSpec | undefined) => {
    const c: Partial<PodSpec> = structuredClone(s ?? {});
    for (const x of [...(c.containers ?? []), ...(c.initContainers ?? [])]) delete x.image;
    delete c.activeDeadlineSeconds;
    delete c.tolerations;
    delete c.terminationGracePeriodSeconds;
    delete c.nodeName; // set through binding
    return JSON.stringify(c);
  };
  return strip(a) === strip(b);
}
