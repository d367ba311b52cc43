// The target service's pods as the checks see them, and the wait for them to be Running+Ready.
import type { Pod } from "../kube/objects.js";
import { waitFor } from "../kube/wait.js";
import type { Verdict, VerifyContext } from "./types.js";

export const SIDECAR = "sidecar-busybox";

export const isReady = (p: Pod) =>
  p.status?.phase === "Running" &&
  (p.status?.conditions ?? []).some(
    (c: { type: string; status: string }) => c.type === "Ready" && c.status === "True",
  );

/** The service's pods that are not on their way out. */
export async function targetPods(ctx: VerifyContext): Promise<Pod[]> {
  const pods = await ctx.client.list<Pod>("v1", "Pod", ctx.namespace, `app=${ctx.service}`);
  return pods.filter((p) => !p.metadata.deletionTimestamp);
}

export function describePods(pods: Pod[]): string {
  return (
    pods
      .map((p) => `${p.metadata.name} ${p.status?.phase ?? "?"}${isReady(p) ? " Ready" : " NotReady"}`)
      .join(", ") || "no pods"
  );
}

/** Wait (final mode) until every target pod is Running+Ready; undefined on timeout. */
export async function waitTargetsReady(ctx: VerifyContext): Promise<Pod[] | undefined> {
  const r = await waitFor({
    client: ctx.client,
    time: ctx.time,
    signal: ctx.signal,
    timeoutMs: ctx.timeouts.readyMs,
    pollMs: 10_000,
    watch: [{ apiVersion: "v1", kind: "Pod", namespace: ctx.namespace, labelSelector: `app=${ctx.service}` }],
    check: async () => {
      const pods = await targetPods(ctx);
      return pods.length > 0 && pods.every(isReady) ? pods : undefined;
    },
  });
  return r.ok ? r.value : undefined;
}

/** The verdict when the target pods never became Running and Ready within the wait. */
export async function notReadyVerdict(ctx: VerifyContext): Promise<Verdict> {
  return {
    pass: false,
    reason: `the ${ctx.service} pods are not all Running and Ready: ${describePods(await targetPods(ctx))}`,
    measurements: {},
  };
}

/** The container a check runs commands in: the main one, else the busybox sidecar. */
export function mainContainer(pod: Pod): string {
  const cs: { name: string }[] = pod.spec?.containers ?? [];
  return (cs.find((c) => c.name !== SIDECAR) ?? cs[0]).name;
}

/**
 * Poll a single-shot measurement: in confirm mode until it sees the fault (fails), in final mode
 * until it passes; the last measurement is the verdict.
 */
export async function pollMeasure<T extends { pass: boolean }>(
  ctx: VerifyContext,
  windowMs: number,
  measure: () => Promise<T>,
): Promise<T> {
  const want = ctx.mode === "final";
  let last: T | undefined;
  const r = await waitFor({
    client: ctx.client,
    time: ctx.time,
    signal: ctx.signal,
    timeoutMs: windowMs,
    pollMs: ctx.timeouts.pollMs,
    // as many looks as the window holds on a real cluster (a ping run plus a poll: ~4 s)
    minChecks: Math.max(1, Math.min(10, Math.floor(windowMs / 4000))),
    check: async () => {
      last = await measure();
      // confirm mode: only a conclusive failing measurement shows the fault
      if (!want) return !last.pass && !(last as { inconclusive?: boolean }).inconclusive ? last : undefined;
      return last.pass ? last : undefined;
    },
  });
  if (r.ok) return r.value;
  return last ?? (await measure());
}
