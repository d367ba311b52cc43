// The symptom level's alert (levels.ts): what monitoring would page with, written from a
// measurement, never from what the harness knows of the fault. The measurement is the system's
// user-facing check (env.yaml `userCheck`, src/verify/user.ts): each request along the entry path
// with its error rate and median latency against the healthy baseline, and since when (cluster
// time). A system without a userCheck yet falls back to the namespace's health check: how many
// workloads are not Ready, counted, never named (the runtime context shows the pods, as it does
// to anyone). Request paths are given without their host, which would name the entry service.
import type { HealthSnapshot } from "../envs/health.js";
import type { UserCheck } from "../envs/schema-env.js";
import { judgeUser, type UserReading } from "../verify/user.js";

export interface SymptomMeasurement {
  /** The system's user-facing check, where it has one. */
  check?: UserCheck;
  /** What users saw before the fault, and what they see now (or why it could not be measured). */
  baseline?: UserReading;
  now?: UserReading | string;
  /** The namespace's health now: the fallback where there is no user-facing check. */
  health: HealthSnapshot;
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

/** The alert's lines ("- ..."), from the measurement alone. */
export function alertText(m: SymptomMeasurement): string {
  const since = `since ${clusterClock(m.sinceMs)} (cluster time)`;
  const lines: string[] = [];
  if (m.check && m.now !== undefined) {
    const failing = !judgeUser(m.now, m.baseline, m.check).pass;
    lines.push(
      failing
        ? `- Alert: the user-facing check fails ${since}`
        : `- Alert: an alert fired on the namespace ${since}; the user-facing check still passes`,
    );
    if (typeof m.now === "string") lines.push(`- The check could not be made: ${m.now}`);
    else
      for (const r of m.check.requests) {
        const got = m.now.requests.find((x) => x.name === r.name);
        if (!got) continue;
        const bad = got.answers.filter((a) => !good(a));
        const rate = Math.round((100 * bad.length) / Math.max(1, got.answers.length));
        const before = m.baseline?.requests.find((x) => x.name === r.name)?.medianMs;
        const errors = bad.length ? ` (${[...new Set(bad)].join(", ")})` : "";
        const latency =
          before === undefined
            ? `median latency ${got.medianMs} ms`
            : `median latency ${got.medianMs} ms against ${before} ms healthy`;
        lines.push(
          `- Entry path ${entryPath(r)} (${r.name}): ${rate}% of ${got.answers.length} requests failed${errors}; ${latency}`,
        );
      }
  } else {
    // no user-facing check for this system yet: the health check's failing entry, counted
    const down = m.health.filter((w) => !w.settled).length;
    lines.push(`- Alert: the namespace's health check fails ${since}`);
    lines.push(
      `- ${down} of ${m.health.length} workloads are not fully Ready (this system has no user-facing check to measure requests with)`,
    );
  }
  lines.push("- Which service is at fault, and why, is not known: that is for the responder to find.");
  return lines.join("\n");
}
