// The expert tier's "rollout" symptom: the target's Deployment is back to serving as deployed —
// present, at least one replica, its latest spec rolled out (updated, ready and available match
// the replicas), and every pod Running and Ready with no container waiting (ErrImagePull,
// CrashLoopBackOff, Init:0/1, Pending). A pod that flaps between readings is the hold's to catch.
import type { Deployment, Pod } from "../kube/objects.js";
import { describePods, isReady, targetPods } from "./pods.js";
import type { Verdict, Verifier, VerifyContext } from "./types.js";
import { watchedVerifier } from "./watched.js";

/** What keeps a pod from serving, in kubectl's words (a container's waiting reason, Pending). */
function trouble(p: Pod): string | undefined {
  const cs = [...(p.status?.initContainerStatuses ?? []), ...(p.status?.containerStatuses ?? [])];
  const waiting = cs.map((c) => c.state?.waiting?.reason).find(Boolean);
  if (waiting) return `${p.metadata.name} ${waiting}`;
  if (!isReady(p)) return `${p.metadata.name} ${p.status?.phase ?? "?"}, not Ready`;
  return undefined;
}

async function read(ctx: VerifyContext): Promise<Verdict> {
  const d = await ctx.client.tryGet<Deployment>("apps/v1", "Deployment", ctx.namespace, ctx.service);
  if (!d) return { pass: false, reason: `Deployment ${ctx.service} is gone`, measurements: {} };
  const want = d.spec?.replicas ?? 1;
  const st = d.status ?? {};
  const pods = await targetPods(ctx);
  const measurements = {
    replicas: want,
    updated: st.updatedReplicas ?? 0,
    ready: st.readyReplicas ?? 0,
    available: st.availableReplicas ?? 0,
    pods: describePods(pods),
  };
  const problems: string[] = [];
  if (want < 1) problems.push(`Deployment ${ctx.service} has ${want} replicas`);
  if ((st.observedGeneration ?? 0) < (d.metadata.generation ?? 0))
    problems.push(`the controller has not seen ${ctx.service}'s latest spec`);
  for (const [k, v] of [
    ["updated", st.updatedReplicas],
    ["ready", st.readyReplicas],
    ["available", st.availableReplicas],
    ["total", st.replicas],
  ] as const)
    if ((v ?? 0) !== want) problems.push(`${v ?? 0}/${want} ${k}`);
  problems.push(...pods.flatMap((p) => trouble(p) ?? []));
  return {
    pass: problems.length === 0,
    reason: problems.length
      ? `${ctx.service} is not serving as deployed: ${problems.join(", ")}`
      : `${ctx.service} is rolled out: ${want}/${want} updated, ready and available, every pod Running and Ready`,
    measurements,
  };
}

export const rolloutVerifier: Verifier = watchedVerifier("rollout", read, (ctx) => [
  { apiVersion: "apps/v1", kind: "Deployment", namespace: ctx.namespace },
  { apiVersion: "v1", kind: "Pod", namespace: ctx.namespace, labelSelector: `app=${ctx.service}` },
]);
