// Shared by the failure matrix and the remediation table: a system deployed with the real kubectl,
// the shipped Chaos Mesh templates and config patch, and the reference's checks read from what
// kubectl prints (top --containers, exec ping / dd, get pod).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { loadEnv } from "../../../src/envs/env.js";
import type {
  Container,
  PodCondition,
  PodSpec,
  PodStatus,
  VolumeMount,
} from "../../../src/sim/core/objects.js";
import { packageRoot } from "../../../src/util/paths.js";
import type { TestCluster } from "../../helpers/cluster.js";

export type Failure =
  | "cpu-stress"
  | "memory-stress"
  | "disk-io"
  | "network-delay"
  | "network-loss"
  | "pod-fail"
  | "pod-config-error";

export const FAILURES: Failure[] = [
  "cpu-stress",
  "memory-stress",
  "disk-io",
  "network-delay",
  "network-loss",
  "pod-fail",
  "pod-config-error",
];

/** The kind and name of the chaos object a template creates (the object is named after the failure). */
export const CHAOS_KIND: Partial<Record<Failure, string>> = {
  "cpu-stress": "stresschaos",
  "memory-stress": "stresschaos",
  "disk-io": "iochaos",
  "network-delay": "networkchaos",
  "network-loss": "networkchaos",
  "pod-fail": "podchaos",
};

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A chaos template with its placeholders replaced as text, as the runner does. */
export function template(failure: Failure, ns: string, target: string): string {
  return readFileSync(join(packageRoot(), "chaos/templates", `${failure}.yaml`), "utf8")
    .replaceAll("[target_namespace]", ns)
    .replaceAll("[target_pod]", target);
}

/** The pod-config-error strategic patch for a Deployment's first container. */
export function configPatch(container: string): string {
  return readFileSync(join(packageRoot(), "chaos/patches/pod-config-error.yaml"), "utf8").replaceAll(
    "[target_container]",
    container,
  );
}

/** A kubectl bound to one namespace that never throws (callers look at the exit code). */
export function kubectlIn(t: TestCluster, ns: string) {
  return (args: string[], input?: string) => t.kubectl(["-n", ns, ...args], { input, reject: false });
}
export type Kn = ReturnType<typeof kubectlIn>;

/** Run kubectl until its output satisfies `ok`, with wall-clock patience; returns the stdout. */
export async function eventually(
  kn: Kn,
  args: string[],
  ok: (out: string) => boolean,
  ms = 30_000,
): Promise<string> {
  const deadline = Date.now() + ms;
  let last = "";
  for (;;) {
    const r = await kn(args);
    last = `${r.stdout}\n${r.stderr}`;
    if (r.exitCode === 0 && ok(r.stdout)) return r.stdout;
    if (Date.now() > deadline)
      throw new Error(`kubectl ${args.join(" ")} never satisfied the check; last output:\n${last}`);
    await sleep(150);
  }
}

/** Create the namespace, apply the system's manifests and wait until every workload is Ready. */
export async function deploySystem(t: TestCluster, system: string, ns: string): Promise<void> {
  const kn = kubectlIn(t, ns);
  await t.kubectl(["create", "namespace", ns]);
  const ap = await kn(["apply", "-f", join(packageRoot(), "envs", system, "manifests.yaml")]);
  if (ap.exitCode !== 0) throw new Error(ap.stderr);
  // one poll of the Deployments' READY column is far cheaper than `kubectl wait` per object
  await eventually(kn, ["get", "deploy,sts", "--no-headers"], allWorkloadsReady, 120_000);
}

/** Every row of `get deploy,sts --no-headers` shows READY n/n with n > 0. */
export function allWorkloadsReady(out: string): boolean {
  const rows = out.trim().split("\n").filter(Boolean);
  return (
    rows.length > 0 &&
    rows.every((l) => {
      const m = l
        .trim()
        .split(/\s+/)[1]
        ?.match(/^(\d+)\/(\d+)$/);
      return !!m && m[1] === m[2] && m[2] !== "0";
    })
  );
}

export interface TopRow {
  pod: string;
  container: string;
  cpu: number;
  memMi: number;
}

/** `kubectl top pod --containers` rows. */
export function topRows(out: string): TopRow[] {
  return out
    .trim()
    .split("\n")
    .slice(1)
    .map((l) => l.trim().split(/\s+/))
    .map(([pod, container, cpu, mem]) => ({
      pod,
      container,
      cpu: Number.parseInt(cpu, 10),
      memMi: Number.parseInt(mem, 10),
    }));
}

export interface Ping {
  sent: number;
  received: number;
  loss: number;
  avg?: number;
}

/** iputils or BusyBox ping statistics. */
export function parsePing(out: string): Ping | undefined {
  const m = out.match(/(\d+) packets transmitted, (\d+) (?:packets )?received.*?([\d.]+)% packet loss/);
  if (!m) return undefined;
  const rtt = out.match(/(?:rtt|round-trip) min\/avg\/max(?:\/mdev)? = [\d.]+\/([\d.]+)\//);
  return {
    sent: Number(m[1]),
    received: Number(m[2]),
    loss: Number(m[3]),
    avg: rtt ? Number(rtt[1]) : undefined,
  };
}

/** dd's rate in MB/s, from GNU ("1.2 MB/s", "300 kB/s") or BusyBox ("1.2MB/s") summaries. */
export function ddRate(stderr: string): number {
  const m = stderr.match(/([\d.]+) ?([kKMG]?)i?B\/s/);
  if (!m) throw new Error(`no dd rate in: ${stderr}`);
  const mult: Record<string, number> = { "": 1e-6, k: 1e-3, K: 1e-3, M: 1, G: 1e3 };
  return Number(m[1]) * mult[m[2]];
}

/** The limits of each container of a pod, from `get pod -o json`. */
export function limitsOf(pod: {
  spec: { containers: { name: string; resources?: { limits?: Record<string, string> } }[] };
}) {
  const cpu = (q = "") => (q.endsWith("m") ? Number(q.slice(0, -1)) : Number(q) * 1000);
  const mem = (q = "") =>
    q.endsWith("Gi") ? Number(q.slice(0, -2)) * 1024 : q.endsWith("Mi") ? Number(q.slice(0, -2)) : Number.NaN;
  return Object.fromEntries(
    pod.spec.containers.map((c) => [
      c.name,
      { cpu: cpu(c.resources?.limits?.cpu), memMi: mem(c.resources?.limits?.memory) },
    ]),
  );
}

/** The system's fault targets and ping targets (env.yaml). */
export function envOf(system: string) {
  const env = loadEnv(system);
  return { faultTargets: env.faultTargets, pingApps: env.pingTarget.apps };
}

export const SIDECAR = "sidecar-busybox";

/**
 * A named pod of an app: the one not being deleted, preferring a Ready one. `get pod -o json` is
 * read so that the caller has the spec (containers, limits) too.
 */
export interface Pod {
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; deletionTimestamp?: string };
  spec: PodSpec;
  status?: PodStatus;
}

export async function podsOf(kn: Kn, app: string): Promise<Pod[]> {
  const r = await kn(["get", "pod", "-l", `app=${app}`, "-o", "json"]);
  return (JSON.parse(r.stdout || '{"items":[]}').items as Pod[]).filter((p) => !p.metadata.deletionTimestamp);
}

export const isReady = (p: Pod) =>
  p?.status?.phase === "Running" &&
  (p.status?.conditions ?? []).some((c: PodCondition) => c.type === "Ready" && c.status === "True");

/** The pod IP the network checks ping: a Running pod of the first ping app that is not the target. */
export async function pingAddress(kn: Kn, apps: string[], target: string): Promise<string> {
  for (const app of apps) {
    if (app === target) continue;
    const ip = (await podsOf(kn, app)).find((p) => p.status?.phase === "Running" && p.status.podIP)?.status
      ?.podIP;
    if (ip) return ip;
  }
  throw new Error(`no pod of ${apps.join("/")} to ping`);
}

/**
 * `ping` from a pod as the reference runs it: the main container, else the sidecar-busybox when
 * the main image has no ping (exit 127). Returns the parsed statistics and the container used.
 */
export async function pingFrom(kn: Kn, pod: Pod, address: string, count = 3) {
  const cmd = ["ping", "-c", String(count), "-W", "2", address];
  const main = pod.spec.containers[0].name;
  let r = await kn(["exec", pod.metadata.name, "-c", main, "--", ...cmd]);
  let container = main;
  if (r.exitCode === 127 && pod.spec.containers.some((c: Container) => c.name === SIDECAR)) {
    container = SIDECAR;
    r = await kn(["exec", pod.metadata.name, "-c", SIDECAR, "--", ...cmd]);
  }
  return { container, ping: parsePing(r.stdout), out: `${r.stdout}${r.stderr}`, exitCode: r.exitCode };
}

/** The reference's disk check in one pod: 10 MiB with O_DIRECT into /var/log/mysql; MB/s. */
export async function ddFrom(kn: Kn, pod: Pod, container?: string): Promise<number> {
  const c = container ?? mainWithMount(pod);
  const r = await kn([
    "exec",
    pod.metadata.name,
    "-c",
    c,
    "--",
    "dd",
    "if=/dev/zero",
    "of=/var/log/mysql/x",
    "bs=1M",
    "count=10",
    "oflag=direct",
  ]);
  if (r.exitCode !== 0) throw new Error(`dd in ${pod.metadata.name}/${c} failed: ${r.stderr}`);
  return ddRate(r.stderr);
}

/** The first container that mounts /var/log/mysql. */
export function mainWithMount(pod: Pod): string {
  const c = pod.spec.containers.find((x: Container) =>
    (x.volumeMounts ?? []).some((m: VolumeMount) => m.mountPath === "/var/log/mysql"),
  );
  return c?.name ?? pod.spec.containers[0].name;
}
