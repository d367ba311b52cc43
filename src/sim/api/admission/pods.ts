// Admission for pods, as kube-apiserver's plugins do it on create:
// - ServiceAccount (plugin/pkg/admission/serviceaccount/admission.go): a pod runs as
//   `default` unless it names another account, and naming one that does not exist is refused.
// - DefaultTolerationSeconds (plugin/pkg/admission/defaulttolerationseconds): pods tolerate the
//   not-ready and unreachable NoExecute taints for 300 s unless they already say otherwise.
import type { Store } from "../../store/store.js";
import type { KObject } from "../../types.js";
import type { AdmissionRequest } from "../registry.js";
import { resourceOfKind } from "../resources.js";
import { ApiError } from "../status.js";

// biome-ignore lint/suspicious/noExplicitAny: open JSON
type J = any;

const SA_RT = resourceOfKind("ServiceAccount")!;
const NS_RT = resourceOfKind("Namespace")!;

/** The name admission errors show: generation has not happened yet, so generateName if set. */
function shownName(pod: KObject): string {
  return pod.metadata.generateName ?? pod.metadata.name ?? "Unknown";
}

export function serviceAccountAdmission(store: Store) {
  return (req: AdmissionRequest) => {
    if (req.operation !== "CREATE" || req.rt.kind !== "Pod" || req.subresource) return;
    const pod = req.obj;
    pod.spec ??= {};
    const spec: J = pod.spec;
    spec.serviceAccountName ||= spec.serviceAccount || "default";
    spec.serviceAccount = spec.serviceAccountName;
    const ns = pod.metadata.namespace!;
    const name: string = spec.serviceAccountName;
    if (store.get(SA_RT, ns, name)) return;
    // The real plugin retries `default` for a while, long enough for the ServiceAccount
    // controller to create it in a new namespace: here that controller is never later than that.
    const nsObj = store.get(NS_RT, undefined, ns);
    if (name === "default" && nsObj && !nsObj.metadata.deletionTimestamp) return;
    throw new ApiError(
      403,
      "Forbidden",
      `pods "${shownName(pod)}" is forbidden: error looking up service account ${ns}/${name}: serviceaccount "${name}" not found`,
      { name: shownName(pod), kind: "pods" },
    );
  };
}

const NOT_READY = "node.kubernetes.io/not-ready";
const UNREACHABLE = "node.kubernetes.io/unreachable";

export function defaultTolerationSeconds(req: AdmissionRequest): void {
  if (req.operation !== "CREATE" || req.rt.kind !== "Pod" || req.subresource) return;
  req.obj.spec ??= {};
  const spec: J = req.obj.spec;
  const tolerations: J[] = spec.tolerations ?? [];
  const covers = (key: string) =>
    tolerations.some((t) => (t.key === key || !t.key) && (t.effect === "NoExecute" || !t.effect));
  const add = (key: string) => ({ key, operator: "Exists", effect: "NoExecute", tolerationSeconds: 300 });
  const added = [NOT_READY, UNREACHABLE].filter((k) => !covers(k)).map(add);
  if (added.length) spec.tolerations = [...tolerations, ...added];
}
