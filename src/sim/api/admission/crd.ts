// CustomResourceDefinitions on write: the defaults apiextensions sets (names.singular and
// listKind, conversion None) and the checks that keep a CRD servable (apiextensions-apiserver
// pkg/apis/apiextensions/validation/validation.go: the name is plural.group, exactly one
// storage version, a known scope).

import type { CrdNames, CrdSpec, CrdVersion } from "../../core/objects.js";
import type { AdmissionRequest } from "../registry.js";
import { invalid, type StatusCause } from "../status.js";

/** A CRD's spec as a client sent it: any field may be missing, which is what admission checks. */
type OpenCrdSpec = Omit<Partial<CrdSpec>, "names" | "versions"> & {
  names?: Partial<CrdNames>;
  versions?: unknown;
};

export function crdAdmission(req: AdmissionRequest): void {
  if (req.rt.kind !== "CustomResourceDefinition" || req.subresource === "status") return;
  const crd = req.obj;
  crd.spec ??= {};
  const spec = crd.spec as OpenCrdSpec;
  spec.names ??= {};
  const names: Partial<CrdNames> = spec.names;
  if (names.kind) {
    names.singular ??= String(names.kind).toLowerCase();
    names.listKind ??= `${names.kind}List`;
  }
  spec.conversion ??= { strategy: "None" };
  const causes: StatusCause[] = [];
  const name = crd.metadata.name ?? "";
  if (!names.plural)
    causes.push({ field: "spec.names.plural", reason: "FieldValueRequired", message: "Required value" });
  if (!names.kind)
    causes.push({ field: "spec.names.kind", reason: "FieldValueRequired", message: "Required value" });
  if (!spec.group)
    causes.push({ field: "spec.group", reason: "FieldValueRequired", message: "Required value" });
  else if (names.plural && name !== `${names.plural}.${spec.group}`)
    causes.push({
      field: "metadata.name",
      message: `Invalid value: "${name}": must be spec.names.plural+"."+spec.group`,
    });
  if (spec.scope !== "Namespaced" && spec.scope !== "Cluster")
    causes.push({
      field: "spec.scope",
      reason: "FieldValueNotSupported",
      message: `Unsupported value: "${spec.scope ?? ""}": supported values: "Cluster", "Namespaced"`,
    });
  const versions: (Partial<CrdVersion> | null | undefined)[] = Array.isArray(spec.versions)
    ? spec.versions
    : [];
  if (!versions.length)
    causes.push({
      field: "spec.versions",
      reason: "FieldValueInvalid",
      message: "Invalid value: null: must have exactly one version marked as storage version",
    });
  else if (versions.filter((v) => v?.storage).length !== 1)
    causes.push({
      field: "spec.versions",
      message: `Invalid value: ${JSON.stringify(versions.map((v) => v?.name))}: must have exactly one version marked as storage version`,
    });
  if (causes.length) throw invalid("CustomResourceDefinition.apiextensions.k8s.io", name, causes);
}
