// The reference's verification (systems.json referenceVerification) evaluated with kubectl alone:
// wait up to 300 s (cluster time) for every target pod to be Running+Ready, then
//   cpu / memory   `top pod --containers`: every non-sidecar container below 50% of its limit,
//                  polled every 2 s for up to 60 s (a pass at any poll passes)
//   pod            Ready, and top returns metrics for every target pod
//   network        from each pod (main container, else sidecar-busybox) `ping -c 3 -W 2 <ip>`:
//                  0% loss and avg RTT <= 1000 ms, three runs in a row
//   io             in each pod, dd 10 MiB with oflag=direct into /var/log/mysql: >= 10 MB/s
//   config         the cpu and the memory checks both pass
import {
  ddFrom,
  type Failure,
  isReady,
  type Kn,
  limitsOf,
  type Pod,
  pingAddress,
  pingFrom,
  podsOf,
  SIDECAR,
  sleep,
  topRows,
} from "./failure-helpers.js";

export interface CheckEnv {
  kn: Kn;
  app: string;
  pingApps: string[];
  /** The cluster's speed: cluster seconds per wall second. */
  speed: number;
}

export interface Verdict {
  pass: boolean;
  why: string;
}

const wallMs = (env: CheckEnv, clusterMs: number) => clusterMs / env.speed;

/** The target pods once all are Running+Ready, or undefined after `readyMs` of cluster time. */
async function readyTargets(env: CheckEnv, readyMs: number): Promise<Pod[] | undefined> {
  const deadline = Date.now() + wallMs(env, readyMs);
  for (;;) {
    const pods = await podsOf(env.kn, env.app);
    if (pods.length && pods.every(isReady)) return pods;
    if (Date.now() > deadline) return undefined;
    await sleep(Math.max(50, wallMs(env, 10_000)));
  }
}

/** One look at `top --containers`: every non-sidecar container below half its limit. */
async function usageOnce(env: CheckEnv, pods: Pod[], r: "cpu" | "memory"): Promise<Verdict> {
  const rows = topRows((await env.kn(["top", "pod", "-l", `app=${env.app}`, "--containers"])).stdout);
  const bad: string[] = [];
  for (const p of pods) {
    const limits = limitsOf(p);
    for (const c of p.spec.containers) {
      if (c.name === SIDECAR) continue;
      const row = rows.find((x) => x.pod === p.metadata.name && x.container === c.name);
      if (!row) {
        bad.push(`no metrics for ${p.metadata.name}/${c.name}`);
        continue;
      }
      const used = r === "cpu" ? row.cpu : row.memMi;
      const limit = r === "cpu" ? limits[c.name].cpu : limits[c.name].memMi;
      if (used >= limit / 2) bad.push(`${p.metadata.name}/${c.name} ${r} ${used} of ${limit}`);
    }
  }
  return { pass: bad.length === 0, why: bad.join("; ") || `${r} below half the limits` };
}

async function usage(env: CheckEnv, pods: Pod[], r: "cpu" | "memory"): Promise<Verdict> {
  const deadline = Date.now() + wallMs(env, 60_000);
  for (;;) {
    const v = await usageOnce(env, pods, r);
    if (v.pass || Date.now() > deadline) return v;
    await sleep(Math.max(30, wallMs(env, 2_000)));
  }
}

/** Three pings in a row must pass, as the project's verifier asks (src/verify/network.ts): a
 * 50%-loss link lets one 3-packet ping through 1 time in 8. */
const PING_RUNS = 3;

async function network(env: CheckEnv, pods: Pod[]): Promise<Verdict> {
  const addr = await pingAddress(env.kn, env.pingApps, env.app);
  for (let run = 0; run < PING_RUNS; run++) {
    for (const p of pods) {
      const r = await pingFrom(env.kn, p, addr);
      if (!r.ping) return { pass: false, why: `no ping result from ${p.metadata.name}: ${r.out}` };
      if (r.ping.loss > 0 || (r.ping.avg ?? 0) > 1000)
        return {
          pass: false,
          why: `${p.metadata.name}: ${r.ping.loss}% loss, avg ${r.ping.avg} ms (run ${run + 1})`,
        };
    }
  }
  return { pass: true, why: `${PING_RUNS} pings to ${addr}: 0% loss, avg <= 1000 ms` };
}

async function io(env: CheckEnv, pods: Pod[]): Promise<Verdict> {
  for (const p of pods) {
    const rate = await ddFrom(env.kn, p);
    if (rate < 10) return { pass: false, why: `${p.metadata.name}: dd ${rate} MB/s` };
  }
  return { pass: true, why: "dd >= 10 MB/s in every pod" };
}

/** The reference's check for a failure, now. `readyMs` is its patience for Ready pods. */
export async function referenceCheck(env: CheckEnv, failure: Failure, readyMs = 300_000): Promise<Verdict> {
  const pods = await readyTargets(env, readyMs);
  if (!pods) {
    const now = await podsOf(env.kn, env.app);
    return {
      pass: false,
      why: `not all Running+Ready: ${now.map((p) => `${p.metadata.name} ${p.status?.phase}`).join(", ")}`,
    };
  }
  switch (failure) {
    case "cpu-stress":
      return usage(env, pods, "cpu");
    case "memory-stress":
      return usage(env, pods, "memory");
    case "pod-fail": {
      const out = (await env.kn(["top", "pod", "-l", `app=${env.app}`, "--no-headers"])).stdout;
      const names = out.split("\n").map((l) => l.trim().split(/\s+/)[0]);
      const missing = pods.filter((p) => !names.includes(p.metadata.name));
      return {
        pass: missing.length === 0,
        why: missing.length ? `no metrics for ${missing.map((p) => p.metadata.name)}` : "Ready with metrics",
      };
    }
    case "network-delay":
    case "network-loss":
      return network(env, pods);
    case "disk-io":
      return io(env, pods);
    case "pod-config-error": {
      const cpu = await usage(env, pods, "cpu");
      if (!cpu.pass) return cpu;
      return usage(env, pods, "memory");
    }
  }
}
