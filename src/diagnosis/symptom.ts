// The symptom level's alert (levels.ts): what monitoring would page with, written from a
// measurement, never from what the harness knows of the fault, and never copying a tool's words
// (a failed check's reason names the pods it requested from, wget's stderr the host it could not
// reach: both name services). The measurement is the system's user-facing check (env.yaml
// `userCheck`, src/verify/user.ts): each request along the entry path with its error rate and
// median latency against the healthy baseline, and since when (cluster time). Where that check
// still passes (a fault users do not see, e.g. on a service off the users' path) or the system
// has none, the alert is the namespace's health alert: how many pods are not Ready or restarted,
// how many workloads are not fully Ready, counted, never named (the runtime context shows
// the pods, as it does to anyone). Request paths are given without their host, which would name
// the entry service.

import type { HealthSnapshot } from "../envs/health.js";
import type { UserCheck } from "../envs/schema-env.js";
import type { Pod } from "../kube/objects.js";
import { isReady } from "../verify/pods.js";
import { judgeUser, type UserReading } from "../verify/user.js";

/** The namespace's pods as a health alert counts them. */
export interface PodCounts {
  total: number;
  notReady: number;
  /** Pods with a container that restarted (or is waiting to). */
  restarting: number;
}

export interface SymptomMeasurement {
  /** The system's user-facing check, where it has one. */
  check?: UserCheck;
  /** What users saw before the fault, and what they see now (or why it could not be measured). */
  baseline?: UserReading;
  now?: UserReading | string;
  /** The namespace's health now: the fallback where there is no user-facing check. */
  health: HealthSnapshot;
  /** The namespace's pods now (buildDiagnosis counts them from the pods it lists). */
  pods?: PodCounts;
  /** Cluster ms at which the fault was seen (the alert's onset). */
  sinceMs: number;
}

const good = (a: number | string) => typeof a === "number" && a >= 200 && a < 400;

/** "12:03:10 UTC": the cluster's clock, to the second. */
export const clusterClock = (ms: number) => `${new Date(ms).toISOString().slice(11, 19)} UTC`;

/** The request's method and path, without the host (which is a service's name). */
function entryPath(r: UserCheck["requests"][number]): string {
  const path = URL.canParse(r.url) ? new URL(r.url).pathname + new URL(r.url).search : r.url;
  return `${r.method ?? "GET"} ${path}`;
}

/**
 * An answer as a probe's dashboard shows it: the HTTP status, or one of a few fixed words. A
 * tool's own words ("wget: bad address 'cart:80'", an exec's error) never pass through.
 */
export function answerWord(a: number | string): string {
  if (typeof a === "number") return String(a);
  if (/timed? ?out/i.test(a)) return "timeout";
  if (/refused/i.test(a)) return "refused";
  if (/no such host|bad address|resolve/i.test(a)) return "no such host";
  if (/reset/i.test(a)) return "connection reset";
  if (/unreachable|no route/i.test(a)) return "unreachable";
  return "no HTTP answer";
}

/** How many pods are not Ready, and how many restarted, of a namespace's pods. */
export function podCounts(pods: Pod[]): PodCounts {
  // a finished pod (a Job's) is not down, and one on its way out is not counted twice
  const live = pods.filter((p) => !p.metadata.deletionTimestamp && p.status?.phase !== "Succeeded");
  const restarted = (p: Pod) =>
    (p.status?.containerStatuses ?? []).some(
      (c) => (c.restartCount ?? 0) > 0 || c.state?.waiting?.reason === "CrashLoopBackOff",
    );
  return {
    total: live.length,
    notReady: live.filter((p) => !isReady(p)).length,
    restarting: live.filter(restarted).length,
  };
}

/** The health alert's lines: pods and workloads counted, none named. */
function healthLines(m: SymptomMeasurement): string[] {
  const down = m.health.filter((w) => !w.settled).length;
  const lines = m.pods
    ? [
        `- ${m.pods.notReady} of ${m.pods.total} pods are not Ready; ${m.pods.restarting} have restarted containers`,
      ]
    : [];
  lines.push(`- ${down} of ${m.health.length} workloads are not fully Ready`);
  return lines;
}

/** The user-facing check's lines: each request's error rate and latency against the baseline. */
function requestLines(check: UserCheck, now: UserReading, baseline?: UserReading): string[] {
  const lines: string[] = [];
  for (const r of check.requests) {
    const got = now.requests.find((x) => x.name === r.name);
    if (!got) continue;
    const bad = got.answers.filter((a) => !good(a));
    const rate = Math.round((100 * bad.length) / Math.max(1, got.answers.length));
    const before = baseline?.requests.find((x) => x.name === r.name)?.medianMs;
    const errors = bad.length ? ` (${[...new Set(bad.map(answerWord))].join(", ")})` : "";
    const latency =
      before === undefined
        ? `median latency ${got.medianMs} ms`
        : `median latency ${got.medianMs} ms against ${before} ms healthy`;
    lines.push(
      `- Entry path ${entryPath(r)} (${r.name}): ${rate}% of ${got.answers.length} requests failed${errors}; ${latency}`,
    );
  }
  return lines;
}

/** The alert's lines ("- ..."), from the measurement alone. */
export function alertText(m: SymptomMeasurement): string {
  const since = `since ${clusterClock(m.sinceMs)}`;
  const lines: string[] = [];
  if (m.check && m.now !== undefined && typeof m.now !== "string") {
    const failing = !judgeUser(m.now, m.baseline, m.check).pass;
    lines.push(
      failing
        ? `- Alert: the user-facing check fails ${since}`
        : `- Alert: the namespace's health alert fired ${since}; the user-facing check still passes`,
    );
    lines.push(...requestLines(m.check, m.now, m.baseline));
    if (!failing) lines.push(...healthLines(m));
  } else if (m.check && typeof m.now === "string") {
    // the probe could not run: why, in fixed words (its reason names the pods it looked for)
    const why = /^no Ready pod/.test(m.now) ? ": its probe found no Ready pod to request from" : "";
    lines.push(`- Alert: the user-facing check could not be made ${since}${why}`);
    lines.push(...healthLines(m));
  } else {
    // no user-facing check for this system yet: the health alert alone
    lines.push(`- Alert: the namespace's health alert fired ${since}`);
    lines.push(...healthLines(m), "- (this system has no user-facing check to measure requests with)");
  }
  return lines.join("\n");
}
