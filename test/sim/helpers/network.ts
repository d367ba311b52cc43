// Shared by the network tests: requests made the way the harness's user-facing check makes them
// (kubectl exec into a container of the namespace, curl or BusyBox wget), the logs of a caller
// since a moment, and a debug pod with curl (centos:7) to make requests from.
import { expect } from "vitest";
import type { TestCluster } from "../../helpers/cluster.js";
import { eventually, isReady, type Kn, podsOf } from "./failures.js";

export interface Page {
  /** curl's %{http_code} (000 without an answer) and %{time_total} in seconds. */
  code: string;
  secs: number;
  /** curl's exit code and its error line. */
  exit: number;
  stderr: string;
  body: string;
}

/** curl from a pod: the body, then the status and the time on the last line (-w). */
export async function curl(kn: Kn, pod: string, url: string, extra: string[] = []): Promise<Page> {
  const r = await kn([
    "exec",
    pod,
    "--",
    "curl",
    "-sS",
    "-m",
    "30",
    ...extra,
    "-w",
    "\n%{http_code} %{time_total}",
    url,
  ]);
  const lines = r.stdout.split("\n");
  const [code, secs] = (lines.pop() ?? "").split(" ");
  const exit = Number(r.stderr.match(/command terminated with exit code (\d+)/)?.[1] ?? r.exitCode);
  return { code, secs: Number(secs), exit, stderr: r.stderr, body: lines.join("\n") };
}

/** BusyBox wget from a container: its exit code and what it printed. */
export async function wget(kn: Kn, pod: string, container: string, url: string, extra: string[] = []) {
  const r = await kn([
    "exec",
    pod,
    "-c",
    container,
    "--",
    "wget",
    "-q",
    "-O",
    "-",
    "-T",
    "20",
    ...extra,
    url,
  ]);
  return { exit: r.exitCode, out: r.stdout, err: r.stderr };
}

/** The one pod of an app, once there is exactly one and it is Ready. */
export async function readyPod(kn: Kn, app: string): Promise<string> {
  for (let i = 0; i < 400; i++) {
    const pods = await podsOf(kn, app);
    if (pods.length === 1 && isReady(pods[0])) return pods[0].metadata.name;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${app} never settled to one Ready pod`);
}

/** A pod with curl (centos:7) in the namespace, to make requests from. */
export async function debugPod(kn: Kn, name = "debug"): Promise<string> {
  const yaml = `apiVersion: v1
kind: Pod
metadata: { name: ${name}, labels: { app: ${name} } }
spec:
  containers:
  - { name: debug, image: centos:7, command: [sleep, infinity] }
`;
  const r = await kn(["apply", "-f", "-"], yaml);
  expect(r.exitCode, r.stderr).toBe(0);
  await eventually(
    kn,
    ["get", "pod", name, "-o", "jsonpath={.status.phase}"],
    (o) => o === "Running",
    60_000,
  );
  return name;
}

/** Wait until the logs of an app's container since `since` have a line matching `re`. */
export async function logsShow(kn: Kn, app: string, container: string, since: string, re: RegExp) {
  const pod = await readyOrAnyPod(kn, app);
  const out = await eventually(
    kn,
    ["logs", pod, "-c", container, `--since-time=${since}`],
    (o) => o.split("\n").some((l) => re.test(l)),
    30_000,
  );
  return out.split("\n").find((l) => re.test(l))!;
}

async function readyOrAnyPod(kn: Kn, app: string): Promise<string> {
  const pods = await podsOf(kn, app);
  if (!pods.length) throw new Error(`no pod of ${app}`);
  return pods[0].metadata.name;
}

/** Wait until curl's answer satisfies `ok` (a rollout takes a moment); returns that answer. */
export async function pageUntil(
  kn: Kn,
  pod: string,
  url: string,
  ok: (p: Page) => boolean,
  extra: string[] = [],
  ms = 60_000,
): Promise<Page> {
  const deadline = Date.now() + ms;
  for (;;) {
    const p = await curl(kn, pod, url, extra);
    if (ok(p)) return p;
    if (Date.now() > deadline)
      throw new Error(`${url} never satisfied the check; last: ${JSON.stringify(p)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/**
 * The cluster's now as the time its log lines carry, for --since-time: a cluster faster than wall
 * time stamps its lines ahead of the host's clock.
 */
export const nowStamp = (t: TestCluster) =>
  new Date(t.cluster.ctx.clock.toWall(t.cluster.ctx.clock.now())).toISOString();
