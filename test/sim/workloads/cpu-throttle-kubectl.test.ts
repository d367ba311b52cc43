// The expert tier's cpu-throttle, through real kubectl: chaos/expert/cpu-throttle.yaml cuts the target's
// CPU limit (and request) to the env's value; the rollout completes (the container starts, slower
// by startupCpu / limit, and becomes Ready), nothing crashes, and requests through the entry
// route slow down, since the kubelet's cpu.max gives the container limit x 100 ms of CPU per
// 100 ms period (pkg/kubelet/cm/helpers_linux.go MilliCPUToQuota) and a request that needs more
// than what is left of it waits for the next period (kernel/sched/fair.c throttle_cfs_rq;
// workloads/topology/own-time.ts), counted in cpu.stat's nr_throttled (a period in which the
// quota ran out, Documentation/scheduler/sched-bwc.rst) even while `kubectl top` shows the usage
// within the limit. rollout undo brings the old limit and the old request time back. The limits are Simple-Micro's env.yaml
// values (20m) and Online-Boutique's from cpu-throttle-limits.test.ts.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestCluster, type TestCluster } from "../../helpers/cluster.js";
import { deploySystem, eventually, isReady, type Kn, kubectlIn } from "../helpers/failures.js";
import { onePod, patchWith, rolloutStatus, statusOf, undo } from "../helpers/lifecycle.js";
import { debugPod } from "../helpers/network.js";

let t: TestCluster;

beforeAll(async () => {
  t = await startTestCluster(60, 71);
}, 60_000);
afterAll(() => t?.stop());

/** The median of curl's time_total (seconds) over a few requests, and every status code. */
async function timed(kn: Kn, pod: string, url: string, n = 7) {
  const times: number[] = [];
  const codes: string[] = [];
  for (let i = 0; i < n; i++) {
    const r = await kn([
      "exec",
      pod,
      "--",
      "curl",
      "-sS",
      "-o",
      "/dev/null",
      "-w",
      "%{http_code} %{time_total}",
      url,
    ]);
    const [code, total] = r.stdout.trim().split(" ");
    codes.push(code);
    times.push(Number(total));
  }
  times.sort((a, b) => a - b);
  return { median: times[Math.floor(n / 2)], codes };
}

/** The CPU column of `kubectl top pod --containers` for one container, in millicores. */
async function topCpu(kn: Kn, pod: string, container: string): Promise<number> {
  const out = await eventually(kn, ["top", "pod", pod, "--containers", "--no-headers"], (o) =>
    o.split("\n").some((l) => l.split(/\s+/)[1] === container),
  );
  const line = out.split("\n").find((l) => l.split(/\s+/)[1] === container)!;
  return Number(line.split(/\s+/)[2].replace(/m$/, ""));
}

const cases = [
  {
    system: "simple-micro",
    ns: "throttle-sm",
    target: "time-service",
    container: "time-service",
    cpu: "20m",
    url: "http://hello-service:5000/hello",
  },
  {
    system: "online-boutique",
    ns: "throttle-ob",
    target: "productcatalogservice",
    container: "server",
    cpu: "30m",
    url: "http://frontend/",
  },
];

describe.each(cases)("$system: $target limited to $cpu", (c) => {
  let kn: Kn;
  let curl: string;

  beforeAll(async () => {
    kn = kubectlIn(t, c.ns);
    await deploySystem(t, c.system, c.ns);
    curl = await debugPod(kn);
  }, 240_000);

  it("the rollout completes, requests through the entry route slow down at least threefold; undone: fast again", async () => {
    const healthy = await timed(kn, curl, c.url);
    expect(new Set(healthy.codes)).toEqual(new Set(["200"]));
    const before = (await onePod(kn, c.target, isReady)).metadata.name;
    const r = await patchWith(t, kn, c.target, "cpu-throttle", { target_container: c.container, cpu: c.cpu });
    expect(r.exitCode, r.stderr).toBe(0);
    const rollout = await rolloutStatus(kn, c.target);
    expect(rollout.stdout).toContain("successfully rolled out");
    const pod = await onePod(kn, c.target, (p) => p.metadata.name !== before && isReady(p));
    expect(statusOf(pod, c.container)?.restartCount).toBe(0);
    expect(pod.spec.containers.find((x) => x.name === c.container)?.resources).toMatchObject({
      limits: { cpu: c.cpu },
      requests: { cpu: c.cpu },
    });
    const slow = await timed(kn, curl, c.url);
    expect(new Set(slow.codes)).toEqual(new Set(["200"]));
    expect(slow.median).toBeGreaterThanOrEqual(3 * healthy.median);
    // the usage kubectl top shows stays within the limit (the work is done, later)
    const cpu = await topCpu(kn, pod.metadata.name, c.container);
    expect(cpu).toBeGreaterThan(0);
    expect(cpu).toBeLessThanOrEqual(Number.parseInt(c.cpu, 10));
    // the container's cgroup: the kubelet's quota, and periods throttled while usage stays under it
    const cat = (file: string) =>
      kn(["exec", pod.metadata.name, "-c", c.container, "--", "cat", `/sys/fs/cgroup/${file}`]);
    expect((await cat("cpu.max")).stdout.trim()).toBe(`${Number.parseInt(c.cpu, 10) * 100} 100000`);
    const throttled = async () => Number((await cat("cpu.stat")).stdout.match(/^nr_throttled (\d+)$/m)?.[1]);
    const first = await throttled();
    await new Promise((r) => setTimeout(r, 500));
    expect(await throttled()).toBeGreaterThan(first);
    await undo(kn, c.target);
    const back = await timed(kn, curl, c.url);
    expect(back.median).toBeLessThan(slow.median / 3);
  }, 360_000);
});
