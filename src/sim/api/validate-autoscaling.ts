// Validation of HorizontalPodAutoscalers, as kube-apiserver does it
// (pkg/apis/autoscaling/validation/validation.go: validateHorizontalPodAutoscalerSpec,
// ValidateCrossVersionObjectReference, validateMetricTarget): the bounds a user patches.
import type { KObject } from "../core/types.js";
import type { StatusCause } from "./status.js";

type Open = Record<string, unknown>;
const obj = (v: unknown): Open => (v && typeof v === "object" && !Array.isArray(v) ? (v as Open) : {});

const invalid = (field: string, value: unknown, message: string): StatusCause => ({
  field,
  message: `Invalid value: ${typeof value === "string" ? JSON.stringify(value) : String(value)}: ${message}`,
});
const required = (field: string): StatusCause => ({
  field,
  reason: "FieldValueRequired",
  message: "Required value",
});

export function hpaCauses(o: KObject): StatusCause[] {
  const spec = obj((o as Open).spec);
  const causes: StatusCause[] = [];
  const min = spec.minReplicas;
  const max = typeof spec.maxReplicas === "number" ? spec.maxReplicas : 0;
  if (typeof min === "number" && min < 1)
    causes.push(invalid("spec.minReplicas", min, "must be greater than or equal to 1"));
  if (max < 1) causes.push(invalid("spec.maxReplicas", max, "must be greater than 0"));
  if (typeof min === "number" && max < min)
    causes.push(invalid("spec.maxReplicas", max, "must be greater than or equal to `minReplicas`"));
  const ref = obj(spec.scaleTargetRef);
  if (!ref.kind) causes.push(required("spec.scaleTargetRef.kind"));
  if (!ref.name) causes.push(required("spec.scaleTargetRef.name"));
  (Array.isArray(spec.metrics) ? spec.metrics : []).forEach((m, i) => {
    const target = obj(obj(obj(m).resource).target);
    const u = target.averageUtilization;
    if (typeof u === "number" && u < 1)
      causes.push(
        invalid(`spec.metrics[${i}].resource.target.averageUtilization`, u, "must be greater than 0"),
      );
  });
  return causes;
}
