// LimitRanger admission through real kubectl on a pinned clock, and a LimitRange's default limit
// OOM-killing a Simple-Micro service whose manifest sets no memory limit. Checked against
// kubernetes' own sources (v1.31):
// - plugin/pkg/admission/limitranger/admission.go: on pod create, each LimitRange's Container
//   `default` and `defaultRequest` fill what containers leave unset, the kubernetes.io/limit-ranger
//   annotation says what ("LimitRanger plugin set: cpu, memory request for container a; ..."); min,
//   max and maxLimitRequestRatio refuse with 403 `pods "x" is forbidden: [maximum memory usage per
//   Container is 1Gi, but limit is 2Gi, ...]` (utilerrors.NewAggregate: brackets when several).
// - pkg/apis/core/v1/defaults.go SetDefaults_LimitRangeItem: default from max, defaultRequest from
//   default, else from min.
// - pkg/controller/controller_utils.go: FailedCreate "Error creating: <the API's error>";
//   pkg/controller/replicaset/replica_set_utils.go: ReplicaFailure, reason FailedCreate;
//   pkg/controller/deployment/sync.go copies it to the Deployment.
// - kubectl describe limitrange (pkg/describe/describe.go describeLimitRange): Type Resource Min
//   Max Default Request Default Limit Max Limit/Request Ratio; `get limitrange`: NAME CREATED AT.
// - pkg/registry/core/pod/strategy.go PrepareForCreate: the QoS class is computed after mutating
//   admission, so a pod given limits and requests equal for cpu and memory is Guaranteed.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { R } from "../../../src/sim/api/resources.js";
import { ManualClock } from "../../../src/sim/core/clock.js";
import type { Deployment, KObject, Pod, ReplicaSet } from "../../../src/sim/core/objects.js";
import { ensureNamespace, isRunning, startCluster, type TestCluster, waitFor } from "../helpers/exec.js";
import { deploy } from "../helpers/topology.js";

const NS = "lr";
let t: TestCluster;
const clock = new ManualClock(Date.parse("2026-03-01T00:00:30Z"));

beforeAll(async () => {
  t = await startCluster(1, clock);
  ensureNamespace(t.c, NS);
});
afterAll(async () => {
  await t?.stop();
});

const kn = (...args: string[]) => t.kubectl(["-n", NS, ...args]);
const apply = (yaml: string) => t.kubectl(["-n", NS, "apply", "-f", "-"], yaml);
const podsOf = (app: string) =>
  (t.c.ctx.registry.list(R("Pod"), NS, { labelSelector: `app=${app}` }) as Pod[]).filter(
    (p) => !p.metadata.deletionTimestamp,
  );
const running = (app: string) => waitFor(`a running ${app} pod`, () => podsOf(app).find(isRunning), clock);

const LIMITS = `
apiVersion: v1
kind: LimitRange
metadata: {name: mem-defaults}
spec:
  limits:
  - type: Container
    default: {memory: 32Mi}
    max: {memory: 1Gi, cpu: "2"}
    min: {cpu: 10m}
  - type: Pod
    max: {memory: 1536Mi}
`;

const deployment = (name: string, resources = "{}") => `
apiVersion: apps/v1
kind: Deployment
metadata: {name: ${name}}
spec:
  replicas: 1
  selector: {matchLabels: {app: ${name}}}
  template:
    metadata: {labels: {app: ${name}}}
    spec:
      containers:
      - {name: app, image: "nginx:1.25", resources: ${resources}}
`;

describe("LimitRanger", () => {
  it("a LimitRange is stored with its defaults; get and describe show it", async () => {
    // a pod that runs before the LimitRange exists
    expect((await apply(deployment("web"))).exitCode).toBe(0);
    await running("web");
    expect((await apply(LIMITS)).stdout).toBe("limitrange/mem-defaults created");
    const get = await kn("get", "limitrange");
    expect(get.stdout).toMatch(/^NAME\s+CREATED AT\nmem-defaults\s+2026-03-01T\d\d:\d\d:\d\dZ$/);
    const spec = JSON.parse((await kn("get", "limits", "mem-defaults", "-o", "json")).stdout).spec;
    expect(spec.limits[0]).toEqual({
      type: "Container",
      default: { cpu: "2", memory: "32Mi" },
      defaultRequest: { cpu: "2", memory: "32Mi" },
      max: { cpu: "2", memory: "1Gi" },
      min: { cpu: "10m" },
    });
    const described = (await kn("describe", "limitrange", "mem-defaults")).stdout;
    // kubectl's describeLimitRangeSpec walks each item's resources as a Go map: in no fixed order
    const rows = described.split("\n");
    const header = rows.indexOf(
      "Type        Resource  Min  Max     Default Request  Default Limit  Max Limit/Request Ratio",
    );
    expect(header, described).toBeGreaterThan(0);
    expect(rows[header + 1]).toBe(
      "----        --------  ---  ---     ---------------  -------------  -----------------------",
    );
    expect(rows.slice(header + 2, header + 5).sort()).toEqual([
      "Container   cpu       10m  2       2                2              -",
      "Container   memory    -    1Gi     32Mi             32Mi           -",
      "Pod         memory    -    1536Mi  -                -              -",
    ]);
  });

  it("leaves the running pod alone; its replacement gets the defaults and the annotation", async () => {
    const before = podsOf("web")[0];
    expect(before.spec.containers[0].resources).toEqual({});
    expect(before.metadata.annotations?.["kubernetes.io/limit-ranger"]).toBeUndefined();
    expect((await kn("delete", "pod", before.metadata.name!, "--wait=false")).exitCode).toBe(0);
    const after = await waitFor(
      "the replacement",
      () => podsOf("web").find((p) => p.metadata.name !== before.metadata.name),
      clock,
    );
    const got = JSON.parse((await kn("get", "pod", after.metadata.name!, "-o", "json")).stdout);
    expect(got.spec.containers[0].resources).toEqual({
      limits: { cpu: "2", memory: "32Mi" },
      requests: { cpu: "2", memory: "32Mi" },
    });
    expect(got.metadata.annotations["kubernetes.io/limit-ranger"]).toBe(
      "LimitRanger plugin set: cpu, memory request for container app; cpu, memory limit for container app",
    );
    expect(got.status.qosClass).toBe("Guaranteed");
  });

  it("refuses what breaks min, max or the Pod maximum with the plugin's words", async () => {
    const big = await kn(
      "run",
      "big",
      "--image=nginx:1.25",
      `--overrides={"spec":{"containers":[{"name":"big","image":"nginx:1.25","resources":{"limits":{"cpu":"3","memory":"2Gi"}}}]}}`,
    );
    expect(big.exitCode).toBe(1);
    expect(big.stderr).toBe(
      'Error from server (Forbidden): pods "big" is forbidden: [maximum cpu usage per Container is 2, but limit is 3, maximum memory usage per Container is 1Gi, but limit is 2Gi, maximum memory usage per Pod is 1536Mi, but limit is 2Gi]',
    );
    const small = await kn(
      "run",
      "small",
      "--image=nginx:1.25",
      `--overrides={"spec":{"containers":[{"name":"small","image":"nginx:1.25","resources":{"requests":{"cpu":"5m"}}}]}}`,
    );
    expect(small.stderr).toBe(
      'Error from server (Forbidden): pods "small" is forbidden: minimum cpu usage per Container is 10m, but request is 5m',
    );
    // a request above the default limit: the pod's own validation refuses it (kubernetes#51430)
    const req = await kn(
      "run",
      "greedy",
      "--image=nginx:1.25",
      `--overrides={"spec":{"containers":[{"name":"greedy","image":"nginx:1.25","resources":{"requests":{"memory":"64Mi"}}}]}}`,
    );
    expect(req.stderr).toBe(
      'The Pod "greedy" is invalid: spec.containers[0].resources.requests: Invalid value: "64Mi": must be less than or equal to memory limit of 32Mi',
    );
  });

  it("a refused replica: FailedCreate on the set, ReplicaFailure on the Deployment; gone with the LimitRange", async () => {
    expect((await apply(deployment("huge", "{limits: {memory: 1100Mi}}"))).exitCode).toBe(0);
    const rs = await waitFor(
      "the set's ReplicaFailure",
      () =>
        (t.c.ctx.registry.list(R("ReplicaSet"), NS) as ReplicaSet[]).find(
          (r) =>
            r.metadata.name?.startsWith("huge-") &&
            r.status?.conditions?.some((c) => c.type === "ReplicaFailure"),
        ),
      clock,
    );
    const rsName = rs.metadata.name!;
    const why =
      /pods "huge-[a-z0-9]+-[a-z0-9]{5}" is forbidden: maximum memory usage per Container is 1Gi, but limit is 1100Mi/;
    const events = (await kn("get", "events", "--field-selector", "reason=FailedCreate")).stdout;
    expect(events).toMatch(
      new RegExp(`Warning\\s+FailedCreate\\s+replicaset/${rsName}\\s+Error creating: ${why.source}`),
    );
    expect((await kn("describe", "rs", rsName)).stdout).toMatch(
      new RegExp(
        `ReplicaFailure\\s+True\\s+FailedCreate[\\s\\S]*Warning\\s+FailedCreate\\s+\\S+\\s+replicaset-controller\\s+Error creating: ${why.source}`,
      ),
    );
    const d = t.c.ctx.registry.get(R("Deployment"), NS, "huge") as Deployment;
    const cond = d.status?.conditions?.find((c) => c.type === "ReplicaFailure");
    expect(cond).toMatchObject({ status: "True", reason: "FailedCreate" });
    expect(cond?.message).toMatch(why);
    // the set retries with back-off (5 ms doubling), not in a loop: a few refusals, not hundreds
    const refusals = () =>
      t.c.ctx.store
        .list(R("Event"), NS)
        .filter((e) => (e as KObject & { reason?: string }).reason === "FailedCreate").length;
    expect(refusals()).toBeLessThan(20);
    expect((await kn("delete", "limitrange", "mem-defaults")).exitCode).toBe(0);
    const pod = await waitFor(
      "huge's pod once the LimitRange is gone",
      () => podsOf("huge").find(isRunning),
      clock,
      30_000,
    );
    expect(pod.spec.containers[0].resources?.limits).toEqual({ memory: "1100Mi" });
    await waitFor(
      "ReplicaFailure cleared",
      () =>
        !(t.c.ctx.registry.get(R("ReplicaSet"), NS, rsName) as ReplicaSet).status?.conditions?.some(
          (c) => c.type === "ReplicaFailure",
        ),
      clock,
    );
  });
});

describe("a default memory limit on a service that declares none (Simple-Micro, pinned clock)", () => {
  it("hello-service's replacement gets 32Mi from the LimitRange and is OOMKilled; without it, healthy", () => {
    // the manifest without hello-service's memory request and limit
    const sim = deploy("simple-micro", "lr-sm", {
      create: (o: KObject) => {
        if (o.kind !== "Deployment" || o.metadata.name !== "hello-service") return o;
        const d = structuredClone(o) as Deployment;
        const c = d.spec.template.spec!.containers[0];
        delete c.resources?.limits?.memory;
        delete c.resources?.requests?.memory;
        return d;
      },
    });
    const { registry } = sim.cluster.ctx;
    sim.advance(60_000, 1000);
    const first = sim.pod("hello-service");
    expect(first.spec.containers[0].resources?.limits?.memory).toBeUndefined();
    registry.create(R("LimitRange"), "lr-sm", {
      apiVersion: "v1",
      kind: "LimitRange",
      metadata: { name: "defaults" },
      spec: { limits: [{ type: "Container", default: { memory: "32Mi" } }] },
    });
    // the running pod is not touched
    sim.advance(60_000, 1000);
    expect(sim.pod("hello-service").status?.containerStatuses?.[0]?.restartCount).toBe(0);
    registry.delete(R("Pod"), "lr-sm", first.metadata.name!);
    sim.advance(180_000, 1000);
    const second = sim.pod("hello-service");
    expect(second.metadata.name).not.toBe(first.metadata.name);
    const c = second.spec.containers.find((x) => x.name === "hello-service")!;
    expect(c.resources).toMatchObject({ limits: { memory: "32Mi" }, requests: { memory: "32Mi" } });
    expect(second.metadata.annotations?.["kubernetes.io/limit-ranger"]).toBe(
      "LimitRanger plugin set: memory request for container hello-service; memory limit for container hello-service",
    );
    const st = second.status?.containerStatuses?.find((x) => x.name === "hello-service");
    expect(st?.restartCount).toBeGreaterThanOrEqual(1);
    expect(st?.lastState?.terminated).toMatchObject({ reason: "OOMKilled", exitCode: 137 });
    // the fix: the LimitRange goes, the pod is replaced, and the new one serves
    registry.delete(R("LimitRange"), "lr-sm", "defaults");
    registry.delete(R("Pod"), "lr-sm", second.metadata.name!);
    sim.advance(180_000, 1000);
    const third = sim.pod("hello-service");
    expect(
      third.spec.containers.find((x) => x.name === "hello-service")?.resources?.limits?.memory,
    ).toBeUndefined();
    expect(third.status?.containerStatuses?.every((s) => s.ready && s.restartCount === 0)).toBe(true);
  }, 60_000);
});
