// The expert tier's unschedulable, through real kubectl on Simple-Micro and Online-Boutique:
// chaos/expert/unschedulable.yaml switches the Deployment to Recreate and adds a nodeSelector
// `kubernetes.io/hostname: <a node that does not exist>`. The old pod goes first (Recreate), the
// new one stays Pending with PodScheduled False/Unschedulable, and kube-scheduler 1.31 reports
// FailedScheduling as FitError.Error() words it (pkg/scheduler/schedule_one.go, framework/types.go:
// "0/%v nodes are available: %v." with the NodeAffinity plugin's ErrReasonPod "node(s) didn't
// match Pod's node affinity/selector", then the default preemption PostFilter's "preemption: 0/1
// nodes are available: 1 Preemption is not helpful for scheduling." since no victim could make a
// selector match). Callers fail while nothing serves; `rollout status` waits; rollout undo
// schedules the old template again.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestCluster, type TestCluster } from "../../helpers/cluster.js";
import { deploySystem, eventually, isReady, type Kn, kubectlIn } from "../helpers/failures.js";
import {
  curlUntil,
  endpointsOf,
  eventsShow,
  onePod,
  patchWith,
  rolloutStatus,
  undo,
} from "../helpers/lifecycle.js";
import { debugPod } from "../helpers/network.js";

let t: TestCluster;

beforeAll(async () => {
  t = await startTestCluster(60, 91);
}, 60_000);
afterAll(() => t?.stop());

const MESSAGE =
  "0/1 nodes are available: 1 node(s) didn't match Pod's node affinity/selector. preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling.";

const cases = [
  {
    system: "simple-micro",
    ns: "unsched-sm",
    target: "time-service",
    url: "http://hello-service:5000/hello",
    broken: "503",
  },
  {
    system: "online-boutique",
    ns: "unsched-ob",
    target: "cartservice",
    url: "http://frontend/cart",
    broken: "500",
  },
];

describe.each(cases)("$system: $target selects a node that does not exist", (c) => {
  let kn: Kn;
  let curl: string;

  beforeAll(async () => {
    kn = kubectlIn(t, c.ns);
    await deploySystem(t, c.system, c.ns);
    curl = await debugPod(kn);
    await curlUntil(kn, curl, c.url, (a) => a.code === "200");
  }, 240_000);

  it("Pending with the scheduler's FailedScheduling, callers failing, rollout waiting; undone: healthy", async () => {
    const r = await patchWith(t, kn, c.target, "unschedulable", { node: "node-that-does-not-exist" });
    expect(r.exitCode, r.stderr).toBe(0);
    const pod = await onePod(kn, c.target, (p) => p.status?.phase === "Pending" && !!p.spec.nodeSelector);
    const name = pod.metadata.name;
    expect(pod.spec.nodeSelector).toEqual({ "kubernetes.io/hostname": "node-that-does-not-exist" });
    const get = await eventually(kn, ["get", "pod", name, "--no-headers", "-o", "wide"], (o) =>
      o.includes("Pending"),
    );
    expect(get).toMatch(/\s0\/\d\s+Pending\s+0\s+\S+\s+<none>\s+<none>\s/);
    const scheduled = (await kn(["get", "pod", name, "-o", "json"])).stdout;
    expect(JSON.parse(scheduled).status.conditions).toContainEqual(
      expect.objectContaining({
        type: "PodScheduled",
        status: "False",
        reason: "Unschedulable",
        message: MESSAGE,
      }),
    );
    const events = await eventsShow(kn, name, /FailedScheduling/);
    // the Age column reads "5s (x2 over 10s)" once the scheduler has retried
    expect(events).toMatch(
      /Warning\s+FailedScheduling\s+\S+(?: \(x\d+ over \S+\))?\s+default-scheduler\s+0\/1 nodes are available/,
    );
    expect(events.replace(/\s+/g, " ")).toContain(MESSAGE);
    const described = (await kn(["describe", "pod", name])).stdout;
    expect(described).toMatch(/Node-Selectors:\s+kubernetes\.io\/hostname=node-that-does-not-exist\n/);
    expect(described).toMatch(/Node:\s+<none>\n/);
    // nothing serves: Recreate took the old pod away first
    expect((await endpointsOf(kn, c.target)).ready).toEqual([]);
    await curlUntil(kn, curl, c.url, (a) => a.code === c.broken);
    const status = await rolloutStatus(kn, c.target, "5s");
    expect(status.exitCode).not.toBe(0);
    expect(status.stdout).toContain(`Waiting for deployment "${c.target}" rollout to finish`);
    await undo(kn, c.target);
    const healthy = await onePod(kn, c.target, isReady);
    expect(healthy.spec.nodeSelector).toBeUndefined();
    await curlUntil(kn, curl, c.url, (a) => a.code === "200");
  }, 300_000);
});
