// Probes, as the kubelet's prober workers run them: a worker per probe ticks every periodSeconds
// from the container's start, ignores ticks before initialDelaySeconds, and counts consecutive
// results against successThreshold / failureThreshold. A network probe reaches whoever listens on
// its port (Behavior.probeReach: the application once started, a sidecar that took the port, or
// nobody); otherwise a probe passes once the application has started (Behavior.startupMs); either
// way Behavior.probeOk must say so too (CPU, the network). Each failure is an Unhealthy event.
// Readiness and liveness wait for the startup probe, which stops once it passed.
import type { Behavior, ContainerRef, ProbeReach } from "../context/behavior.js";
import type { Container, ContainerPort, Pod, Probe } from "../core/objects.js";
import type { PodStagesDoc } from "../stages/load.js";
import { render } from "../stages/stage.js";
import { imageTreeHas } from "../userland/image-tree.js";
import { imageHas } from "../userland/toolbox.js";
import type { CtrRec, CtrSpec, Instance, ProbeKind, ProbeResult, ProbeState } from "./records.js";

const KINDS: ProbeKind[] = ["startup", "readiness", "liveness"];
const FIELD: Record<ProbeKind, "startupProbe" | "readinessProbe" | "livenessProbe"> = {
  startup: "startupProbe",
  readiness: "readinessProbe",
  liveness: "livenessProbe",
};
const TITLE: Record<ProbeKind, string> = { startup: "Startup", readiness: "Readiness", liveness: "Liveness" };

export const probeOf = (spec: Container | undefined, kind: ProbeKind): Probe | undefined =>
  spec?.[FIELD[kind]];

export function freshProbes(startedAt: number): Record<ProbeKind, ProbeState> {
  const s = (): ProbeState => ({ lastTick: startedAt - 1, successes: 0, failures: 0, result: "unknown" });
  return { startup: s(), readiness: s(), liveness: s() };
}

/** The probe's verdict as a stage fact: no probe passes (readiness only once started). */
export function probeFact(c: CtrRec, spec: CtrSpec, kind: ProbeKind): ProbeResult {
  if (!probeOf(spec, kind)) return kind === "readiness" && !c.started ? "unknown" : "pass";
  if (kind !== "startup" && !c.started) return "unknown";
  return c.inst?.probes?.[kind].result ?? "unknown";
}

const periodMs = (probe: Probe) => (probe.periodSeconds ?? 10) * 1000;

function ticksAfter(inst: Instance, probe: Probe, after: number): number {
  const p = periodMs(probe);
  const k = Math.floor((after - inst.startedAt!) / p) + 1;
  return inst.startedAt! + Math.max(0, k) * p;
}

export interface ProbeDeps {
  behavior: Behavior;
  texts: PodStagesDoc["probes"];
  /** The pod's IP (probes connect to it). */
  ip: string;
  /** The answer of an exec probe's command run in the container for this tick, if it ran. */
  exec?(ref: ContainerRef, kind: ProbeKind, t: number): { ok: boolean; output: string } | undefined;
  /** Record a failed probe (the Unhealthy event). */
  unhealthy(type: "Normal" | "Warning", reason: string, message: string): void;
}

/** Run every probe tick due by `now` for a running instance. */
export function runProbes(pod: Pod, c: CtrRec, spec: CtrSpec, now: number, deps: ProbeDeps): void {
  const inst = c.inst;
  if (!inst?.startedAt || !inst.probes) return;
  for (const kind of KINDS) {
    const probe = probeOf(spec, kind);
    const st = inst.probes[kind];
    if (!probe) continue;
    for (let t = ticksAfter(inst, probe, st.lastTick); t <= now; t = ticksAfter(inst, probe, t)) {
      st.lastTick = t;
      const waitsForStartup = kind !== "startup" && !c.started;
      if (
        waitsForStartup ||
        (kind === "startup" && c.started) ||
        t - inst.startedAt < (probe.initialDelaySeconds ?? 0) * 1000
      )
        continue;
      const ref: ContainerRef = {
        pod,
        container: spec,
        startedAt: inst.startedAt,
        restartCount: c.restartCount,
      };
      const up = t - inst.startedAt >= (inst.startupMs ?? 0);
      // an exec probe whose command ran in the container answers for itself
      const ran = up && probe.exec ? deps.exec?.(ref, kind, t) : undefined;
      // a network probe reaches whoever listens on its port (when the behavior models it), and so
      // does an exec probe's gRPC health check (grpc_health_probe -addr=:port)
      const reach = ran ? undefined : deps.behavior.probeReach?.(ref, probe, t);
      const reached = !reach || reachOk(reach);
      const ok = ran
        ? ran.ok
        : reach
          ? reached && deps.behavior.probeOk(ref, t)
          : up && deps.behavior.probeOk(ref, t);
      if (ok) {
        st.successes++;
        st.failures = 0;
        if (st.successes >= (kind === "readiness" ? (probe.successThreshold ?? 1) : 1)) st.result = "pass";
      } else {
        st.failures++;
        st.successes = 0;
        if (st.failures >= (probe.failureThreshold ?? 3)) st.result = "fail";
        const ev = deps.texts.event;
        const timedOut = up && reached && !!deps.behavior.probeTimedOut?.(ref, t);
        const output = ran
          ? ran.output.replace(/\n$/, "")
          : failureOutput(deps.ip, spec, probe, reached ? { up, timedOut } : reach!, deps.texts);
        deps.unhealthy(ev.type ?? "Warning", ev.reason, render(ev.message, { probe: TITLE[kind], output }));
      }
    }
  }
}

/** When the next probe tick of a running instance is due. */
export function nextProbeAt(c: CtrRec, spec: CtrSpec): number | undefined {
  const inst = c.inst;
  if (!inst?.startedAt || !inst.probes) return undefined;
  let next: number | undefined;
  for (const kind of KINDS) {
    const probe = probeOf(spec, kind);
    if (!probe || (kind === "startup" && c.started)) continue;
    const t = ticksAfter(inst, probe, inst.probes[kind].lastTick);
    if (next === undefined || t < next) next = t;
  }
  return next;
}

/** The fields of any handler (httpGet, tcpSocket, grpc, exec) the failure text reads. */
interface ProbeHandler {
  host?: string;
  port?: number | string;
  scheme?: string;
  path?: string;
  command?: string[];
}

/** Whether what the probe reached passes it (pkg/probe/http: a status from 200 to 399). */
function reachOk(r: ProbeReach): boolean {
  if (r.kind === "http") return r.status >= 200 && r.status < 400;
  return r.kind === "open";
}

/**
 * The probe's output: from what it reached (nothing listening, a bad status, another protocol),
 * else from the application's state (still starting, answering too late, answering badly).
 */
function failureOutput(
  podIP: string,
  spec: CtrSpec,
  probe: Probe,
  why: ProbeReach | { up: boolean; timedOut: boolean },
  texts: PodStagesDoc["probes"],
): string {
  const handler = probe.httpGet ? "httpGet" : probe.tcpSocket ? "tcpSocket" : probe.grpc ? "grpc" : "exec";
  const h: ProbeHandler = probe[handler] ?? {};
  const ip = h.host ?? podIP;
  const port = resolvePort(spec, h.port);
  const url = `${String(h.scheme ?? "HTTP").toLowerCase()}://${ip}:${port}${h.path ?? "/"}`;
  const vars = {
    ip,
    port,
    url,
    timeout: probe.timeoutSeconds ?? 1,
    command: (h.command ?? []).join(" "),
    status: "kind" in why && why.kind === "http" ? why.status : 503,
    error: "kind" in why && why.kind === "garbled" ? why.error : "",
  };
  // a program the image does not have (pause swapped in by pod-failure): runc's exec error
  const argv0 = String(h.command?.[0] ?? "");
  // (the program may be one the image's Dockerfile added: Online-Boutique's grpc_health_probe)
  const image = String(spec.image ?? "");
  if (handler === "exec" && argv0 && !imageHas(image, argv0) && !imageTreeHas(image, argv0))
    return `OCI runtime exec failed: exec failed: unable to start container process: exec: "${argv0}": ${
      argv0.includes("/") ? `stat ${argv0}: no such file or directory` : "executable file not found in $PATH"
    }: unknown`;
  let t = texts[handler];
  // grpc_health_probe as an exec probe prints what kubelet's own gRPC prober took from it
  // (grpc-ecosystem/grpc-health-probe main.go: its -addr as given, its 1 s -connect-timeout)
  const addr = grpcHealthProbeAddr(h.command);
  if (handler === "exec" && addr !== undefined) {
    t = texts.grpc;
    const cut = addr.lastIndexOf(":");
    Object.assign(vars, { ip: addr.slice(0, Math.max(0, cut)), port: addr.slice(cut + 1), timeout: 1 });
  }
  if ("kind" in why) {
    if (why.kind === "refused") return render(t.down, vars);
    if (why.kind === "garbled") return render(t.garbled ?? t.failing, vars);
    return render(t.failing, vars);
  }
  return render(why.up ? (why.timedOut ? t.timeout : t.failing) : t.down, vars);
}

/** The -addr of a grpc_health_probe command line, if the command is one. */
function grpcHealthProbeAddr(command: string[] | undefined): string | undefined {
  if (!command?.length || !/(^|\/)grpc_health_probe$/.test(String(command[0]))) return undefined;
  const args = command.slice(1).map(String);
  const i = args.findIndex((a) => /^--?addr(=|$)/.test(a));
  if (i < 0) return undefined;
  return args[i].includes("=") ? args[i].slice(args[i].indexOf("=") + 1) : args[i + 1];
}

function resolvePort(spec: CtrSpec, port: number | string | undefined): number | string {
  if (typeof port !== "string" || /^\d+$/.test(port)) return port ?? "";
  return (spec.ports ?? []).find((p: ContainerPort) => p.name === port)?.containerPort ?? port;
}
