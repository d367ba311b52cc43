// Admission for custom resources: the CRD's structural schema prunes, defaults and validates
// what is written (apiextensions-apiserver's decoder and validator), and a CRD being deleted takes no new objects
// (customresource_handler.go: "create not allowed while custom resource definition is terminating").
import type { Store } from "../../store/store.js";
import type { CustomCatalog } from "../crd/catalog.js";
import { structural } from "../crd/schema.js";
import { validateCustom } from "../crd/validate.js";
import type { AdmissionRequest } from "../registry.js";
import { resourceOfKind } from "../resources.js";
import { ApiError } from "../status.js";

const CRD_RT = resourceOfKind("CustomResourceDefinition")!;

export function customResourceAdmission(store: Store, catalog: CustomCatalog) {
  return (req: AdmissionRequest) => {
    const served = catalog.served(req.rt);
    if (!served) return;
    if (req.operation === "CREATE" && store.get(CRD_RT, undefined, served.crd)?.metadata.deletionTimestamp)
      throw new ApiError(
        405,
        "MethodNotAllowed",
        "create not allowed while custom resource definition is terminating",
      );
    structural(req.obj, served.schema);
    if (req.subresource === "status" && req.old) return; // what /status may not change is the old object's
    const causes = validateCustom(req.obj, served.schema);
    if (!causes.length) return;
    // field.ErrorList.ToAggregate(): one error as is, several in brackets
    const list = causes.map((c) => `${c.field}: ${c.message}`);
    const rt = req.rt;
    const name = req.obj.metadata.name ?? "";
    throw new ApiError(
      422,
      "Invalid",
      `${rt.kind}.${rt.group} "${name}" is invalid: ${list.length === 1 ? list[0] : `[${list.join(", ")}]`}`,
      {
        name,
        group: rt.group,
        kind: rt.kind,
        causes: causes.map((c) => ({
          reason: c.reason ?? "FieldValueInvalid",
          message: c.message,
          field: c.field,
        })),
      },
    );
  };
}
