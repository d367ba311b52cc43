// The case's first step: cases start equal. The first case in a namespace (right after the run
// deployed it) takes the namespace's snapshot; every later case puts the namespace back to it
// (src/envs/reset.ts), whatever the cases before it did or their agents wrote. Snapshots are
// kept per cluster and namespace for the life of the process (parallel workers each have their
// own namespace).
import type { ResetSummary } from "../envs/reset.js";
import { resetNamespace } from "../envs/reset.js";
import { type NamespaceSnapshot, takeSnapshot } from "../envs/snapshot.js";
import type { CaseScope } from "./context.js";

const snapshots = new Map<string, NamespaceSnapshot>();

/** Take the namespace's snapshot (the first case) or put the namespace back to it (every other). */
export async function startEqual(
  ctx: Pick<CaseScope, "client" | "time" | "namespace" | "env" | "signal">,
): Promise<ResetSummary | "snapshot taken"> {
  const key = `${ctx.client.kc.getCurrentCluster()?.server ?? ""}|${ctx.namespace}`;
  const snap = snapshots.get(key);
  if (!snap) {
    snapshots.set(key, await takeSnapshot(ctx.client, ctx.namespace));
    return "snapshot taken";
  }
  return resetNamespace(snap, {
    client: ctx.client,
    time: ctx.time,
    timeoutSeconds: ctx.env.readyTimeoutSeconds,
    signal: ctx.signal,
  });
}
