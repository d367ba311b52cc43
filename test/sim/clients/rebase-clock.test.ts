// The clock re-based between cases, read with the real kubectl (docs/clock.md). `microremed sim
// --speed 60` starts 29.5 h behind the wall clock, so what kubectl computes on the host
// (describe's event ages, `kubectl events`) ran that far ahead of what the API server prints: every
// live run noticed "8h in describe against 4m35s in get events". The runner now asks, before each
// case, for that case's own lead through the clock's ConfigMap (src/kube/time.ts showLead), and
// every instant the cluster shows moves alike, so that:
// - the host's clock is that lead ahead of the cluster's, and describe's event ages agree with
//   the server's LAST SEEN within it;
// - every age the server prints, every restart against its pod's age under the kubelet's back-off
//   (kuberuntime_manager.go doBackOff), and every span between two shown instants stays as it was;
// - nothing shown is later than the cluster's now: objects, the kubelet's container states, the
//   times the applications wrote inside their log lines, a container's `date`;
// - a CronJob keeps to whole minutes of the time shown (cronjob_controllerv2.go getNextScheduleTime,
//   its Job named by the scheduled minute: utils.go getJobName).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkBuilt, cli, containerDate, type SimCluster, startSim, tmp } from "../../cli/cli-helpers.js";
import { ageGrain, ageSeconds, leastForRestarts } from "../helpers/story.js";

const NS = "simple-micro";
/** The lead asked for: ten minutes, held at speed 1 while the test reads. */
const LEAD_MS = 600_000;
let sim: SimCluster;
let skewBefore = 0;
let before: Map<string, { age: number; restarts: number }>;
let shownAt = 0;

const clusterNow = async () =>
  Number(JSON.parse((await sim.kubectl(["get", "--raw", "/version"])).stdout).clockMillis);
const waitCluster = async (ms: number) => {
  const until = (await clusterNow()) + ms;
  while ((await clusterNow()) < until) await new Promise((ok) => setTimeout(ok, 200));
};
const clockData = (data: Record<string, string>) =>
  sim.kubectl([
    "patch",
    "configmap",
    "cluster-clock",
    "-n",
    "kube-system",
    "--type",
    "merge",
    "-p",
    JSON.stringify({ data }),
  ]);
/** Pod name -> the cluster's age of it (s) and its restarts, one read. */
const podAges = async () => {
  const pods = await sim.items("pods", NS);
  const now = await clusterNow();
  return new Map(
    pods.map((p) => [
      p.metadata.name,
      {
        age: (now - Date.parse(p.metadata.creationTimestamp as unknown as string)) / 1000,
        restarts: Math.max(0, ...(p.status?.containerStatuses ?? []).map((c) => c.restartCount)),
      },
    ]),
  );
};

beforeAll(async () => {
  checkBuilt();
  sim = await startSim(tmp("mr-rebase-clock-"), 60);
  const conn = ["--cluster", "kube", "--kubeconfig", sim.kubeconfig, "--env", "simple-micro"];
  for (const args of [
    ["deploy", "simple-micro"],
    ["inject", "bad-command", "time-service"],
  ]) {
    const r = await cli([...args, ...conn]);
    expect(r.exitCode, r.stderr).toBe(0);
  }
  const cron = await sim.kubectl([
    "create",
    "cronjob",
    "tick",
    "-n",
    NS,
    "--image=busybox:1.36",
    "--schedule=*/1 * * * *",
    "--",
    "date",
  ]);
  expect(cron.exitCode, cron.stderr).toBe(0);
  await waitCluster(4 * 60_000);
  skewBefore = Date.now() - (await clusterNow());
  // slowed to speed 1 first, so the lead asked for is what the test reads
  await clockData({ speed: "1" });
  before = await podAges();
  const moved = await clockData({ lead: String(LEAD_MS), rebase: "test-1" });
  expect(moved.exitCode, moved.stderr).toBe(0);
  shownAt = await clusterNow();
}, 300_000);

afterAll(async () => {
  await sim?.stop();
});

describe("a clock re-based between cases", { timeout: 180_000 }, () => {
  it("shows the cluster the lead asked for behind the host's clock, not the run's", async () => {
    // before: the speed's own lead, less what four minutes at speed 60 gained
    expect(skewBefore).toBeGreaterThan(20 * 3_600_000);
    const skew = Date.now() - (await clusterNow());
    expect(skew).toBeGreaterThanOrEqual(LEAD_MS - 5_000);
    expect(skew).toBeLessThanOrEqual(LEAD_MS + 5_000);
  });

  it("keeps every pod's age and its restarts under the back-off", async () => {
    const after = await podAges();
    expect(after.size).toBeGreaterThan(0);
    for (const [name, a] of after) {
      const b = before.get(name);
      if (!b) continue;
      // the same age, up to what passed between the two reads (speed 1 by then)
      expect(a.age - b.age, name).toBeGreaterThanOrEqual(-1);
      expect(a.age - b.age, name).toBeLessThan(30);
      expect(a.age, `${name}: ${a.restarts} restarts`).toBeGreaterThanOrEqual(leastForRestarts(a.restarts));
    }
    expect([...after.values()].some((a) => a.restarts >= 3)).toBe(true);
  });

  it("makes describe's event ages, computed on the host, agree with the server's LAST SEEN within the lead", async () => {
    const pod = (await sim.items("pods", NS)).find((p) => p.metadata.name.startsWith("time-service-"))!;
    const described = (await sim.kubectl(["describe", "pod", "-n", NS, pod.metadata.name])).stdout;
    const rows = described.slice(described.indexOf("Events:")).split("\n").slice(3);
    const served = (
      await sim.kubectl([
        "get",
        "events",
        "-n",
        NS,
        "--field-selector",
        `involvedObject.name=${pod.metadata.name}`,
        "--no-headers",
      ])
    ).stdout;
    let compared = 0;
    for (const row of rows.filter((r) => r.trim())) {
      // describe: Type Reason Age From Message, Age as "2m12s" or, repeated, "2m (x5 over 4m)"
      const [, reason, hostAge] = row.trim().split(/\s+/);
      const message = row
        .trim()
        .split(/\s{2,}/)
        .pop()!
        .slice(0, 40);
      // get events: LAST SEEN TYPE REASON OBJECT MESSAGE, the same event by its reason and words
      const line = served.split("\n").find((l) => l.split(/\s+/)[2] === reason && l.includes(message));
      if (!line || !/^\d/.test(hostAge)) continue;
      const lastSeen = line.split(/\s+/)[0];
      const gap = ageSeconds(hostAge) - ageSeconds(lastSeen);
      const grain = Math.max(ageGrain(hostAge), ageGrain(lastSeen));
      const said = `${reason}: describe ${hostAge}, get events ${lastSeen}`;
      expect(gap, said).toBeGreaterThanOrEqual(LEAD_MS / 1000 - grain - 5);
      expect(gap, said).toBeLessThanOrEqual(LEAD_MS / 1000 + grain + 5);
      compared++;
    }
    expect(compared).toBeGreaterThan(0);
  });

  it("shows nothing later than the cluster's now: objects, container states, log lines, date", async () => {
    const now = await clusterNow();
    const all = (
      await sim.kubectl(["get", "pods,events,deployments,replicasets,jobs,cronjobs", "-n", NS, "-o", "json"])
    ).stdout;
    const fields = [...all.matchAll(/"([A-Za-z]+(?:Timestamp|Time|At))": "(\d{4}-[^"]+)"/g)];
    expect(fields.length).toBeGreaterThan(50);
    for (const [, field, value] of fields)
      expect(Date.parse(value), `${field} ${value}`).toBeLessThanOrEqual(now);
    const date = await containerDate(sim, NS);
    expect(Math.abs(date * 1000 - now)).toBeLessThan(5_000);
    // a lived-in pod's lines: the times the application wrote keep to kubectl's stamp of the line
    const logs = (
      await sim.kubectl(["logs", "-n", NS, "deploy/hello-service", "-c", "hello-service", "--timestamps"])
    ).stdout
      .trim()
      .split("\n");
    let stamped = 0;
    for (const l of logs) {
      const at = Date.parse(l.split(" ")[0]);
      expect(at, l).toBeLessThanOrEqual(now);
      const own = /(\d{4}-\d\d-\d\d)[ T](\d\d:\d\d:\d\d)/.exec(l.slice(l.indexOf(" ") + 1));
      if (!own) continue;
      expect(Math.abs(Date.parse(`${own[1]}T${own[2]}Z`) - at), l).toBeLessThan(5 * 60_000);
      stamped++;
    }
    expect(stamped).toBeGreaterThan(0);
  });

  it("keeps a CronJob on whole minutes of the time shown, its Jobs named by them", async () => {
    await clockData({ speed: "60" });
    await waitCluster(3 * 60_000);
    const jobs = (
      JSON.parse((await sim.kubectl(["get", "jobs", "-n", NS, "-o", "json"])).stdout).items as {
        metadata: { name: string; creationTimestamp: string; annotations?: Record<string, string> };
      }[]
    ).filter((j) => j.metadata.name.startsWith("tick-"));
    const after = jobs.filter((j) => Date.parse(j.metadata.creationTimestamp) > shownAt);
    expect(after.length).toBeGreaterThanOrEqual(2);
    for (const j of after) {
      const scheduled = j.metadata.annotations?.["batch.kubernetes.io/cronjob-scheduled-timestamp"] ?? "";
      expect(scheduled, j.metadata.name).toMatch(/:00Z$/);
      expect(j.metadata.name).toBe(`tick-${Date.parse(scheduled) / 60_000}`);
      const late = Date.parse(j.metadata.creationTimestamp) - Date.parse(scheduled);
      expect(late, j.metadata.name).toBeGreaterThanOrEqual(0);
      expect(late, j.metadata.name).toBeLessThan(10_000);
    }
  });
});
