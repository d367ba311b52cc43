// Running an incident scenario's steps (incident.ts) in a namespace, in order, recording what each
// one touched, so that the restore puts exactly that back: created objects deleted, changed or
// deleted ones written back from the system's manifests, and the pods of a service a command ran
// in replaced, so that runtime state (a store's CONFIG SET) goes with them.
import { waitHealthy } from "../envs/deploy.js";
import { MicroRemedError } from "../errors.js";
import type { KubeClient } from "../kube/client.js";
import { execIn } from "../kube/exec.js";
import type { Deployment, KObj, Pod } from "../kube/objects.js";
import type { Clock } from "../kube/time.js";
import type { ObjectRef, Scenario, Step } from "./incident.js";
import { causeRef, type Injection, type Touched } from "./injection.js";

/** The API group and version of the kinds a step may name (created objects carry their own). */
const API_VERSION: Record<string, string> = {
  Deployment: "apps/v1",
  StatefulSet: "apps/v1",
  DaemonSet: "apps/v1",
  Service: "v1",
  ConfigMap: "v1",
  Secret: "v1",
  Pod: "v1",
  ServiceAccount: "v1",
  LimitRange: "v1",
  ResourceQuota: "v1",
  NetworkPolicy: "networking.k8s.io/v1",
  CronJob: "batch/v1",
  Job: "batch/v1",
  HorizontalPodAutoscaler: "autoscaling/v2",
  Role: "rbac.authorization.k8s.io/v1",
  RoleBinding: "rbac.authorization.k8s.io/v1",
};

export function apiVersionOf(kind: string): string {
  const v = API_VERSION[kind];
  if (!v)
    throw new MicroRemedError(
      "E_CONFIG",
      `an incident step names kind ${kind}, which the steps do not know`,
      `use one of: ${Object.keys(API_VERSION).join(", ")}, or add it to src/faults/steps.ts`,
    );
  return v;
}

const LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration";
const UNSAFE = new Set(["__proto__", "constructor", "prototype"]);

const named = (xs: unknown[]) =>
  xs.every((x) => x !== null && typeof x === "object" && typeof (x as { name?: unknown }).name === "string");

/**
 * A manifest with a change merged in, as a developer edits the file: objects field by field (a
 * null removes the field), lists of named items (containers, env, ports, volumes) by name, any
 * other list replaced.
 */
export function mergeManifest(base: unknown, change: unknown): unknown {
  if (Array.isArray(base) && Array.isArray(change) && named(base) && named(change)) {
    const out = base.map((b) => {
      const c = change.find((x) => (x as { name: string }).name === (b as { name: string }).name);
      return c ? mergeManifest(b, c) : b;
    });
    for (const c of change)
      if (!base.some((b) => (b as { name: string }).name === (c as { name: string }).name))
        out.push(withoutNulls(c));
    return out;
  }
  if (
    base &&
    change &&
    typeof base === "object" &&
    typeof change === "object" &&
    !Array.isArray(base) &&
    !Array.isArray(change)
  ) {
    const out: Record<string, unknown> = { ...(base as Record<string, unknown>) };
    for (const [k, v] of Object.entries(change)) {
      if (UNSAFE.has(k)) continue;
      // a null removes the field, as a JSON merge patch does (RFC 7386): an edit that drops a line
      if (v === null) delete out[k];
      else out[k] = mergeManifest(out[k], v);
    }
    return out;
  }
  if (change === undefined) return base;
  // what the file did not have is written as the change gives it, less the fields it nulls (an
  // env entry added with `value: null` beside its valueFrom, on a system whose manifest lacks it)
  return base === undefined ? withoutNulls(change) : change;
}

function withoutNulls(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(withoutNulls);
  if (v && typeof v === "object")
    return Object.fromEntries(
      Object.entries(v)
        .filter(([k, x]) => x !== null && !UNSAFE.has(k))
        .map(([k, x]) => [k, withoutNulls(x)]),
    );
  return v;
}

/** What the steps run with: the cluster, its clock, the namespace and the system's manifests. */
export interface StepScope {
  client: KubeClient;
  time: Clock;
  namespace: string;
  manifests: KObj[];
  readyTimeoutSeconds: number;
  signal?: AbortSignal;
  /**
   * Whether users' requests fail now (the system's user check), read after each `ready` step so
   * that the incident's onset is known: a cause that broke users hours before the last step is
   * what monitoring alerted on then, not at the end of the story.
   */
  usersFail?: () => Promise<boolean | undefined>;
}

/** The manifest an object was deployed from: its last-applied record, else the system's manifest. */
async function deployedManifest(s: StepScope, kind: string, name: string): Promise<KObj> {
  const live = await s.client.tryGet(apiVersionOf(kind), kind, s.namespace, name);
  const text = live?.metadata.annotations?.[LAST_APPLIED];
  if (text) return JSON.parse(text) as KObj;
  const m = s.manifests.find((x) => x.kind === kind && x.metadata?.name === name);
  if (!m)
    throw new MicroRemedError(
      "E_CONFIG",
      `an incident step applies a change to ${kind} ${name}, which the system does not deploy`,
      "name an object of the system's manifests in the scenario's params",
    );
  return m;
}

/** A Running pod of a service (label app=<name>). */
async function podOf(s: StepScope, app: string): Promise<Pod> {
  const pods = await s.client.list<Pod>("v1", "Pod", s.namespace, `app=${app}`);
  const pod = pods.find((p) => p.status?.phase === "Running" && !p.metadata.deletionTimestamp);
  if (!pod)
    throw new MicroRemedError("E_CLUSTER", `no running pod of ${app} in ${s.namespace} for an incident step`);
  return pod;
}

/** `count` Running pods of a service, the first by name; fewer than that is an error. */
async function podsOf(s: StepScope, app: string, count: number): Promise<Pod[]> {
  const pods = (await s.client.list<Pod>("v1", "Pod", s.namespace, `app=${app}`))
    .filter((p) => p.status?.phase === "Running" && !p.metadata.deletionTimestamp)
    .sort((a, b) => a.metadata.name!.localeCompare(b.metadata.name!));
  if (pods.length < count)
    throw new MicroRemedError(
      "E_CLUSTER",
      `an incident step deletes ${count} pods of ${app} in ${s.namespace}, which runs ${pods.length}`,
    );
  return pods.slice(0, count);
}

/** One step; returns what it touched. */
async function runStep(s: StepScope, step: Step): Promise<Touched[]> {
  const { client, namespace } = s;
  switch (step.do) {
    case "create": {
      const out: Touched[] = [];
      for (const o of step.objects) {
        const obj = { ...o, metadata: { ...o.metadata, namespace } };
        await client.create(obj, namespace);
        out.push({ apiVersion: obj.apiVersion, kind: obj.kind, name: obj.metadata.name!, action: "created" });
      }
      return out;
    }
    case "patch": {
      const apiVersion = apiVersionOf(step.kind);
      await client.patch(apiVersion, step.kind, namespace, step.name, step.patch, step.type ?? "strategic");
      return [{ apiVersion, kind: step.kind, name: step.name, action: "patched" }];
    }
    case "apply": {
      const apiVersion = apiVersionOf(step.kind);
      const base = await deployedManifest(s, step.kind, step.name);
      await client.apply(mergeManifest(base, step.patch) as KObj, namespace);
      return [{ apiVersion, kind: step.kind, name: step.name, action: "patched" }];
    }
    case "delete": {
      const apiVersion = apiVersionOf(step.kind);
      await client.delete(apiVersion, step.kind, namespace, step.name);
      return [{ apiVersion, kind: step.kind, name: step.name, action: "deleted" }];
    }
    case "wait":
      await s.time.sleep(step.seconds * 1000, s.signal);
      return [];
    case "ready":
      await waitHealthy(client, s.time, namespace, s.readyTimeoutSeconds, s.signal);
      return [];
    case "delete-pod": {
      // one pod (the first Running one), or `count` of them, the first by name: which pods a
      // partial restart leaves running is part of the story, and the same on every run
      const pods = step.count ? await podsOf(s, step.app, step.count) : [await podOf(s, step.app)];
      for (const pod of pods) await client.delete("v1", "Pod", namespace, pod.metadata.name!);
      return [];
    }
    case "exec": {
      const pod = await podOf(s, step.app);
      const container = step.container ?? pod.spec?.containers?.[0]?.name ?? step.app;
      const r = await execIn(client, namespace, pod.metadata.name!, container, step.command);
      if (r.exitCode !== 0)
        throw new MicroRemedError(
          "E_CLUSTER",
          `incident step exec in ${pod.metadata.name}: ${step.command.join(" ")} exited with code ${r.exitCode}: ${(r.message ?? r.stderr).trim()}`,
        );
      return [{ apiVersion: "apps/v1", kind: "Deployment", name: step.app, action: "replaced" }];
    }
  }
}

/**
 * The steps in order. What they touched is handed to `onTouched` as each step ends, so that a
 * step that fails halfway leaves the restore a full record of what came before it.
 */
export async function runSteps(
  s: StepScope,
  steps: Step[],
  onTouched: (t: Touched[], step: Step) => void | Promise<void>,
): Promise<void> {
  for (const step of steps) await onTouched(await runStep(s, step), step);
}

/** Each object once, the first record of it deciding (a created object is deleted whatever came after). */
export function distinctTouched(ts: Touched[]): Touched[] {
  const seen = new Map<string, Touched>();
  for (const t of ts) if (!seen.has(`${t.kind}/${t.name}`)) seen.set(`${t.kind}/${t.name}`, t);
  return [...seen.values()];
}

/**
 * Put back what the steps touched: created objects deleted, changed or deleted ones written back
 * from the system's manifests (a Deployment's as `kubectl apply`, so its last-applied is the
 * deployed one again), and the pods of a service a command ran in replaced; then every workload
 * Ready.
 */
export async function restoreSteps(s: StepScope, touched: Touched[]): Promise<void> {
  const { client, namespace } = s;
  for (const t of distinctTouched(touched)) {
    if (t.action === "created") {
      await client.delete(t.apiVersion, t.kind, namespace, t.name).catch(() => undefined);
      continue;
    }
    const original = s.manifests.find((m) => m.kind === t.kind && m.metadata?.name === t.name);
    if (original) await client.apply(original, namespace);
  }
  // a Deployment whose pods admission refused (a LimitRange, a quota) is rolled too: its ReplicaSet
  // would otherwise wait out the controller's back-off (up to 1000 s) before trying again
  const refused = (await client.list<Deployment>("apps/v1", "Deployment", namespace))
    .filter((d) => d.status?.conditions?.some((c) => c.type === "ReplicaFailure" && c.status === "True"))
    .map((d) => d.metadata.name!);
  const replaced = distinctTouched(touched)
    .filter((x) => x.action === "replaced")
    .map((x) => x.name);
  for (const name of new Set([...replaced, ...refused])) {
    const d = await client.tryGet<Deployment>("apps/v1", "Deployment", namespace, name);
    if (!d) continue;
    const at = { "kubectl.kubernetes.io/restartedAt": new Date(await s.time.clusterNow()).toISOString() };
    await client.patch(
      "apps/v1",
      "Deployment",
      namespace,
      name,
      { spec: { template: { metadata: { annotations: at } } } },
      "strategic",
    );
  }
  await waitHealthy(client, s.time, namespace, s.readyTimeoutSeconds, s.signal);
}

/** An object a cause or step names, as "Kind/name". */
export const refLabel = (r: ObjectRef) => `${r.kind}/${r.name}`;

/**
 * An incident's injection: its steps run in order (a step that fails puts back what came before
 * it, then the error goes on), recorded with everything they touched and the scenario's causes.
 */
export async function injectIncident(s: StepScope, scenario: Scenario, alert: string): Promise<Injection> {
  const touched: Touched[] = [];
  const readings: Reading[] = [];
  try {
    await runSteps(s, scenario.steps, async (t, step) => {
      touched.push(...t);
      if (step.do !== "ready" || !s.usersFail) return;
      const failing = await s.usersFail();
      if (failing !== undefined) readings.push({ at: await s.time.clusterNow(), failing });
    });
  } catch (e) {
    await restoreSteps(s, touched).catch(() => undefined);
    throw e;
  }
  const onsetMs = onsetOf(readings);
  return {
    failure: scenario.id,
    namespace: s.namespace,
    target: alert,
    touched,
    causes: scenario.causes.map(causeRef),
    ...(onsetMs !== undefined ? { onsetMs } : {}),
  };
}

type Reading = { at: number; failing: boolean };

/**
 * When users' requests began to fail for good: the first reading from which every later one
 * failed too (a failure that passed again was a rollout's moment, not the incident), or none when
 * the last reading passed (the story ends before its symptom shows).
 */
export function onsetOf(readings: Reading[]): number | undefined {
  let onset: number | undefined;
  for (const r of readings) onset = r.failing ? (onset ?? r.at) : undefined;
  return onset;
}
