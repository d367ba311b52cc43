// Admission for pods, as kube-apiserver's plugins do it on create:
// - ServiceAccount (plugin/pkg/admission/serviceaccount/admission.go): a pod runs as
//   `default` unless it names another account, naming one that does not exist is refused, and
//   the account's token is mounted as a projected volume.
// - DefaultTolerationSeconds (plugin/pkg/admission/defaulttolerationseconds): pods tolerate the
//   not-ready and unreachable NoExecute taints for 300 s unless they already say otherwise.

import type { Pod, PodSpec, ServiceAccount, Toleration, Volume, VolumeMount } from "../../core/objects.js";
import type { KObject } from "../../core/types.js";
import type { Store } from "../../store/store.js";
import type { AdmissionRequest } from "../registry.js";
import { resourceOfKind } from "../resources.js";
import { ApiError } from "../status.js";

const SA_RT = resourceOfKind("ServiceAccount")!;
const NS_RT = resourceOfKind("Namespace")!;

/** The name admission errors show: generation has not happened yet, so generateName if set. */
function shownName(pod: KObject): string {
  return pod.metadata.generateName ?? pod.metadata.name ?? "Unknown";
}

export function serviceAccountAdmission(store: Store) {
  return (req: AdmissionRequest) => {
    if (req.operation !== "CREATE" || req.rt.kind !== "Pod" || req.subresource) return;
    req.obj.spec ??= {};
    // a pod as sent may lack containers: validation, after admission, says so
    const pod = req.obj as Pod;
    const spec = pod.spec;
    spec.serviceAccountName ||= spec.serviceAccount || "default";
    spec.serviceAccount = spec.serviceAccountName;
    const ns = pod.metadata.namespace!;
    const name: string = spec.serviceAccountName;
    const sa = store.get(SA_RT, ns, name) as ServiceAccount | undefined;
    // The real plugin retries `default` for a while, long enough for the ServiceAccount
    // controller to create it in a new namespace: here that controller is never later than that.
    const nsObj = store.get(NS_RT, undefined, ns);
    if (sa || (name === "default" && nsObj && !nsObj.metadata.deletionTimestamp)) {
      mountToken(pod, sa);
      return;
    }
    throw new ApiError(
      403,
      "Forbidden",
      `pods "${shownName(pod)}" is forbidden: error looking up service account ${ns}/${name}: serviceaccount "${name}" not found`,
      { name: shownName(pod), kind: "pods" },
    );
  };
}

export const TOKEN_PATH = "/var/run/secrets/kubernetes.io/serviceaccount";
const NAME_CHARS = "bcdfghjklmnpqrstvwxz2456789"; // apimachinery's SimpleNameGenerator alphabet

/** A stable stand-in for the plugin's random volume suffix (the cluster's rng stream stays as it was). */
function suffix(key: string): string {
  let h = 2166136261;
  for (const c of key) h = Math.imul(h ^ c.charCodeAt(0), 16777619) >>> 0;
  let out = "";
  for (let i = 0; i < 5; i++, h = Math.floor(h / NAME_CHARS.length)) out += NAME_CHARS[h % NAME_CHARS.length];
  return out;
}

/**
 * The bound token volume (mountServiceAccountToken): a projected `kube-api-access-XXXXX` volume
 * with the token, the cluster CA and the namespace, mounted read-only in every container that
 * does not mount that path itself, unless automounting is off for the pod or its account.
 */
function mountToken(pod: Pod, sa: ServiceAccount | undefined): void {
  const spec = pod.spec;
  const automount = spec.automountServiceAccountToken ?? sa?.automountServiceAccountToken ?? true;
  if (!automount) return;
  const volumes: Volume[] = spec.volumes ?? [];
  const existing = volumes.find((v) => String(v.name).startsWith("kube-api-access-"));
  const volume = existing?.name ?? `kube-api-access-${suffix(`${pod.metadata.namespace}/${shownName(pod)}`)}`;
  let needed = false;
  for (const c of [...(spec.initContainers ?? []), ...(spec.containers ?? [])]) {
    if ((c.volumeMounts ?? []).some((m: VolumeMount) => m.mountPath === TOKEN_PATH)) continue;
    c.volumeMounts = [...(c.volumeMounts ?? []), { name: volume, readOnly: true, mountPath: TOKEN_PATH }];
    needed = true;
  }
  if (existing || !needed) return;
  spec.volumes = [
    ...volumes,
    {
      name: volume,
      projected: {
        sources: [
          { serviceAccountToken: { expirationSeconds: 3607, path: "token" } },
          { configMap: { name: "kube-root-ca.crt", items: [{ key: "ca.crt", path: "ca.crt" }] } },
          {
            downwardAPI: {
              items: [{ path: "namespace", fieldRef: { apiVersion: "v1", fieldPath: "metadata.namespace" } }],
            },
          },
        ],
        defaultMode: 420,
      },
    },
  ];
}

const NOT_READY = "node.kubernetes.io/not-ready";
const UNREACHABLE = "node.kubernetes.io/unreachable";

export function defaultTolerationSeconds(req: AdmissionRequest): void {
  if (req.operation !== "CREATE" || req.rt.kind !== "Pod" || req.subresource) return;
  req.obj.spec ??= {};
  const spec = req.obj.spec as PodSpec;
  const tolerations: Toleration[] = spec.tolerations ?? [];
  const covers = (key: string) =>
    tolerations.some((t) => (t.key === key || !t.key) && (t.effect === "NoExecute" || !t.effect));
  const add = (key: string) => ({ key, operator: "Exists", effect: "NoExecute", tolerationSeconds: 300 });
  const added = [NOT_READY, UNREACHABLE].filter((k) => !covers(k)).map(add);
  if (added.length) spec.tolerations = [...tolerations, ...added];
}
