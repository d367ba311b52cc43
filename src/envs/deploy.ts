// Deploying a system into a namespace and restoring a service from its original manifest, on
// any cluster. The runner only touches namespaces it created (recorded in owned.ts, out of an
// agent's sight).
import type { V1PodTemplateSpec } from "@kubernetes/client-node";
import { MicroRemedError } from "../errors.js";
import type { KubeClient } from "../kube/client.js";
import type { Deployment, KObj } from "../kube/objects.js";
import type { Clock } from "../kube/time.js";
import { waitFor } from "../kube/wait.js";
import type { EnvSpec } from "./env.js";
import { allSettled, type HealthSnapshot, snapshot } from "./health.js";
import { ADOPT, isOwned, recordOwned } from "./owned.js";

/** The label of what the harness creates where no agent reads (Chaos Mesh's namespace). */
export const MANAGED_LABEL = "app.kubernetes.io/managed-by";
export const MANAGED_VALUE = "microremed";
const PROTECTED = new Set([
  "kube-system",
  "kube-public",
  "kube-node-lease",
  "default",
  "chaos-mesh",
  "chaos-testing",
]);

export async function ensureNamespace(
  client: KubeClient,
  namespace: string,
  env: string,
): Promise<"created" | "existing"> {
  if (PROTECTED.has(namespace))
    throw new MicroRemedError(
      "E_FORBIDDEN_NAMESPACE",
      `namespace "${namespace}" is not one MicroRemed may use`,
      "pass --namespace with a namespace of its own, e.g. the env's name",
    );
  const live = await client.tryGet("v1", "Namespace", undefined, namespace);
  if (live) {
    if (!(await isOwned(client, namespace)))
      throw new MicroRemedError(
        "E_FORBIDDEN_NAMESPACE",
        `namespace "${namespace}" exists and was not deployed by MicroRemed`,
        `pick another --namespace, or record it as MicroRemed's if it is yours: ${ADOPT(namespace, env)}`,
      );
    if (live.metadata.deletionTimestamp)
      throw new MicroRemedError(
        "E_CLUSTER",
        `namespace "${namespace}" is being deleted`,
        "wait until it is gone, then run again",
      );
    return "existing";
  }
  // recorded before the namespace exists, so a namespace of ours is never unrecorded
  await recordOwned(client, namespace, env);
  await client.create({ apiVersion: "v1", kind: "Namespace", metadata: { name: namespace } });
  return "created";
}

export async function applyAll(client: KubeClient, objs: KObj[], namespace: string): Promise<void> {
  for (const o of objs) await client.apply(o, namespace);
}

export async function waitHealthy(
  client: KubeClient,
  time: Clock,
  namespace: string,
  timeoutSeconds: number,
  signal?: AbortSignal,
  pollSeconds = 10,
): Promise<HealthSnapshot> {
  const r = await waitFor({
    client,
    time,
    signal,
    timeoutMs: timeoutSeconds * 1000,
    pollMs: pollSeconds * 1000,
    watch: [
      { apiVersion: "apps/v1", kind: "Deployment", namespace },
      { apiVersion: "apps/v1", kind: "StatefulSet", namespace },
    ],
    check: async () => {
      const s = await snapshot(client, namespace);
      return allSettled(s) ? s : undefined;
    },
  });
  if (!r.ok) {
    const s = await snapshot(client, namespace);
    const bad = s.filter((w) => !w.settled).map((w) => `${w.name} ${w.ready}/${w.replicas}`);
    throw new MicroRemedError(
      "E_TIMEOUT",
      `namespace ${namespace} did not become healthy within ${timeoutSeconds} s of cluster time (not ready: ${bad.join(", ") || "no workloads"})`,
      "check the cluster has room for the system (kubectl describe pods)",
    );
  }
  return r.value;
}

export async function deployEnv(
  client: KubeClient,
  time: Clock,
  env: EnvSpec,
  namespace: string,
  signal?: AbortSignal,
): Promise<HealthSnapshot> {
  await ensureNamespace(client, namespace, env.name);
  await applyAll(client, env.manifests, namespace);
  return waitHealthy(client, time, namespace, env.readyTimeoutSeconds, signal);
}

const IGNORED_TEMPLATE_ANNOTATIONS = ["kubectl.kubernetes.io/restartedAt"];

/** Whether `have` states everything `want` states (the API adds defaults; that is no difference). */
function covers(want: unknown, have: unknown): boolean {
  if (Array.isArray(want))
    return Array.isArray(have) && want.length === have.length && want.every((w, i) => covers(w, have[i]));
  if (want && typeof want === "object") {
    if (!have || typeof have !== "object") return false;
    return Object.entries(want).every(([k, v]) => covers(v, (have as Record<string, unknown>)[k]));
  }
  return want === have || (typeof want === "number" && String(want) === String(have));
}

// what a change may add to a pod template that the source lacks (a probe, a command, an init
// container, a sidecar, a nodeSelector): `covers` reads only the source's fields, and the API
// server's defaults make a plain two-way comparison useless
const CONTAINER_ADDITIONS = [
  "command",
  "args",
  "livenessProbe",
  "readinessProbe",
  "startupProbe",
  "lifecycle",
] as const;
const POD_ADDITIONS = ["nodeSelector", "affinity", "tolerations", "nodeName"] as const;

function added(want: V1PodTemplateSpec, live: V1PodTemplateSpec): boolean {
  const names = (cs?: { name: string }[]) => (cs ?? []).map((c) => c.name).join(",");
  if (names(want.spec?.containers) !== names(live.spec?.containers)) return true;
  if (names(want.spec?.initContainers) !== names(live.spec?.initContainers)) return true;
  if (POD_ADDITIONS.some((k) => live.spec?.[k] !== undefined && want.spec?.[k] === undefined)) return true;
  return (live.spec?.containers ?? []).some((c, i) => {
    const w = want.spec?.containers?.[i];
    if (CONTAINER_ADDITIONS.some((k) => c[k] !== undefined && w?.[k] === undefined)) return true;
    // an entry added to the environment, a second one of the same name among them
    const env = (x?: { env?: { name: string }[] }) => (x?.env ?? []).map((e) => e.name).join(",");
    return env(c) !== env(w);
  });
}

/** The live Deployment no longer is what the source manifest says (replicas, strategy, template). */
export function differs(source: Deployment, live: Deployment): boolean {
  if ((source.spec?.replicas ?? 1) !== (live.spec?.replicas ?? 1)) return true;
  // a fault that switched to Recreate (the expert tier's) must not outlive its case
  if ((source.spec?.strategy?.type ?? "RollingUpdate") !== (live.spec?.strategy?.type ?? "RollingUpdate"))
    return true;
  const liveTemplate = structuredClone(live.spec?.template ?? {});
  const ann = liveTemplate.metadata?.annotations;
  if (ann) for (const k of IGNORED_TEMPLATE_ANNOTATIONS) delete ann[k];
  const wantTemplate = source.spec?.template ?? {};
  // both directions for containers' resources: a limit the source lacks is a change too
  const res = (t: V1PodTemplateSpec) => (t.spec?.containers ?? []).map((c) => c.resources ?? {});
  return (
    !covers(wantTemplate, liveTemplate) ||
    !covers(res(liveTemplate), res(wantTemplate)) ||
    added(wantTemplate, liveTemplate) ||
    Object.keys(ann ?? {}).length !== Object.keys(wantTemplate.metadata?.annotations ?? {}).length
  );
}

/** Put a service back as its original manifest says (only if it differs), then wait until healthy. */
export async function restoreService(
  client: KubeClient,
  time: Clock,
  source: KObj,
  namespace: string,
  timeoutSeconds: number,
  signal?: AbortSignal,
): Promise<"unchanged" | "restored"> {
  const live = await client.tryGet<Deployment>("apps/v1", "Deployment", namespace, source.metadata.name!);
  let result: "unchanged" | "restored" = "unchanged";
  if (!live || differs(source as Deployment, live)) {
    await client.apply(source, namespace);
    result = "restored";
  }
  await waitHealthy(client, time, namespace, timeoutSeconds, signal);
  return result;
}
