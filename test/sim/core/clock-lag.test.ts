// The embedded cluster's clock never runs ahead of the work: with the event loop kept busy
// (callbacks that busy-loop for many times their interval), every timer still runs at its own
// instant, in the order of those instants, and `now()` never passes a timer that has not run;
// the cluster slows down instead. So the same schedule gives the same history loaded and idle.
// (The clocks start a minute behind the wall clock, the lead a fast clock needs: clock-wall.test.ts.)
// The runner reaches the clock only through the API: /version reports the speed and the Node
// ConfigMap kube-system/cluster-clock sets it (src/kube/time.ts), checked with kubectl; an
// identity confined to a namespace sees neither (it is the harness's, not the system's).
// Kubernetes' own components keep time with k8s.io/utils/clock (a fake clock in their tests, as
// ManualClock here); a simulated one must in addition never let time pass work it did not do.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import { afterAll, describe, expect, it } from "vitest";
import { simData } from "../../../src/cli/sim-data.js";
import { EmbeddedCluster } from "../../../src/sim/cluster/cluster.js";
import { WallClock } from "../../../src/sim/core/clock.js";

const busy = (ms: number) => {
  const end = performance.now() + ms;
  while (performance.now() < end) {
    // the engine falling behind: nothing else runs meanwhile
  }
};

interface Run {
  history: string[];
  /** now() sampled by each callback minus the instant it was scheduled for. */
  offsets: number[];
  /** Whether now() was ever seen past the earliest timer that had not run. */
  ranAhead: boolean;
  clock: WallClock;
}

/**
 * Three periodic activities at 700, 1000 and 1300 cluster ms and an async process sleeping 450 ms
 * at a time, for 20 s of cluster time at speed 200. `load` ms of busy loop in the 1000 ms one.
 */
async function schedule(load: number): Promise<Run> {
  const clock = new WallClock(200, 60_000);
  // everything is set up inside one timer, where time holds still: the same t0 for all
  const t0 = await new Promise<number>((ok) => clock.after(0, () => ok(clock.now())));
  const history: string[] = [];
  const offsets: number[] = [];
  let ranAhead = false;
  const check = () => {
    const due = clock.pendingDue();
    if (due !== undefined && clock.now() > due) ranAhead = true;
  };
  const periodic = (name: string, every: number, work: number) => {
    let n = 0;
    const tick = (at: number) => () => {
      offsets.push(clock.now() - at);
      history.push(`${name}@${clock.now() - t0}`);
      if (work) busy(work);
      check();
      if (++n * every < 20_000) clock.after(every, tick(at + every));
    };
    clock.after(every, tick(t0 + every));
  };
  periodic("a", 700, 0);
  periodic("b", 1000, load);
  periodic("c", 1300, 0);
  const proc = (async () => {
    expect(clock.now()).toBe(t0);
    let at = t0;
    while (at - t0 < 20_000) {
      await new Promise<void>((ok) => clock.after(450, ok));
      at += 450;
      offsets.push(clock.now() - at);
      history.push(`p@${clock.now() - t0}`);
      check();
    }
  })();
  const watcher = setInterval(check, 1);
  await proc;
  await new Promise<void>((ok) => clock.after(1500, ok));
  clearInterval(watcher);
  return { history, offsets, ranAhead, clock };
}

describe("a clock that never runs ahead of the work", () => {
  it("keeps every timer at its instant and in order under a busy event loop, as when idle", async () => {
    const idle = await schedule(0);
    // each 1000 ms tick busy-loops 40 ms: 8 s of cluster time at speed 200, eight intervals
    const loaded = await schedule(40);
    expect(loaded.offsets.every((d) => d === 0)).toBe(true);
    expect(idle.offsets.every((d) => d === 0)).toBe(true);
    expect(loaded.ranAhead).toBe(false);
    expect(idle.ranAhead).toBe(false);
    expect(loaded.history).toEqual(idle.history);
    expect(loaded.history.slice(0, 6)).toEqual(["p@450", "a@700", "p@900", "b@1000", "c@1300", "p@1350"]);
    // the loaded engine fell behind the wall clock's pace: cluster time waited for it
    expect(loaded.clock.stats().maxBehindMs).toBeGreaterThan(1000);
  }, 60_000);

  it("holds time at the instant of a timer while the callbacks it woke run", async () => {
    const clock = new WallClock(1000, 60_000);
    const seen: number[] = [];
    const at = await new Promise<number>((ok) => clock.after(50, () => ok(clock.now())));
    // the continuation runs in a microtask after the timer: still at its instant
    seen.push(clock.now() - at);
    busy(30); // 30 s of cluster time by the wall clock, but nothing scheduled in between
    const next = await new Promise<number>((ok) => clock.after(10, () => ok(clock.now())));
    expect(seen).toEqual([0]);
    expect(next).toBeGreaterThanOrEqual(at + 10);
  });
});

describe("the speed through the API", () => {
  let c: EmbeddedCluster | undefined;
  let dir: string | undefined;
  afterAll(async () => {
    await c?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("reports the speed in /version to its admin and follows the clock's ConfigMap", async () => {
    c = new EmbeddedCluster({ ...simData(), speed: 60 });
    await c.listen();
    dir = mkdtempSync(join(tmpdir(), "clock-"));
    const kubeconfig = c.writeKubeconfig(join(dir, "kubeconfig"));
    const kubectl = async (...args: string[]) =>
      String((await execa("kubectl", ["--kubeconfig", kubeconfig, ...args])).stdout);
    const speed = async () => JSON.parse(await kubectl("get", "--raw", "/version")).clockSpeed;
    expect(await speed()).toBe("60");
    // a ServiceAccount's /version is k3s's, and its node shows nothing of a clock
    await kubectl("create", "namespace", "shop");
    await kubectl("-n", "shop", "create", "serviceaccount", "viewer");
    await kubectl("create", "clusterrole", "node-reader", "--verb=get,list", "--resource=nodes");
    await kubectl(
      "create",
      "clusterrolebinding",
      "viewer",
      "--clusterrole=node-reader",
      "--serviceaccount=shop:viewer",
    );
    const token = await kubectl("-n", "shop", "create", "token", "viewer");
    await kubectl("config", "set-credentials", "viewer", `--token=${token}`);
    const asViewer = async (...args: string[]) =>
      String((await execa("kubectl", ["--kubeconfig", kubeconfig, "--user", "viewer", ...args])).stdout);
    const seen = JSON.parse(await asViewer("get", "--raw", "/version"));
    expect(seen.gitVersion).toBe("v1.31.6+k3s1");
    expect(seen.clockSpeed).toBeUndefined();
    expect(seen.clockMillis).toBeUndefined();
    expect(await asViewer("get", "nodes", "-o", "yaml")).not.toMatch(/clock|speed|microremed/i);
    const before = c.ctx.clock.now();
    await kubectl(
      "-n",
      "kube-system",
      "patch",
      "configmap",
      "cluster-clock",
      "--type",
      "merge",
      "-p",
      '{"data":{"speed":"1"}}',
    );
    for (let i = 0; i < 100 && (await speed()) !== "1"; i++) await new Promise((ok) => setTimeout(ok, 20));
    expect(await speed()).toBe("1");
    expect(c.ctx.clock.speed).toBe(1);
    expect(c.ctx.clock.now()).toBeGreaterThanOrEqual(before);
  });
});
