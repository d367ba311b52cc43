// Admission for custom resources: the CRD's structural schema prunes and defaults what is
// written (apiextensions-apiserver's decoder), and a CRD being deleted takes no new objects
// (customresource_handler.go: "create not allowed while custom resource definition is terminating").
import type { Store } from "../../store/store.js";
import type { CustomCatalog } from "../crd/catalog.js";
import { structural } from "../crd/schema.js";
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
  };
}
