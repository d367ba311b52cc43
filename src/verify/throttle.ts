// The expert tier's `throttle` check (cpu-throttle): the CFS bandwidth controller's own count of
// the target container's throttling, read twice from inside the container (`cat cpu.stat` of its
// cgroup: nr_periods, the 100 ms periods in which the group ran; nr_throttled, those in which it
// ran out of quota; Documentation/scheduler/sched-bwc.rst) some seconds apart. A limit cut below
// what the service needs throttles most periods between the two readings (the fault shows); a
// service within its limit is throttled in few. What `kubectl top` shows cannot tell them apart:
// a throttled container's usage stays at or under its limit.
import { execIn } from "../kube/exec.js";
import type { Pod } from "../kube/objects.js";
import { guardedVerifier } from "./guarded.js";
import { isReady, targetPods } from "./pods.js";
import { appContainer } from "./requests.js";
import type { Verdict, Verifier, VerifyContext } from "./types.js";

/** Cluster ms between the two readings: 100 periods of 100 ms for a container that is busy throughout. */
export const SAMPLE_MS = 10_000;
/** Above this share of periods throttled the fault shows: most of them (the limit cut below the need). */
export const FAULT_SHARE = 0.5;
/**
 * At or below this share the service is back within its limit. It is the default threshold of
 * kubernetes-mixin's CPUThrottlingHigh alert (cpuThrottlingPercent: 25, on
 * increase(container_cpu_cfs_throttled_periods_total) / increase(container_cpu_cfs_periods_total)),
 * the alert kube-prometheus users are paged with: a service throttled less is not seen as starved.
 * Healthy services of the three systems measure 0-10% (bursts above their share of a period).
 */
export const RECOVERED_SHARE = 0.25;

export interface CpuStat {
  periods: number;
  throttled: number;
}

/** nr_periods and nr_throttled of a cgroup's cpu.stat (v2, and v1's cpu controller alike). */
export function parseCpuStat(text: string): CpuStat | undefined {
  const periods = /^nr_periods (\d+)$/m.exec(text)?.[1];
  const throttled = /^nr_throttled (\d+)$/m.exec(text)?.[1];
  if (periods === undefined || throttled === undefined) return undefined;
  return { periods: Number(periods), throttled: Number(throttled) };
}

/**
 * The share of the periods between two readings in which the container was throttled: 0 when
 * none ran (an idle group's timer stops); undefined when the counts went back (the container
 * started again in between, with a new cgroup).
 */
export function throttledShare(a: CpuStat, b: CpuStat): number | undefined {
  const periods = b.periods - a.periods;
  const throttled = b.throttled - a.throttled;
  if (periods < 0 || throttled < 0) return undefined;
  return periods === 0 ? 0 : throttled / periods;
}

export interface ThrottleRow {
  pod: string;
  container: string;
  periods?: number;
  throttled?: number;
  share?: number;
  problem?: string;
}

const pct = (x: number) => `${Math.round(x * 100)}%`;

/**
 * A reading's verdict: confirm mode asks whether the fault shows (a container throttled in most
 * periods), final mode whether every container is back under the recovered share.
 */
export function judgeThrottle(service: string, rows: ThrottleRow[], mode: VerifyContext["mode"]): Verdict {
  const measured = rows.filter((r) => r.share !== undefined);
  const problems = rows.flatMap((r) => (r.problem ? [`${r.pod}/${r.container}: ${r.problem}`] : []));
  if (!rows.length) problems.push(`no Ready pod of ${service}`);
  const starved = measured.filter((r) => (r.share as number) > FAULT_SHARE);
  const over = measured.filter((r) => (r.share as number) > RECOVERED_SHARE);
  const line = (r: ThrottleRow) =>
    `${r.pod}/${r.container} throttled in ${r.throttled} of ${r.periods} periods (${pct(r.share as number)})`;
  const pass = mode === "confirm" ? starved.length === 0 : over.length === 0 && problems.length === 0;
  const bad = mode === "confirm" ? starved : over;
  return {
    pass,
    reason: pass
      ? `${service} is not starved of CPU: ${measured.map(line).join("; ")}`
      : [...bad.map(line), ...problems].join("; ") +
        (bad.length ? ` (above ${pct(mode === "confirm" ? FAULT_SHARE : RECOVERED_SHARE)})` : ""),
    measurements: { throttling: rows, sampleMs: SAMPLE_MS },
    ...(!pass && bad.length === 0 ? { inconclusive: true } : {}),
  };
}

async function cpuStat(ctx: VerifyContext, pod: Pod, container: string): Promise<CpuStat | string> {
  const run = (file: string) =>
    execIn(
      ctx.client,
      ctx.namespace,
      pod.metadata.name!,
      container,
      ["cat", file],
      ctx.time.wall(10_000) + 10_000,
    );
  // cgroup v2 (k3s on a current distribution), else v1's cpu controller
  let r = await run("/sys/fs/cgroup/cpu.stat");
  let stat = parseCpuStat(r.stdout);
  if (!stat) {
    r = await run("/sys/fs/cgroup/cpu/cpu.stat");
    stat = parseCpuStat(r.stdout);
  }
  return stat ?? `cpu.stat could not be read: ${r.stderr.trim() || r.message || `exit ${r.exitCode}`}`;
}

async function read(ctx: VerifyContext): Promise<Verdict> {
  const pods = (await targetPods(ctx)).filter(isReady);
  const of = (p: Pod) => appContainer(ctx.env, p, ctx.service);
  const first = await Promise.all(pods.map((p) => cpuStat(ctx, p, of(p))));
  await ctx.time.sleep(SAMPLE_MS, ctx.signal);
  const second = await Promise.all(pods.map((p) => cpuStat(ctx, p, of(p))));
  const rows = pods.map((p, i): ThrottleRow => {
    const row = { pod: p.metadata.name!, container: of(p) };
    const [a, b] = [first[i], second[i]];
    if (typeof a === "string" || typeof b === "string")
      return { ...row, problem: typeof a === "string" ? a : (b as string) };
    const share = throttledShare(a, b);
    if (share === undefined) return { ...row, problem: "the container started again between the readings" };
    return { ...row, periods: b.periods - a.periods, throttled: b.throttled - a.throttled, share };
  });
  return judgeThrottle(ctx.service, rows, ctx.mode);
}

export const throttleVerifier: Verifier = guardedVerifier("throttle", read);
