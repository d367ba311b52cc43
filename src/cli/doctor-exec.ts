// `doctor`'s exec check: which kubectl is on PATH, which exec transport it speaks (kubectl 1.30+
// WebSocket unless KUBECTL_REMOTE_COMMAND_WEBSOCKETS=false, older ones SPDY/3.1: kubernetes
// KEP-4006 "Transition from SPDY to WebSockets"), and whether `kubectl exec` gets through to a
// container: a command's own exit code still proves the transport works.
import { accessSync, constants } from "node:fs";
import { delimiter, join } from "node:path";
import { execa } from "execa";

export interface KubectlInfo {
  path: string;
  version: string;
  transport: "WebSocket" | "SPDY/3.1";
}

function onPath(name: string): string | undefined {
  for (const dir of (process.env.PATH ?? "").split(delimiter).filter(Boolean)) {
    const p = join(dir, name);
    try {
      accessSync(p, constants.X_OK);
      return p;
    } catch {}
  }
  return undefined;
}

const field = (o: unknown, k: string): unknown =>
  o && typeof o === "object" ? (o as Record<string, unknown>)[k] : undefined;

export async function kubectlInfo(): Promise<KubectlInfo | undefined> {
  const path = onPath("kubectl");
  if (!path) return undefined;
  const r = await execa(path, ["version", "--client", "-o", "json"], { reject: false, timeout: 20_000 });
  let v: unknown;
  try {
    v = field(JSON.parse(String(r.stdout)), "clientVersion");
  } catch {
    return undefined;
  }
  const minor = Number.parseInt(String(field(v, "minor") ?? ""), 10);
  const major = Number.parseInt(String(field(v, "major") ?? ""), 10);
  const websocket =
    (major > 1 || (major === 1 && minor >= 30)) && process.env.KUBECTL_REMOTE_COMMAND_WEBSOCKETS !== "false";
  return {
    path,
    version: String(field(v, "gitVersion") ?? "unknown"),
    transport: websocket ? "WebSocket" : "SPDY/3.1",
  };
}

interface Target {
  ns: string;
  pod: string;
  container: string;
}

/** A pod whose first container runs. */
function runningTarget(list: unknown): Target | undefined {
  const items = field(list, "items");
  for (const p of Array.isArray(items) ? items : []) {
    const st = field(field(p, "status"), "containerStatuses");
    const first = Array.isArray(st) ? st.find((s) => field(field(s, "state"), "running")) : undefined;
    if (!first) continue;
    const meta = field(p, "metadata");
    return {
      ns: String(field(meta, "namespace")),
      pod: String(field(meta, "name")),
      container: String(field(first, "name")),
    };
  }
  return undefined;
}

const DOCTOR_POD = "microremed-doctor-exec";

/**
 * Runs `kubectl exec` in a running pod of the cluster. With `mayCreate` (the embedded cluster,
 * which starts empty) a throwaway pod is started for it and deleted after.
 */
export async function execCheck(
  kubectl: string,
  kubeconfig: string,
  mayCreate: boolean,
): Promise<{ ok: boolean; detail: string }> {
  const k = (args: string[]) =>
    execa(kubectl, ["--kubeconfig", kubeconfig, ...args], { reject: false, timeout: 90_000 });
  const list = await k(["get", "pods", "-A", "-o", "json"]);
  let target: Target | undefined;
  try {
    target = runningTarget(JSON.parse(String(list.stdout)));
  } catch {
    return { ok: false, detail: `cannot list pods: ${String(list.stderr).trim()}` };
  }
  let created = false;
  if (!target && mayCreate) {
    const run = ["run", DOCTOR_POD, "-n", "default", "--image=busybox:1.36", "--restart=Never", "--command"];
    await k([...run, "--", "sleep", "3600"]);
    created = true;
    await k(["wait", "--for=condition=Ready", `pod/${DOCTOR_POD}`, "-n", "default", "--timeout=60s"]);
    target = { ns: "default", pod: DOCTOR_POD, container: DOCTOR_POD };
  }
  if (!target) return { ok: true, detail: "no running pod to try it on" };
  try {
    const r = await k(["exec", "-n", target.ns, target.pod, "-c", target.container, "--", "true"]);
    const err = String(r.stderr).trim();
    const where = `in ${target.ns}/${target.pod}`;
    if (r.exitCode === 0 || /command terminated with exit code \d+/.test(err))
      return { ok: true, detail: where };
    return { ok: false, detail: `${where}: ${err.split("\n").at(-1) ?? `exit code ${r.exitCode}`}` };
  } finally {
    if (created) await k(["delete", "pod", DOCTOR_POD, "-n", "default", "--wait=false"]);
  }
}
