// The expert tier's "endpoints" symptom: the Service named after the target exists, selects the
// target's pods, has a ready endpoint for every port, and sends each port to a port the pods'
// containers declare (by number or by name), as kube-proxy would route it.
import type { Deployment, Endpoints, Service } from "../kube/objects.js";
import { targetPods } from "./pods.js";
import type { Verdict, Verifier, VerifyContext } from "./types.js";
import { watchedVerifier } from "./watched.js";

async function read(ctx: VerifyContext): Promise<Verdict> {
  const [svc, ep, dep] = await Promise.all([
    ctx.client.tryGet<Service>("v1", "Service", ctx.namespace, ctx.service),
    ctx.client.tryGet<Endpoints>("v1", "Endpoints", ctx.namespace, ctx.service),
    ctx.client.tryGet<Deployment>("apps/v1", "Deployment", ctx.namespace, ctx.service),
  ]);
  if (!svc) return { pass: false, reason: `Service ${ctx.service} is gone`, measurements: {} };
  const problems: string[] = [];
  const labels = dep?.spec?.template?.metadata?.labels ?? {};
  const selector = svc.spec?.selector ?? {};
  const foreign = Object.entries(selector).filter(([k, v]) => labels[k] !== v);
  if (!Object.keys(selector).length) problems.push(`Service ${ctx.service} selects nothing`);
  if (foreign.length)
    problems.push(
      `its selector ${foreign.map(([k, v]) => `${k}=${v}`).join(",")} is not on ${ctx.service}'s pods`,
    );
  const pods = await targetPods(ctx);
  const containerPorts = pods.flatMap((p) => (p.spec?.containers ?? []).flatMap((c) => c.ports ?? []));
  const ready = (ep?.subsets ?? []).reduce((n, s) => n + (s.addresses?.length ?? 0), 0);
  if (!ready) problems.push(`Service ${ctx.service} has no ready endpoint`);
  for (const sp of svc.spec?.ports ?? []) {
    const tp = sp.targetPort ?? sp.port;
    const served = containerPorts.some((cp) =>
      typeof tp === "number" || /^\d+$/.test(String(tp)) ? cp.containerPort === Number(tp) : cp.name === tp,
    );
    if (!served) problems.push(`port ${sp.port} goes to ${tp}, which no ${ctx.service} container declares`);
  }
  return {
    pass: problems.length === 0,
    reason: problems.length
      ? `${ctx.service}'s Service does not reach its pods: ${problems.join("; ")}`
      : `Service ${ctx.service} reaches ${ready} ready endpoint(s) on every port`,
    measurements: { selector, readyEndpoints: ready, ports: svc.spec?.ports ?? [] },
  };
}

export const endpointsVerifier: Verifier = watchedVerifier("endpoints", read, (ctx) => [
  { apiVersion: "v1", kind: "Service", namespace: ctx.namespace },
  { apiVersion: "v1", kind: "Endpoints", namespace: ctx.namespace },
]);
