// network-loss / network-delay: from each target pod (main container, else the busybox sidecar)
// `ping -c 3 -W 2 <address>` shows 0% loss and an average RTT of at most 1000 ms. The address is a
// pod of the namespace (env pingTarget): in-cluster, no Internet needed.

import { execIn } from "../kube/exec.js";
import type { Pod } from "../kube/objects.js";
import {
  mainContainer,
  notReadyVerdict,
  pollMeasure,
  SIDECAR,
  targetPods,
  waitTargetsReady,
} from "./pods.js";
import type { Verdict, Verifier, VerifyContext } from "./types.js";

export interface PingResult {
  transmitted: number;
  received: number;
  lossPercent: number;
  avgMs?: number;
}

/** Parse iputils or busybox ping output. */
export function parsePing(out: string): PingResult | undefined {
  const m = out.match(/(\d+) packets transmitted, (\d+) (?:packets )?received.*?([\d.]+)% packet loss/);
  if (!m) return undefined;
  const rtt = out.match(/(?:rtt|round-trip) min\/avg\/max(?:\/mdev)? = [\d.]+\/([\d.]+)\//);
  return {
    transmitted: Number(m[1]),
    received: Number(m[2]),
    lossPercent: Number(m[3]),
    avgMs: rtt ? Number(rtt[1]) : undefined,
  };
}

export interface PingTarget {
  ip: string;
  /** A port the target serves, for the TCP fallback. */
  port?: number;
  /** The target pod, for measuring from its side when the checked pod has no tool at all. */
  pod: string;
  container: string;
}

export async function pingAddress(ctx: VerifyContext): Promise<PingTarget | undefined> {
  for (const app of ctx.env.pingTarget.apps) {
    if (app === ctx.service) continue;
    const pods = await ctx.client.list<Pod>("v1", "Pod", ctx.namespace, `app=${app}`);
    const pod = pods.find(
      (p) => p.status?.phase === "Running" && p.status?.podIP && !p.metadata.deletionTimestamp,
    );
    const ip = pod?.status?.podIP;
    if (pod && ip) {
      const port = (pod.spec?.containers ?? []).flatMap((c) => c.ports ?? [])[0]?.containerPort;
      return { ip, port, pod: pod.metadata.name!, container: mainContainer(pod) };
    }
  }
  return undefined;
}

const noBinary = (r: { exitCode: number; message?: string }) =>
  r.exitCode === 127 || r.exitCode === 126 || /executable file not found|not found/.test(r.message ?? "");

/** curl's `%{time_connect} %{time_total}`, in ms. */
export function parseCurlTimes(out: string): { connectMs: number; totalMs: number } | undefined {
  const m = out.trim().match(/^([\d.]+) ([\d.]+)$/);
  if (!m) return undefined;
  return { connectMs: Number(m[1]) * 1000, totalMs: Number(m[2]) * 1000 };
}

/**
 * Whether a request's handshake was retransmitted: TCP hides a lost packet from the request's
 * success, but Linux resends an unanswered SYN only after 1 s (TCP_TIMEOUT_INIT), so a handshake
 * that took 0.5 s longer than the request's own round trip (a delay slows both alike) lost its
 * SYN or SYN-ACK. At 50% loss half the requests show it, as half of ping's packets go missing.
 */
export function handshakeRetried(t: { connectMs: number; totalMs: number }): boolean {
  return t.connectMs - (t.totalMs - t.connectMs) >= 500;
}

/**
 * Which of a run's requests lost a packet of their handshake. Beside the request's own round trip,
 * the run's shortest round trip (a handshake or a request: a delay slows both alike) is the path's:
 * a handshake a second past it was resent even when the same request's segment was resent too
 * (then its own round trip is long as well, and alone would hide the lost SYN).
 */
export function handshakesRetried(times: { connectMs: number; totalMs: number }[]): boolean[] {
  const path = Math.min(...times.map((t) => Math.min(t.connectMs, t.totalMs - t.connectMs)));
  return times.map((t) => handshakeRetried(t) || t.connectMs - path >= 500);
}

/**
 * For a pod with neither ping nor the busybox sidecar (Train-Ticket's images), the same question
 * asked over TCP with the curl the image has: three HTTP requests to the target; one that fails or
 * whose handshake was retransmitted counts as lost, and the round trip is half of curl's total
 * time (connect + request).
 */
async function tcpProbe(
  ctx: VerifyContext,
  pod: Pod,
  container: string,
  target: PingTarget,
  wallTimeout: number,
) {
  const url = `http://${target.ip}:${target.port}/`;
  const times: { connectMs: number; totalMs: number }[] = [];
  let lost = 0;
  for (let i = 0; i < 3; i++) {
    const r = await execIn(
      ctx.client,
      ctx.namespace,
      pod.metadata.name!,
      container,
      ["curl", "-s", "-o", "/dev/null", "-w", "%{time_connect} %{time_total}", "--max-time", "5", url],
      wallTimeout,
    );
    if (noBinary(r)) return undefined;
    const t = parseCurlTimes(r.stdout);
    if ((r.exitCode === 0 || r.exitCode === 22) && t) times.push(t);
    else lost++;
  }
  lost += handshakesRetried(times).filter(Boolean).length;
  const rtts = times.map((t) => t.totalMs / 2);
  const avgMs = rtts.length
    ? Math.round((rtts.reduce((a, b) => a + b, 0) / rtts.length) * 1000) / 1000
    : undefined;
  return {
    transmitted: 3,
    received: 3 - lost,
    lossPercent: Math.round((lost / 3) * 100),
    avgMs,
    via: `curl ${url}`,
  };
}

async function pingFrom(ctx: VerifyContext, pod: Pod, target: PingTarget) {
  const cmd = ["ping", "-c", "3", "-W", "2", target.ip];
  const wallTimeout = ctx.time.wall(30_000) + 10_000;
  let container = mainContainer(pod);
  let r = await execIn(ctx.client, ctx.namespace, pod.metadata.name!, container, cmd, wallTimeout);
  if (noBinary(r) && (pod.spec?.containers ?? []).some((c: { name: string }) => c.name === SIDECAR)) {
    container = SIDECAR;
    r = await execIn(ctx.client, ctx.namespace, pod.metadata.name!, container, cmd, wallTimeout);
  }
  if (noBinary(r) && target.port) {
    const tcp = await tcpProbe(ctx, pod, container, target, wallTimeout);
    if (tcp) return { container, parsed: tcp as PingResult & { via?: string }, exitCode: 0, output: tcp.via };
  }
  if (noBinary(r) && pod.status?.podIP) {
    // no tool in the pod at all: ping it from the target's side; its replies leave through the
    // same impaired interface, so a delay or loss on its egress shows the same way
    const back = await execIn(
      ctx.client,
      ctx.namespace,
      target.pod,
      target.container,
      ["ping", "-c", "3", "-W", "2", pod.status.podIP],
      wallTimeout,
    );
    const parsed = parsePing(back.stdout);
    if (parsed)
      return {
        container,
        parsed: { ...parsed, via: `ping from ${target.pod}` } as PingResult & { via?: string },
        exitCode: 0,
        output: "",
      };
  }
  return {
    container,
    parsed: parsePing(r.stdout),
    exitCode: r.exitCode,
    output: r.stdout.slice(-400) || r.message,
  };
}

async function measure(ctx: VerifyContext, pods: Pod[], target: PingTarget): Promise<Verdict> {
  const address = target.ip;
  const rows: Record<string, unknown>[] = [];
  const problems: string[] = [];
  for (const pod of pods) {
    const r = await pingFrom(ctx, pod, target);
    rows.push({
      pod: pod.metadata.name,
      container: r.container,
      address,
      ...(r.parsed ?? { output: r.output }),
    });
    if (!r.parsed)
      problems.push(`ping from ${pod.metadata.name} gave no result: ${r.output ?? `exit ${r.exitCode}`}`);
    else if (r.parsed.lossPercent > 0)
      problems.push(`ping from ${pod.metadata.name} lost ${r.parsed.lossPercent}% of packets`);
    else if ((r.parsed.avgMs ?? 0) > 1000)
      problems.push(`ping from ${pod.metadata.name} has an average RTT of ${r.parsed.avgMs} ms`);
  }
  if (pods.length === 0) problems.push(`no pods of ${ctx.service}`);
  const seen = problems.some((p) => p.includes("lost") || p.includes("average RTT"));
  return {
    pass: problems.length === 0,
    reason: problems.join("; ") || `ping from every ${ctx.service} pod to ${address}: 0% loss, RTT ≤ 1000 ms`,
    measurements: { ping: rows },
    inconclusive: problems.length > 0 && !seen,
  };
}

export const networkVerifier: Verifier = {
  id: "network",
  async verify(ctx) {
    const target = await pingAddress(ctx);
    if (!target)
      return {
        pass: ctx.mode === "confirm",
        reason: `no Running pod of ${ctx.env.pingTarget.apps.join("/")} to ping`,
        measurements: {},
      };
    if (ctx.mode === "confirm")
      return pollMeasure(ctx, ctx.windowMs, async () => measure(ctx, await targetPods(ctx), target));
    const pods = await waitTargetsReady(ctx);
    if (!pods) return notReadyVerdict(ctx);
    // A 50%-loss link passes a 3-packet ping 1 time in 8: require several runs in a row.
    const runs: Verdict[] = [];
    for (let i = 0; i < ctx.timeouts.networkRuns; i++) {
      const v = await measure(ctx, pods, target);
      runs.push(v);
      if (!v.pass) break;
    }
    const last = runs[runs.length - 1];
    return {
      ...last,
      measurements: { ...last.measurements, runs: runs.length, required: ctx.timeouts.networkRuns },
    };
  },
};
