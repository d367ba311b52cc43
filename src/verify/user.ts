// What users see (the expert tier, docs/expert-tier.md): requests along the system's entry path
// (env.yaml `userCheck`), made with wget or curl from a container of the namespace through the
// API's exec, as a monitoring probe inside the cluster would make them; so the same measurement
// runs on k3s. Each request is made `samples` times; it passes when every answer is 2xx/3xx and
// the median time is within the margin of the healthy baseline, measured the same way before the
// fault. A request's time is the exec's, in cluster time: the exec's own overhead is in the
// baseline too.

import type { UserCheck } from "../envs/schema-env.js";
import { execIn } from "../kube/exec.js";
import type { Pod } from "../kube/objects.js";
import { isReady } from "./pods.js";
import type { CheckScope, Verdict } from "./types.js";

export interface RequestReading {
  name: string;
  /** Each sample's HTTP status, or what went wrong ("timeout", "refused", the tool's words). */
  answers: (number | string)[];
  /** Median time of the samples, cluster ms. */
  medianMs: number;
}

export interface UserReading {
  /** pod/container the requests were made from. */
  from: string;
  requests: RequestReading[];
}

/** The pod to request from: the first of the check's apps that the case's faults leave alone, Ready. */
async function client(scope: CheckScope, check: UserCheck, avoid: string[]): Promise<Pod | undefined> {
  const apps = check.from.apps.filter((a) => !avoid.includes(a));
  for (const app of apps.length ? apps : check.from.apps) {
    const pods = await scope.client.list<Pod>("v1", "Pod", scope.namespace, `app=${app}`);
    const pod = pods.find(
      (p) =>
        !p.metadata.deletionTimestamp &&
        isReady(p) &&
        (p.spec?.containers ?? []).some((c) => c.name === check.from.container),
    );
    if (pod) return pod;
  }
  return undefined;
}

type Request = UserCheck["requests"][number];

/**
 * The command line of one request, timed where it is made: curl reports the status and its own
 * time (-w); busybox wget prints the status in the headers (-S) and busybox's `time -p` its time.
 * The request's own time, not the exec's: the API's round trip is not what users wait for.
 */
export function requestArgv(tool: UserCheck["from"]["tool"], r: Request, timeoutSeconds: number): string[] {
  const t = String(timeoutSeconds);
  if (tool === "curl") {
    const post = r.method === "POST" ? ["-X", "POST", "--data", r.data ?? ""] : [];
    const type = r.contentType ? ["-H", `Content-Type: ${r.contentType}`] : [];
    return [
      "curl",
      "-s",
      "-o",
      "/dev/null",
      "-w",
      "%{http_code} %{time_total}",
      "-m",
      t,
      ...post,
      ...type,
      r.url,
    ];
  }
  const post = r.method === "POST" ? [`--post-data=${r.data ?? ""}`] : [];
  const type = r.contentType ? ["--header", `Content-Type: ${r.contentType}`] : [];
  return ["time", "-p", "wget", "-q", "-S", "-O", "/dev/null", "-T", t, ...post, ...type, r.url];
}

/** The request's own time in ms, as the tool reported it (curl's time_total, `time -p`'s real). */
export function timeOf(tool: UserCheck["from"]["tool"], out: string, err: string): number | undefined {
  const s = tool === "curl" ? out.trim().split(/\s+/)[1] : /^real\s+([\d.]+)/m.exec(err)?.[1];
  const secs = Number(s);
  return s !== undefined && Number.isFinite(secs) ? Math.round(secs * 1000) : undefined;
}

/** One answer: the HTTP status the tool reported, or why there was none. */
export function answerOf(
  tool: UserCheck["from"]["tool"],
  out: string,
  err: string,
  exitCode: number,
): number | string {
  if (tool === "curl") {
    const code = Number(out.trim().split(/\s+/)[0]);
    if (code > 0) return code;
    return exitCode === 28
      ? "timeout"
      : exitCode === 7
        ? "refused"
        : exitCode === 6
          ? "no such host"
          : `curl exit ${exitCode}`;
  }
  // busybox wget -S prints each response's status line ("  HTTP/1.1 200 OK"); the last one counts
  const statuses = [...err.matchAll(/HTTP\/\d(?:\.\d)? (\d{3})/g)].map((m) => Number(m[1]));
  if (statuses.length) return statuses[statuses.length - 1];
  // wget runs under `time -p`: its real/user/sys lines come after wget's own last word
  const words =
    err
      .trim()
      .split("\n")
      .filter((l) => !/^(real|user|sys) [\d.]+$/.test(l))
      .pop() ?? "";
  if (/timed out/i.test(words)) return "timeout";
  if (/refused/i.test(words)) return "refused";
  if (/bad address|resolve/i.test(words)) return "no such host";
  return words || `wget exit ${exitCode}`;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.floor((s.length - 1) / 2)] : 0;
};

/** Every request of the check, `samples` times each, from a pod the case's faults leave alone. */
export async function measureUser(
  scope: CheckScope,
  check: UserCheck,
  avoid: string[],
): Promise<UserReading | string> {
  const pod = await client(scope, check, avoid);
  if (!pod)
    return `no Ready pod of ${check.from.apps.join(", ")} with a ${check.from.container} container to request from`;
  const name = pod.metadata.name!;
  const requests: RequestReading[] = [];
  for (const r of check.requests) {
    const answers: (number | string)[] = [];
    const times: number[] = [];
    for (let i = 0; i < check.samples; i++) {
      const start = await scope.time.clusterNow();
      const res = await execIn(
        scope.client,
        scope.namespace,
        name,
        check.from.container,
        requestArgv(check.from.tool, r, check.timeoutSeconds),
        scope.time.wall(check.timeoutSeconds * 1000) + 10_000,
      );
      // where the tool did not report its time, the exec's (which includes the API's round trip)
      times.push(timeOf(check.from.tool, res.stdout, res.stderr) ?? (await scope.time.clusterNow()) - start);
      answers.push(
        res.message && !res.stdout && !res.stderr
          ? res.message
          : answerOf(check.from.tool, res.stdout, res.stderr, res.exitCode),
      );
    }
    // to a tenth of a millisecond: a healthy in-cluster request takes about one, and "0 ms" reads as no measurement
    requests.push({ name: r.name, answers, medianMs: Math.round(median(times) * 10) / 10 });
  }
  return { from: `${name}/${check.from.container}`, requests };
}

const good = (a: number | string) => typeof a === "number" && a >= 200 && a < 400;

/** The reading against the healthy baseline: every answer good, every median within the margin. */
export function judgeUser(
  reading: UserReading | string,
  baseline: UserReading | undefined,
  check: UserCheck,
): Verdict {
  if (typeof reading === "string")
    return { pass: false, reason: reading, measurements: {}, inconclusive: true };
  const problems: string[] = [];
  for (const r of reading.requests) {
    const bad = r.answers.filter((a) => !good(a));
    if (bad.length) {
      problems.push(
        `${r.name}: ${bad.length} of ${r.answers.length} requests failed (${[...new Set(bad)].join(", ")})`,
      );
      continue;
    }
    const before = baseline?.requests.find((b) => b.name === r.name)?.medianMs;
    if (before === undefined) continue;
    const limit = before * check.margin.factor + check.margin.plusMs;
    if (r.medianMs > limit)
      problems.push(
        `${r.name}: median ${r.medianMs} ms, above ${Math.round(limit)} ms (healthy: ${before} ms)`,
      );
  }
  return {
    pass: problems.length === 0,
    reason: problems.length
      ? `users see failures: ${problems.join("; ")}`
      : `every request users make succeeds within the healthy time (${reading.requests.map((r) => `${r.name} ${r.medianMs} ms`).join(", ")})`,
    measurements: { from: reading.from, requests: reading.requests, baseline: baseline?.requests ?? null },
  };
}

/** The user-facing check of a case: the system's requests, against the baseline taken before the fault. */
export interface UserFacing {
  /**
   * confirm: poll until users see the fault (within windowMs); final with wait: poll until they do
   * not (within the usage timeout); final without wait: one reading (the hold's).
   */
  verify(scope: CheckScope, mode: "confirm" | "final", wait: boolean, windowMs?: number): Promise<Verdict>;
}

export function userFacing(check: UserCheck, baseline: UserReading | undefined, avoid: string[]): UserFacing {
  const read = async (scope: CheckScope) =>
    judgeUser(await measureUser(scope, check, avoid), baseline, check);
  return {
    async verify(scope, mode, wait, windowMs = scope.windowMs) {
      if (!wait) return read(scope);
      const until =
        (await scope.time.clusterNow()) + (mode === "confirm" ? windowMs : scope.timeouts.usageMs);
      for (;;) {
        const v = await read(scope);
        const done = mode === "confirm" ? !v.pass && !v.inconclusive : v.pass;
        if (done || (await scope.time.clusterNow()) >= until || scope.signal?.aborted) return v;
        await scope.time.sleep(scope.timeouts.pollMs, scope.signal);
      }
    },
  };
}
