// Shared by the tests of the expert tier's failure types that live in a pod's lifecycle: an injection of
// chaos/expert/<type>.yaml with its placeholders filled by hand (as the runner fills them for a
// system), applied with real `kubectl patch --patch-file`, and what an engineer then reads: the
// target's one pod, a container's status, the pod's events as `describe` lists them, the rollout.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expect } from "vitest";
import type { ContainerStatus } from "../../../src/sim/core/objects.js";
import { packageRoot } from "../../../src/util/paths.js";
import type { TestCluster } from "../../helpers/cluster.js";
import { eventually, type Kn, type Pod, podsOf } from "./failures.js";

/** chaos/expert/<type>.yaml with each `[key]` replaced as text, as the runner does. */
export function injection(type: string, fill: Record<string, string>): string {
  let text = readFileSync(join(packageRoot(), "chaos/expert", `${type}.yaml`), "utf8");
  for (const [k, v] of Object.entries(fill)) text = text.replaceAll(`[${k}]`, v);
  const left = text
    .split("\n")
    .filter((l) => !l.trimStart().startsWith("#"))
    .join("\n")
    .match(/\[[a-z_]+\]/);
  if (left) throw new Error(`${type}: placeholder ${left[0]} left unfilled`);
  return text;
}

/** `kubectl patch deployment <name> --type <type> --patch-file <the filled injection>`. */
export async function patchWith(
  t: TestCluster,
  kn: Kn,
  deploy: string,
  type: string,
  fill: Record<string, string>,
  patchType: "strategic" | "json" = "strategic",
) {
  const file = t.file(`${type}-${deploy}.yaml`, injection(type, fill));
  return kn(["patch", "deployment", deploy, "--type", patchType, "--patch-file", file]);
}

/** `kubectl rollout status` until complete (or the timeout): its exit code and output. */
export async function rolloutStatus(kn: Kn, deploy: string, timeout = "120s") {
  return kn(["rollout", "status", `deployment/${deploy}`, `--timeout=${timeout}`]);
}

/**
 * `kubectl rollout undo`, then `rollout status` until it reports the rollout complete. Right after
 * an undo to an earlier ReplicaSet the Deployment may still carry ProgressDeadlineExceeded from the
 * broken rollout (kube's controller resets Progressing only for a new ReplicaSet or on progress),
 * and `rollout status` then fails at once, as on k3s: it is asked again.
 */
export async function undo(kn: Kn, deploy: string): Promise<void> {
  const r = await kn(["rollout", "undo", `deployment/${deploy}`]);
  expect(r.exitCode, r.stderr).toBe(0);
  await eventually(
    kn,
    ["rollout", "status", `deployment/${deploy}`, "--timeout=20s"],
    (o) => o.includes("successfully rolled out"),
    120_000,
  );
}

/** The Service's ready and not-ready endpoint addresses (`get endpoints -o json`). */
export async function endpointsOf(kn: Kn, svc: string): Promise<{ ready: string[]; notReady: string[] }> {
  const r = await kn(["get", "endpoints", svc, "-o", "json"]);
  const subsets: { addresses?: { ip: string }[]; notReadyAddresses?: { ip: string }[] }[] =
    JSON.parse(r.stdout || "{}").subsets ?? [];
  return {
    ready: subsets.flatMap((s) => (s.addresses ?? []).map((a) => a.ip)),
    notReady: subsets.flatMap((s) => (s.notReadyAddresses ?? []).map((a) => a.ip)),
  };
}

/** The app's one pod once there is exactly one (the old ones gone) and `ok` holds for it. */
export async function onePod(kn: Kn, app: string, ok: (p: Pod) => boolean, ms = 90_000): Promise<Pod> {
  const deadline = Date.now() + ms;
  let last: Pod[] = [];
  for (;;) {
    last = await podsOf(kn, app);
    if (last.length === 1 && ok(last[0])) return last[0];
    if (Date.now() > deadline)
      throw new Error(
        `${app}: never one pod that satisfies the check; last: ${JSON.stringify(last.map((p) => p.status))}`,
      );
    await new Promise((r) => setTimeout(r, 150));
  }
}

/** A container's status in a pod read with `get pod -o json` (init containers too). */
export function statusOf(p: Pod, container: string): ContainerStatus | undefined {
  const all = [...(p.status?.initContainerStatuses ?? []), ...(p.status?.containerStatuses ?? [])];
  return all.find((s) => s.name === container);
}

/** The STATUS column of `kubectl get pod <name>`. */
export async function statusColumn(kn: Kn, pod: string): Promise<string> {
  const r = await kn(["get", "pod", pod, "--no-headers"]);
  return r.stdout.trim().split(/\s+/)[2] ?? "";
}

/** `kubectl describe pod`'s Events section, once `re` shows in it. */
export async function eventsShow(kn: Kn, pod: string, re: RegExp, ms = 60_000): Promise<string> {
  const out = await eventually(
    kn,
    ["describe", "pod", pod],
    (o) => re.test(o.slice(o.indexOf("\nEvents:"))),
    ms,
  );
  return out.slice(out.indexOf("\nEvents:"));
}

/** curl from a pod: the status code (000 without an answer), the body, curl's exit and error. */
export async function curlFrom(kn: Kn, pod: string, url: string, extra: string[] = []) {
  const r = await kn(["exec", pod, "--", "curl", "-sS", "-m", "30", ...extra, "-w", "\n%{http_code}", url]);
  const lines = r.stdout.split("\n");
  const code = lines.pop() ?? "";
  return { code, body: lines.join("\n"), stderr: r.stderr, exitCode: r.exitCode };
}

/** curl until the answer satisfies `ok` (a rollout takes a moment). */
export async function curlUntil(
  kn: Kn,
  pod: string,
  url: string,
  ok: (a: Awaited<ReturnType<typeof curlFrom>>) => boolean,
  extra: string[] = [],
  ms = 60_000,
) {
  const deadline = Date.now() + ms;
  for (;;) {
    const a = await curlFrom(kn, pod, url, extra);
    if (ok(a)) return a;
    if (Date.now() > deadline)
      throw new Error(`${url} never satisfied the check; last: ${JSON.stringify(a)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}
