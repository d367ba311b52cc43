// The admission chain of the embedded API server, in kube-apiserver's order: the mutating
// plugins, then what Go's encoder drops when the object is stored; the validating plugins run
// after the object's own validation (registry.validating).
import type { Registry } from "../registry.js";
import { crdAdmission } from "./crd.js";
import { customResourceAdmission } from "./custom.js";
import { defaultLimitRange, limitRangerMutation, limitRangerValidation } from "./limitrange.js";
import { dropEmpty } from "./omitempty.js";
import { defaultTolerationSeconds, serviceAccountAdmission } from "./pods.js";
import { resourceQuotaAdmission, resourceQuotaDefaults } from "./quota.js";

export function installAdmission(registry: Registry): void {
  const { store, custom } = registry;
  registry.admission.push(
    crdAdmission,
    customResourceAdmission(store, custom),
    (req) => req.rt.kind === "LimitRange" && !req.subresource && defaultLimitRange(req.obj),
    resourceQuotaDefaults,
    limitRangerMutation(store),
    serviceAccountAdmission(store),
    defaultTolerationSeconds,
    (req) => dropEmpty(req.rt, req.obj),
  );
  registry.validating.push(limitRangerValidation(store), resourceQuotaAdmission(registry));
}
