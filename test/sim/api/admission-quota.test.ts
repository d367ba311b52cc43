// ResourceQuota admission and the resourcequota controller through real kubectl on a pinned clock.
// Checked against kubernetes' own sources (v1.31):
// - plugin/pkg/admission/resourcequota/controller.go checkRequest: `exceeded quota: q, requested:
//   limits.memory=480Mi, used: limits.memory=960Mi, limited: limits.memory=1Gi` (prettyPrint:
//   sorted name=quantity), `failed quota: q: must specify ...`; a dry run is checked, not charged;
//   an admitted object is charged in the quota's status.used at once.
// - pkg/quota/v1/evaluator/core/pods.go: Constraints (`must specify limits.memory for: x;
//   requests.cpu for: x`), PodUsageFunc, the BestEffort scope; services.go: services counted.
// - pkg/controller/replicaset: FailedCreate "Error creating: ...", rate-limited retries;
//   replica_set_utils.go ReplicaFailure (the first refusal's message kept); deployment/sync.go.
// - kubectl create quota (pkg/cmd/create/create_quota.go); kubectl describe quota (Resource Used
//   Hard); the server's table for `get quota` (printers.go printResourceQuota: REQUEST, LIMIT).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { R } from "../../../src/sim/api/resources.js";
import { ManualClock } from "../../../src/sim/core/clock.js";
import type { Deployment, Pod } from "../../../src/sim/core/objects.js";
import { ensureNamespace, isRunning, startCluster, type TestCluster, waitFor } from "../helpers/exec.js";

const NS = "quota";
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
const used = () =>
  (t.c.ctx.registry.get(R("ResourceQuota"), NS, "mem") as { status?: { used?: Record<string, string> } })
    .status?.used;
const webPods = () =>
  (t.c.ctx.registry.list(R("Pod"), NS, { labelSelector: "app=web" }) as Pod[]).filter(
    (p) => !p.metadata.deletionTimestamp,
  );

const WEB = `
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - name: app
        image: nginx:1.25
        resources:
          requests: {cpu: 100m, memory: 64Mi}
          limits: {cpu: 200m, memory: 480Mi}
`;

describe("ResourceQuota", () => {
  it("kubectl create quota; get and describe show hard and used", async () => {
    const c = await kn("create", "quota", "mem", "--hard=limits.memory=1Gi,pods=3,requests.cpu=1,services=1");
    expect(c.stdout).toBe("resourcequota/mem created");
    await waitFor("the quota's status", () => used()?.pods === "0", clock);
    expect((await kn("get", "quota")).stdout).toMatch(
      /^NAME\s+AGE\s+REQUEST\s+LIMIT\nmem\s+\d+s\s+pods: 0\/3, requests.cpu: 0\/1, services: 0\/1\s+limits.memory: 0\/1Gi$/,
    );
    expect((await kn("describe", "quota", "mem")).stdout).toContain(
      [
        "Resource       Used  Hard",
        "--------       ----  ----",
        "limits.memory  0     1Gi",
        "pods           0     3",
        "requests.cpu   0     1",
        "services       0     1",
      ].join("\n"),
    );
  });

  it("refuses a pod that leaves a constrained resource unset, naming the containers", async () => {
    const r = await kn("run", "bare", "--image=nginx:1.25");
    expect(r.stderr).toBe(
      'Error from server (Forbidden): pods "bare" is forbidden: failed quota: mem: must specify limits.memory for: bare; requests.cpu for: bare',
    );
  });

  it("charges an admitted pod in status.used at once, and a dry run not at all", async () => {
    const pod = {
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "probe", namespace: NS },
      spec: {
        containers: [
          { name: "a", image: "nginx:1.25", resources: { limits: { cpu: "100m", memory: "64Mi" } } },
        ],
      },
    };
    const dry = await kn(
      "run",
      "probe",
      "--image=nginx:1.25",
      "--dry-run=server",
      `--overrides=${JSON.stringify(pod)}`,
    );
    expect(dry.stdout).toBe("pod/probe created (server dry run)");
    expect(used()).toMatchObject({ pods: "0", "limits.memory": "0" });
    // no controller has run between the create and the read: admission wrote it
    t.c.ctx.registry.create(R("Pod"), NS, pod);
    expect(used()).toMatchObject({ pods: "1", "limits.memory": "64Mi", "requests.cpu": "100m" });
    t.c.ctx.registry.delete(R("Pod"), NS, "probe", { gracePeriodSeconds: 0 });
    await waitFor("the recount after the delete", () => used()?.pods === "0", clock);
  });

  it("a replica over the quota: FailedCreate with the exact words, ReplicaFailure, back-off; raised, it is created", async () => {
    expect((await t.kubectl(["-n", NS, "apply", "-f", "-"], WEB)).exitCode).toBe(0);
    await waitFor("two web pods", () => webPods().filter(isRunning).length === 2, clock);
    await waitFor("the quota charged", () => used()?.["limits.memory"] === "960Mi", clock);
    expect((await kn("scale", "deployment", "web", "--replicas=3")).exitCode).toBe(0);
    const d = await waitFor(
      "the Deployment's ReplicaFailure",
      () => {
        const x = t.c.ctx.registry.get(R("Deployment"), NS, "web") as Deployment;
        return x.status?.conditions?.some((c) => c.type === "ReplicaFailure") && x;
      },
      clock,
    );
    const why =
      /pods "web-[a-z0-9]+-[a-z0-9]{5}" is forbidden: exceeded quota: mem, requested: limits.memory=480Mi, used: limits.memory=960Mi, limited: limits.memory=1Gi/;
    expect(d.status?.conditions?.find((c) => c.type === "ReplicaFailure")).toMatchObject({
      status: "True",
      reason: "FailedCreate",
      message: expect.stringMatching(why),
    });
    const events = (await kn("get", "events", "--field-selector", "reason=FailedCreate")).stdout;
    expect(events).toMatch(
      new RegExp(`Warning\\s+FailedCreate\\s+replicaset/web-\\S+\\s+Error creating: ${why.source}`),
    );
    expect((await kn("describe", "deployment", "web")).stdout).toMatch(
      /ReplicaFailure\s+True\s+FailedCreate/,
    );
    // a service over its count is refused the same way
    const svc = await kn("create", "service", "clusterip", "s1", "--tcp=80");
    expect(svc.exitCode).toBe(0);
    const svc2 = await kn("create", "service", "clusterip", "s2", "--tcp=80");
    expect(svc2.stderr).toBe(
      'error: failed to create ClusterIP service: services "s2" is forbidden: exceeded quota: mem, requested: services=1, used: services=1, limited: services=1',
    );
    // the set backs off: a minute of refusals is a handful of events, not one per drain
    for (let i = 0; i < 120; i++) {
      clock.advance(500);
      await new Promise((r) => setTimeout(r, 2));
    }
    const refusals = t.c.ctx.store
      .list(R("Event"), NS)
      .filter((e) => (e as { reason?: string }).reason === "FailedCreate").length;
    expect(refusals).toBeGreaterThan(1);
    expect(refusals).toBeLessThan(20);
    expect(
      (await kn("patch", "quota", "mem", "-p", '{"spec":{"hard":{"limits.memory":"2Gi"}}}')).exitCode,
    ).toBe(0);
    await waitFor("the third web pod", () => webPods().filter(isRunning).length === 3, clock, 30_000);
    await waitFor("the quota recounted", () => used()?.["limits.memory"] === "1440Mi", clock);
    await waitFor(
      "ReplicaFailure cleared",
      () =>
        !(t.c.ctx.registry.get(R("Deployment"), NS, "web") as Deployment).status?.conditions?.some(
          (c) => c.type === "ReplicaFailure",
        ),
      clock,
    );
  });

  it("a BestEffort-scoped quota counts only BestEffort pods", async () => {
    ensureNamespace(t.c, "scoped");
    const q = await t.kubectl([
      "-n",
      "scoped",
      "create",
      "quota",
      "be",
      "--hard=pods=1",
      "--scopes=BestEffort",
    ]);
    expect(q.exitCode).toBe(0);
    await waitFor(
      "the scoped quota's status",
      () =>
        (t.c.ctx.registry.get(R("ResourceQuota"), "scoped", "be") as { status?: { used?: object } }).status
          ?.used,
      clock,
    );
    expect((await t.kubectl(["-n", "scoped", "run", "one", "--image=nginx:1.25"])).exitCode).toBe(0);
    const two = await t.kubectl(["-n", "scoped", "run", "two", "--image=nginx:1.25"]);
    expect(two.stderr).toBe(
      'Error from server (Forbidden): pods "two" is forbidden: exceeded quota: be, requested: pods=1, used: pods=1, limited: pods=1',
    );
    const burstable = await t.kubectl([
      "-n",
      "scoped",
      "run",
      "three",
      "--image=nginx:1.25",
      `--overrides={"spec":{"containers":[{"name":"three","image":"nginx:1.25","resources":{"requests":{"cpu":"10m"}}}]}}`,
    ]);
    expect(burstable.stdout).toBe("pod/three created");
  });
});
