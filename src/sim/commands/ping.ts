// ping, as iputils (Debian-like images) or BusyBox prints it. Echo requests cross the pinging
// pod's egress and the target's ingress, replies the reverse (NetworkChaos delay, jitter and
// loss apply per packet; ctx.rng decides losses). Pods answer whatever their readiness (the
// network namespace lives as long as the sandbox), as do nodes and loopback; a ClusterIP is
// virtual (kube-proxy forwards TCP/UDP ports only) and never answers: 100% loss, as on k3s.
// Public addresses answer through the node's NAT at their own round trip (outside.ts), the pod's
// netem applying to them as to any egress; with `--egress none` they never answer.
// Packets go out every -i seconds and replies are printed as they arrive, in cluster time.

import type { CommandRegistry, Proc } from "../userland/process.js";
import { gated, toolImpl } from "../userland/toolbox.js";
import { draw, egress, type Impairment, ingress, NONE, oneWay } from "../workloads/topology/impairments.js";
import { lookup, whoHas } from "../workloads/topology/names.js";
import { packetRttMs, reachable, replyTtl } from "../workloads/topology/outside.js";
import { parseArgs } from "./args.js";

interface Reply {
  at: number;
  seq: number;
  rtt: number;
}

/** iputils prints a reply's time with fewer decimals as it grows (µs resolution). */
function iputilsTime(ms: number): string {
  const us = Math.round(ms * 1000);
  if (us >= 100_000 - 50) return String(Math.round(us / 1000));
  if (us >= 10_000 - 5) return (us / 1000).toFixed(1);
  if (us >= 1000) return (us / 1000).toFixed(2);
  return (us / 1000).toFixed(3);
}

/** printf("%g") of a percentage, as iputils prints the loss. */
const pct = (x: number) => String(Number(x.toPrecision(6)));

async function ping(args: string[], p: Proc): Promise<number> {
  const busybox = toolImpl(p, "ping") === "busybox";
  const { flags, values, rest } = parseArgs(args, ["c", "W", "i", "w", "s", "t", "I"]);
  const host = rest[0];
  if (!host) {
    p.stderr.write(
      busybox
        ? "BusyBox v1.35.0 multi-call binary.\n\nUsage: ping [OPTIONS] HOST\n"
        : "ping: usage error: Destination address required\n",
    );
    return busybox ? 1 : 2;
  }
  const count = values.has("c") ? Number(values.get("c")) : Number.POSITIVE_INFINITY;
  const intervalMs = Number(values.get("i") ?? 1) * 1000;
  const waitMs = Number(values.get("W") ?? 10) * 1000;
  const deadlineMs = values.has("w") ? Number(values.get("w")) * 1000 : undefined;
  const size = Number(values.get("s") ?? 56);
  const quiet = flags.has("q");
  if (!(count > 0) || !(intervalMs >= 0) || Number.isNaN(waitMs))
    return p.fail(busybox ? "invalid number" : "invalid argument", busybox ? 1 : 2);

  const r = await lookup(p, host);
  if ("error" in r) {
    if (busybox) return p.fail(`bad address '${host}'`, 1);
    return p.fail(
      `${host}: ${r.error === "timeout" ? "Temporary failure in name resolution" : "Name or service not known"}`,
      2,
    );
  }
  const ip = r.ips[0];
  const named = host !== ip;
  const shown = busybox ? host : r.fqdn;
  p.out(
    busybox
      ? `PING ${shown} (${ip}): ${size} data bytes\n`
      : `PING ${shown} (${ip}) ${size}(${size + 28}) bytes of data.\n`,
  );
  const from = !busybox && named && !flags.has("n") ? `${r.fqdn} (${ip})` : ip;

  // who answers, how far away, and what netem does on the way
  const who = whoHas(p, ip);
  const rnd = () => p.ctx.rng.next();
  const outside = who.kind === "external" && reachable(p.ctx, ip);
  const answers = outside || ["pod", "node", "loopback"].includes(who.kind);
  const peer = who.kind === "pod" ? who.pod : undefined;
  const local =
    who.kind === "loopback" || (who.kind === "pod" && who.pod.metadata.uid === p.pod.metadata.uid);
  // outside: the pod's own qdiscs both ways (a rule with a target leaves other addresses alone)
  const go: Impairment = local
    ? NONE
    : outside
      ? egress(p.ctx.faults, p.pod, ip)
      : oneWay(p.ctx.faults, p.pod, peer);
  const back: Impairment = local
    ? NONE
    : outside
      ? ingress(p.ctx.faults, p.pod, ip)
      : oneWay(p.ctx.faults, peer, p.pod);
  const baseRtt = () => (outside ? packetRttMs(ip, rnd) : local ? 0.025 + rnd() * 0.03 : 0.05 + rnd() * 0.12);

  const ttl = outside ? replyTtl(ip) : 64;
  const start = p.clock.now();
  const pending: Reply[] = [];
  const rtts: number[] = [];
  let sent = 0;
  let lastSend = 0;
  let lastActivity = 0;
  let linger: number | undefined;
  for (;;) {
    const sendDue =
      sent < count && (deadlineMs === undefined || sent * intervalMs < deadlineMs)
        ? sent * intervalMs
        : undefined;
    pending.sort((a, b) => a.at - b.at);
    const arrival = pending[0]?.at;
    if (sendDue === undefined && linger === undefined)
      linger = lastSend + (rtts.length ? Math.min(waitMs, Math.max(...rtts, 1) * 2) : waitMs);
    const end = Math.min(linger ?? Number.POSITIVE_INFINITY, deadlineMs ?? Number.POSITIVE_INFINITY);
    const next = Math.min(sendDue ?? Number.POSITIVE_INFINITY, arrival ?? Number.POSITIVE_INFINITY);
    if (next > end || (sendDue === undefined && arrival === undefined)) {
      if (
        end > p.clock.now() - start &&
        Number.isFinite(end) &&
        !(await p.sleep(end - (p.clock.now() - start)))
      )
        return 130;
      break;
    }
    const lag = next - (p.clock.now() - start);
    if (lag > 0 && !(await p.sleep(lag))) return 130;
    if (sendDue !== undefined && sendDue <= next) {
      sent++;
      lastSend = lastActivity = sendDue;
      const lost = !answers || rnd() < go.loss || rnd() < back.loss;
      const rtt = baseRtt() + draw(go, rnd) + draw(back, rnd);
      if (!lost) pending.push({ at: sendDue + rtt, seq: sent, rtt });
      continue;
    }
    const got = pending.shift()!;
    rtts.push(got.rtt);
    lastActivity = Math.max(lastActivity, got.at);
    if (!quiet)
      p.out(
        busybox
          ? `${size + 8} bytes from ${ip}: seq=${got.seq - 1} ttl=${ttl} time=${got.rtt.toFixed(3)} ms\n`
          : `${size + 8} bytes from ${from}: icmp_seq=${got.seq} ttl=${ttl} time=${iputilsTime(got.rtt)} ms\n`,
      );
    if (rtts.length >= count) break;
  }
  const rx = rtts.length;
  const lossPct = sent ? ((sent - rx) * 100) / sent : 0;
  const min = Math.min(...rtts);
  const max = Math.max(...rtts);
  const avg = rtts.reduce((a, b) => a + b, 0) / (rx || 1);
  const mdev = Math.sqrt(Math.max(0, rtts.reduce((a, b) => a + b * b, 0) / (rx || 1) - avg * avg));
  p.out(`\n--- ${shown} ping statistics ---\n`);
  if (busybox) {
    p.out(`${sent} packets transmitted, ${rx} packets received, ${Math.floor(lossPct)}% packet loss\n`);
    if (rx) p.out(`round-trip min/avg/max = ${min.toFixed(3)}/${avg.toFixed(3)}/${max.toFixed(3)} ms\n`);
  } else {
    const took = Math.round(lastActivity) + Math.max(0, sent - 1) + (rx ? 1 : 0);
    p.out(`${sent} packets transmitted, ${rx} received, ${pct(lossPct)}% packet loss, time ${took}ms\n`);
    p.out(
      rx ? `rtt min/avg/max/mdev = ${[min, avg, max, mdev].map((x) => x.toFixed(3)).join("/")} ms\n` : "\n",
    );
  }
  return rx === 0 || (deadlineMs !== undefined && Number.isFinite(count) && rx < count) ? 1 : 0;
}

export function registerPing(r: CommandRegistry): void {
  r.register("ping", gated("ping", ping));
}
