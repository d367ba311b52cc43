// The admission chain of the embedded API server, in kube-apiserver's order: the mutating
// plugins, then what Go's encoder drops when the object is stored.
import type { Registry } from "../registry.js";
import { crdAdmission } from "./crd.js";
import { customResourceAdmission } from "./custom.js";
import { dropEmpty } from "./omitempty.js";
import { defaultTolerationSeconds, serviceAccountAdmission } from "./pods.js";

export function installAdmission(registry: Registry): void {
  const { store, custom } = registry;
  registry.admission.push(
    crdAdmission,
    customResourceAdmission(store, custom),
    serviceAccountAdmission(store),
    defaultTolerationSeconds,
    (req) => dropEmpty(req.rt, req.obj),
  );
}
