// HorizontalPodAutoscalers through real kubectl, on a pinned clock moved by the test. Checked
// against kubernetes' own sources (v1.31-v1.33):
// - pkg/controller/podautoscaler/horizontal.go: a sync every 15 s (the fixed-interval rate
//   limiter); "Current number of replicas above Spec.MaxReplicas" / "below Spec.MinReplicas";
//   SuccessfulRescale "New size: %d; reason: %s" ("cpu resource utilization (percentage of
//   request) above target", "All metrics below target"); the conditions AbleToScale
//   (SucceededGetScale, SucceededRescale, ReadyForNewScale, ScaleDownStabilized, ScaleUpStabilized),
//   ScalingActive (ValidMetricFound, FailedGetResourceMetric, ScalingDisabled) and ScalingLimited
//   (DesiredWithinRange, TooManyReplicas, TooFewReplicas, ScaleUpLimit) with their messages;
//   without behavior the 5-minute downscale stabilization and max(2 x current, 4) per sync; with
//   it the policies over their periods; FailedComputeMetricsReplicas "invalid metrics (1 invalid
//   out of 1), first error is: ...".
// - pkg/controller/podautoscaler/replica_calculator.go and metrics/{client,utilization}.go: usage
//   from the resource metrics API (what `kubectl top` reads), the 0.1 tolerance, unready and
//   missing pods, "missing request for cpu in container %s of Pod %s".
// - pkg/apis/autoscaling/v2/defaults.go (minReplicas 1, 80% CPU, behavior rules filled in);
//   pkg/apis/autoscaling/v1/conversion.go (targetCPUUtilizationPercentage, the
//   autoscaling.alpha.kubernetes.io/conditions annotation).
// - kubectl: printers.go (NAME REFERENCE TARGETS MINPODS MAXPODS REPLICAS AGE, "cpu: 85%/50%"),
//   describe.go (describeHorizontalPodAutoscalerV2), `kubectl autoscale`.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { R } from "../../../src/sim/api/resources.js";
import type { Behavior, ContainerRef } from "../../../src/sim/context/behavior.js";
import { ManualClock } from "../../../src/sim/core/clock.js";
import type { Condition, Deployment, HorizontalPodAutoscaler, Pod } from "../../../src/sim/core/objects.js";
import { ensureNamespace, isRunning, startCluster, type TestCluster } from "../helpers/exec.js";

const NS = "hpa";
let t: TestCluster;
const clock = new ManualClock(Date.parse("2026-03-01T00:00:30Z"));
/** Total CPU (millicores) each app's Service sends its pods, spread over the ones running. */
const load = new Map<string, number>();

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const pods = (app: string) => t.c.ctx.registry.list(R("Pod"), NS, { labelSelector: `app=${app}` }) as Pod[];

beforeAll(async () => {
  t = await startCluster(1, clock);
  ensureNamespace(t.c, NS);
  // the load an app's clients send, shared by its running pods (as its Service spreads it)
  const base = t.c.ctx.behavior;
  const spread: Behavior = Object.assign(Object.create(base), {
    usage(ref: ContainerRef, now: number) {
      const app = ref.pod.metadata.labels?.app ?? "";
      const total = load.get(app);
      const own = base.usage(ref, now);
      if (total === undefined) return own;
      const n = pods(app).filter((p) => p.status?.phase === "Running").length || 1;
      return { ...own, cpuMilli: total / n };
    },
  });
  t.c.ctx.behavior = spread;
});
afterAll(async () => {
  await t?.stop();
});

/** Let `ms` of cluster time pass, a second at a time, the controllers working in between. */
async function pass(ms: number) {
  for (let i = 0; i < ms; i += 1000) {
    clock.advance(Math.min(1000, ms - i));
    await sleep(2);
  }
}

/** Move time until `check` holds (at most `limitMs` of cluster time). */
async function until<T>(what: string, check: () => T | undefined | false, limitMs = 600_000): Promise<T> {
  for (let i = 0; i <= limitMs; i += 1000) {
    const v = check();
    if (v) return v;
    await pass(1000);
  }
  throw new Error(`no ${what} within ${limitMs / 1000} s of cluster time`);
}

const hpa = (name: string) =>
  t.c.ctx.registry.tryGet(R("HorizontalPodAutoscaler"), NS, name) as HorizontalPodAutoscaler | undefined;
const cond = (name: string, type: string) =>
  ((hpa(name)?.status?.conditions ?? []) as Condition[]).find((c) => c.type === type);
const replicas = (name: string) =>
  (t.c.ctx.registry.tryGet(R("Deployment"), NS, name) as Deployment | undefined)?.spec?.replicas;
const running = (app: string) => pods(app).filter(isRunning).length;

async function ok(args: string[], input?: string) {
  const r = await t.kubectl(args, input);
  expect(r.exitCode, r.stderr).toBe(0);
  return r.stdout;
}

async function events(name: string, reason?: string) {
  const out = await ok([
    "get",
    "events",
    "-n",
    NS,
    "--field-selector",
    `involvedObject.kind=HorizontalPodAutoscaler,involvedObject.name=${name}${reason ? `,reason=${reason}` : ""}`,
    "-o",
    "jsonpath={range .items[*]}{.reason}:{.message}|{end}",
  ]);
  return out.split("|").filter(Boolean);
}

function deploymentYaml(name: string, replicas: number, resources: string) {
  return `apiVersion: apps/v1
kind: Deployment
metadata: {name: ${name}}
spec:
  replicas: ${replicas}
  selector: {matchLabels: {app: ${name}}}
  template:
    metadata: {labels: {app: ${name}}}
    spec:
      containers:
      - name: app
        image: nginx:1.25
${resources}
`;
}
const REQUESTS = `        resources: {requests: {cpu: 200m, memory: 64Mi}}`;

describe("HorizontalPodAutoscaler", () => {
  it("kubectl autoscale: scales a Deployment out under CPU load, reading what kubectl top reads", async () => {
    await ok(["apply", "-n", NS, "-f", "-"], deploymentYaml("web", 1, REQUESTS));
    await until("web running", () => running("web") === 1);
    const made = await ok([
      "autoscale",
      "deployment",
      "web",
      "-n",
      NS,
      "--min",
      "1",
      "--max",
      "5",
      "--cpu-percent",
      "50",
    ]);
    expect(made).toBe("horizontalpodautoscaler.autoscaling/web autoscaled");
    // before its first sync the controller has written nothing
    const first = await ok(["get", "hpa", "web", "-n", NS]);
    expect(first).toMatch(
      /^NAME\s+REFERENCE\s+TARGETS\s+MINPODS\s+MAXPODS\s+REPLICAS\s+AGE\nweb\s+Deployment\/web\s+cpu: <unknown>\/50%\s+1\s+5\s+0\s+\d+s$/,
    );

    // idle (a fifth of the request): the first sync finds 20% and keeps one replica
    await until("the first sync", () => cond("web", "ScalingActive")?.status === "True");
    expect(hpa("web")!.status).toMatchObject({
      currentReplicas: 1,
      desiredReplicas: 1,
      currentMetrics: [
        {
          type: "Resource",
          resource: { name: "cpu", current: { averageUtilization: 20, averageValue: "40m" } },
        },
      ],
    });
    expect(cond("web", "ScalingActive")).toMatchObject({
      reason: "ValidMetricFound",
      message:
        "the HPA was able to successfully calculate a replica count from cpu resource utilization (percentage of request)",
    });
    expect(cond("web", "ScalingLimited")).toMatchObject({ status: "False", reason: "DesiredWithinRange" });

    // 400m on one pod of 200m: 200% of a 50% target, 4 replicas (the most one sync may add)
    load.set("web", 400);
    await until("a rescale", () => replicas("web") !== 1);
    expect(replicas("web")).toBe(4);
    expect(await events("web", "SuccessfulRescale")).toEqual([
      "SuccessfulRescale:New size: 4; reason: cpu resource utilization (percentage of request) above target",
    ]);
    const h = hpa("web")!;
    expect(h.status?.lastScaleTime).toBe(new Date(clock.now()).toISOString().replace(/\.\d+Z$/, "Z"));
    expect(h.status).toMatchObject({ currentReplicas: 1, desiredReplicas: 4 });
    expect(cond("web", "AbleToScale")).toMatchObject({
      status: "True",
      reason: "SucceededRescale",
      message: "the HPA controller was able to update the target scale to 4",
    });

    // spread over four pods: 100m each, 50% of the request: the HPA stays at 4
    await until(
      "the load spread over 4 pods",
      () => hpa("web")?.status?.currentMetrics?.[0]?.resource?.current?.averageUtilization === 50,
    );
    await pass(60_000);
    expect(replicas("web")).toBe(4);
    expect(await ok(["get", "hpa", "web", "-n", NS, "--no-headers"])).toMatch(
      /^web\s+Deployment\/web\s+cpu: 50%\/50%\s+1\s+5\s+4\s+\S+$/,
    );
    // the controller's average is what kubectl top shows of the same pods
    const top = await ok(["top", "pod", "-n", NS, "-l", "app=web", "--no-headers"]);
    const cpus = top.split("\n").map((l) => Number(l.trim().split(/\s+/)[1].replace("m", "")));
    expect(cpus).toHaveLength(4);
    expect(cpus.reduce((a, b) => a + b, 0) / 4).toBe(100);
    expect(hpa("web")!.status?.currentMetrics?.[0]?.resource?.current?.averageValue).toBe("100m");

    const d = await ok(["describe", "hpa", "web", "-n", NS]);
    expect(d).toMatch(/^Reference:\s+Deployment\/web$/m);
    expect(d).toMatch(/^Metrics:\s+\( current \/ target \)$/m);
    expect(d).toMatch(/^\s+resource cpu on pods\s+\(as a percentage of request\):\s+50% \(100m\) \/ 50%$/m);
    expect(d).toMatch(/^Min replicas:\s+1$/m);
    expect(d).toMatch(/^Max replicas:\s+5$/m);
    expect(d).toMatch(/^Deployment pods:\s+4 current \/ 4 desired$/m);
    expect(d).toMatch(/^\s+AbleToScale\s+True\s+ReadyForNewScale\s+recommended size matches current size$/m);
    expect(d).toMatch(
      /^\s+ScalingActive\s+True\s+ValidMetricFound\s+the HPA was able to successfully calculate a replica count from cpu resource utilization \(percentage of request\)$/m,
    );
    expect(d).toMatch(
      /^\s+ScalingLimited\s+False\s+DesiredWithinRange\s+the desired count is within the acceptable range$/m,
    );
    expect(d).toMatch(
      /Normal\s+SuccessfulRescale\s+\S+\s+horizontal-pod-autoscaler\s+New size: 4; reason: cpu resource utilization \(percentage of request\) above target/,
    );
  });

  it("maxReplicas caps the scale (ScalingLimited TooManyReplicas); a manual scale is undone at the next sync", async () => {
    const bad = await t.kubectl([
      "patch",
      "hpa",
      "web",
      "-n",
      NS,
      "-p",
      '{"spec":{"minReplicas":4,"maxReplicas":3}}',
    ]);
    expect(bad.exitCode).toBe(1);
    expect(bad.stderr).toBe(
      'The HorizontalPodAutoscaler "web" is invalid: spec.maxReplicas: Invalid value: 3: must be greater than or equal to `minReplicas`',
    );
    expect(await ok(["patch", "hpa", "web", "-n", NS, "-p", '{"spec":{"maxReplicas":2}}'])).toBe(
      "horizontalpodautoscaler.autoscaling/web patched",
    );
    await until("the cap", () => replicas("web") === 2, 30_000);
    expect((await events("web", "SuccessfulRescale")).at(-1)).toBe(
      "SuccessfulRescale:New size: 2; reason: Current number of replicas above Spec.MaxReplicas",
    );
    // 400m over two pods: 100% of the request wants 4, the HPA may not
    await until("the load on two pods", () => cond("web", "ScalingLimited")?.status === "True");
    expect(cond("web", "ScalingLimited")).toMatchObject({
      reason: "TooManyReplicas",
      message: "the desired replica count is more than the maximum replica count",
    });
    await until(
      "100% on two pods",
      () => hpa("web")?.status?.currentMetrics?.[0]?.resource?.current?.averageUtilization === 100,
    );
    expect(await ok(["get", "hpa", "web", "-n", NS, "--no-headers"])).toMatch(
      /^web\s+Deployment\/web\s+cpu: 100%\/50%\s+1\s+2\s+2\s+\S+$/,
    );

    // scaled by hand above the bound: back to 2 at the next sync
    expect(await ok(["scale", "deployment", "web", "-n", NS, "--replicas", "6"])).toBe(
      "deployment.apps/web scaled",
    );
    expect(replicas("web")).toBe(6);
    await until("the undo", () => replicas("web") === 2, 16_000);
    expect(
      (await events("web", "SuccessfulRescale")).filter((e) => e.includes("above Spec.MaxReplicas")),
    ).toHaveLength(1);
    // the aggregated event counts the second time
    const ev = await ok([
      "get",
      "events",
      "-n",
      NS,
      "--field-selector",
      "reason=SuccessfulRescale",
      "-o",
      "jsonpath={range .items[*]}{.count}:{.message}|{end}",
    ]);
    expect(ev).toContain("2:New size: 2; reason: Current number of replicas above Spec.MaxReplicas|");

    // scaled by hand within the bounds but against the load: back up at the next sync (once the
    // metrics show the load on two pods again)
    await until(
      "100% again",
      () => hpa("web")?.status?.currentMetrics?.[0]?.resource?.current?.averageUtilization === 100,
    );
    await pass(30_000);
    await ok(["scale", "deployment", "web", "-n", NS, "--replicas", "1"]);
    await until("the undo", () => replicas("web") === 2, 16_000);
    expect((await events("web", "SuccessfulRescale")).at(-1)).toBe(
      "SuccessfulRescale:New size: 2; reason: cpu resource utilization (percentage of request) above target",
    );
  });

  it("holds a scale-down for the 5-minute stabilization window", async () => {
    await ok(["patch", "hpa", "web", "-n", NS, "-p", '{"spec":{"maxReplicas":5}}']);
    // 400m wants 4: up to 4 at the next sync
    await until("4 replicas", () => replicas("web") === 4, 60_000);
    await until(
      "the load spread",
      () => hpa("web")?.status?.currentMetrics?.[0]?.resource?.current?.averageUtilization === 50,
    );
    const scaledAt = clock.now();
    // the clients go away: 40m in all, 5% of the requests, wants 1
    load.set("web", 40);
    await until(
      "the low load seen",
      () => cond("web", "AbleToScale")?.reason === "ScaleDownStabilized",
      60_000,
    );
    expect(cond("web", "AbleToScale")).toMatchObject({
      status: "True",
      message:
        "recent recommendations were higher than current one, applying the highest recent recommendation",
    });
    expect(replicas("web")).toBe(4);
    await until("the scale-down", () => replicas("web") !== 4, 400_000);
    // not before the recommendations for 4 are 5 minutes old
    expect(clock.now() - scaledAt).toBeGreaterThanOrEqual(300_000);
    expect(replicas("web")).toBe(1);
    expect((await events("web", "SuccessfulRescale")).at(-1)).toBe(
      "SuccessfulRescale:New size: 1; reason: All metrics below target",
    );
  });

  it("a pod without a CPU request: ScalingActive False, FailedGetResourceMetric", async () => {
    await ok(["apply", "-n", NS, "-f", "-"], deploymentYaml("norq", 1, ""));
    await until("norq running", () => running("norq") === 1);
    await ok(["autoscale", "deployment", "norq", "-n", NS, "--max", "3", "--cpu-percent", "50"]);
    // at first the pod has no metrics yet ("no metrics returned from resource metrics API")
    await until(
      "the missing request",
      () => cond("norq", "ScalingActive")?.message?.includes("missing request"),
      60_000,
    );
    const pod = pods("norq")[0].metadata.name;
    const err = `failed to get cpu utilization: missing request for cpu in container app of Pod ${pod}`;
    expect(cond("norq", "ScalingActive")).toMatchObject({
      status: "False",
      reason: "FailedGetResourceMetric",
      message: `the HPA was unable to compute the replica count: ${err}`,
    });
    expect(cond("norq", "AbleToScale")).toMatchObject({ status: "True", reason: "SucceededGetScale" });
    expect((await events("norq")).filter((e) => e.includes("missing request"))).toEqual([
      `FailedGetResourceMetric:${err}`,
      `FailedComputeMetricsReplicas:invalid metrics (1 invalid out of 1), first error is: failed to get cpu resource metric value: ${err}`,
    ]);
    expect(await ok(["get", "hpa", "norq", "-n", NS, "--no-headers"])).toMatch(
      /^norq\s+Deployment\/norq\s+cpu: <unknown>\/50%\s+1\s+3\s+1\s+\S+$/,
    );
    // the same failure each sync: one event, counted
    await pass(30_000);
    const d = await ok(["describe", "hpa", "norq", "-n", NS]);
    expect(d).toMatch(/^Deployment pods:\s+1 current \/ 0 desired$/m);
    expect(d).toMatch(/^\s+resource cpu on pods\s+\(as a percentage of request\):\s+<unknown> \/ 50%$/m);
    expect(d).toMatch(
      /Warning\s+FailedGetResourceMetric\s+\S+ \(x\d+ over \S+\)\s+horizontal-pod-autoscaler\s+failed to get cpu utilization: missing request for cpu/,
    );
  });

  it("an autoscaling/v2 HPA with behavior: StressChaos drives it out at the policies' rate", async () => {
    await ok(
      ["apply", "-n", NS, "-f", "-"],
      deploymentYaml("burn", 2, `        resources: {requests: {cpu: 100m}}`),
    );
    await until("burn running", () => running("burn") === 2);
    await ok(
      ["apply", "-n", NS, "-f", "-"],
      `apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: burn}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: burn}
  minReplicas: 2
  maxReplicas: 20
  metrics:
  - type: Resource
    resource: {name: cpu, target: {type: Utilization, averageUtilization: 80}}
  behavior:
    scaleDown: {stabilizationWindowSeconds: 60}
`,
    );
    // the defaults fill the rules left out
    expect(hpa("burn")!.spec.behavior).toEqual({
      scaleUp: {
        stabilizationWindowSeconds: 0,
        selectPolicy: "Max",
        policies: [
          { type: "Pods", value: 4, periodSeconds: 15 },
          { type: "Percent", value: 100, periodSeconds: 15 },
        ],
      },
      scaleDown: {
        stabilizationWindowSeconds: 60,
        selectPolicy: "Max",
        policies: [{ type: "Percent", value: 100, periodSeconds: 15 }],
      },
    });
    await ok(
      ["apply", "-f", "-"],
      `apiVersion: chaos-mesh.org/v1alpha1
kind: StressChaos
metadata: {name: burn-cpu, namespace: ${NS}}
spec:
  mode: all
  selector: {namespaces: [${NS}], labelSelectors: {app: burn}}
  stressors: {cpu: {workers: 1, load: 50}}
`,
    );
    // 20m + 500m on 100m: 520% of an 80% target wants 13; four pods more per 15 s at most
    await until("a rescale", () => replicas("burn") !== 2, 90_000);
    expect(replicas("burn")).toBe(6);
    expect(cond("burn", "ScalingLimited")).toMatchObject({
      status: "True",
      reason: "ScaleUpLimit",
      message: "the desired replica count is increasing faster than the maximum scale rate",
    });
    expect((await events("burn", "SuccessfulRescale"))[0]).toBe(
      "SuccessfulRescale:New size: 6; reason: cpu resource utilization (percentage of request) above target",
    );
    await ok(["delete", "stresschaos", "burn-cpu", "-n", NS]);
  });

  it("a container's CPU (ContainerResource) and the pods' memory (AverageValue), from what kubectl top shows", async () => {
    await ok(
      ["apply", "-n", NS, "-f", "-"],
      `apiVersion: apps/v1
kind: Deployment
metadata: {name: side}
spec:
  replicas: 2
  selector: {matchLabels: {app: side}}
  template:
    metadata: {labels: {app: side}}
    spec:
      containers:
      - {name: app, image: "nginx:1.25", resources: {requests: {cpu: 100m, memory: 64Mi}}}
      - {name: proxy, image: "nginx:1.25", resources: {requests: {cpu: 50m, memory: 64Mi}}}
---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: side}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: side}
  minReplicas: 2
  maxReplicas: 4
  metrics:
  - type: ContainerResource
    containerResource: {name: cpu, container: app, target: {type: Utilization, averageUtilization: 50}}
  - type: Resource
    resource: {name: memory, target: {type: AverageValue, averageValue: 100Mi}}
`,
    );
    await until("both metrics", () => cond("side", "ScalingActive")?.status === "True", 90_000);
    const top = await ok(["top", "pod", "-n", NS, "-l", "app=side", "--containers", "--no-headers"]);
    // POD NAME CPU MEMORY per container: the app container's CPU and the pods' memory
    const rows = top.split("\n").map((l) => l.trim().split(/\s+/));
    const appCpu = rows.filter((r) => r[1] === "app").map((r) => Number(r[2].replace("m", "")));
    expect(appCpu).toEqual([20, 20]);
    const [cpu, memory] = hpa("side")!.status!.currentMetrics!;
    expect(cpu).toEqual({
      type: "ContainerResource",
      containerResource: {
        name: "cpu",
        container: "app",
        current: { averageUtilization: 20, averageValue: "20m" },
      },
    });
    // two containers at 60% of 64Mi each, in whole pages: 78640Ki a pod
    expect(memory).toEqual({
      type: "Resource",
      resource: { name: "memory", current: { averageValue: "80527360" } },
    });
    expect(await ok(["get", "hpa", "side", "-n", NS, "--no-headers"])).toMatch(
      /^side\s+Deployment\/side\s+cpu: 20%\/50%, memory: 80527360\/100Mi\s+2\s+4\s+2\s+\S+$/,
    );
    // the highest proposal names the metric: memory (77% of its target) wants 2, the CPU (40%) 1
    expect(cond("side", "ScalingActive")?.message).toBe(
      "the HPA was able to successfully calculate a replica count from memory resource",
    );
    const d = await ok(["describe", "hpa", "side", "-n", NS]);
    expect(d).toMatch(
      /^\s+resource cpu of container "app" on pods\s+\(as a percentage of request\):\s+20% \(20m\) \/ 50%$/m,
    );
    expect(d).toMatch(/^\s+resource memory on pods:\s+80527360 \/ 100Mi$/m);
  });

  it("reads as autoscaling/v1, and once deleted leaves a manual scale alone", async () => {
    const v1 = JSON.parse(
      await ok(["get", "horizontalpodautoscalers.v1.autoscaling", "web", "-n", NS, "-o", "json"]),
    );
    expect(v1.apiVersion).toBe("autoscaling/v1");
    expect(v1.spec).toMatchObject({ maxReplicas: 5, minReplicas: 1, targetCPUUtilizationPercentage: 50 });
    expect(v1.status.currentCPUUtilizationPercentage).toBeGreaterThanOrEqual(0);
    const conditions = JSON.parse(v1.metadata.annotations["autoscaling.alpha.kubernetes.io/conditions"]);
    expect(conditions.map((c: Condition) => c.type)).toEqual([
      "AbleToScale",
      "ScalingActive",
      "ScalingLimited",
    ]);

    expect(await ok(["delete", "hpa", "web", "-n", NS])).toBe(
      'horizontalpodautoscaler.autoscaling "web" deleted',
    );
    await ok(["scale", "deployment", "web", "-n", NS, "--replicas", "3"]);
    await pass(45_000);
    expect(replicas("web")).toBe(3);

    // its target gone, an HPA says so
    await ok(["delete", "deployment", "norq", "-n", NS]);
    await until("the missing target", () => cond("norq", "AbleToScale")?.status === "False", 30_000);
    expect(cond("norq", "AbleToScale")).toMatchObject({
      reason: "FailedGetScale",
      message: `the HPA controller was unable to get the target's current scale: deployments.apps "norq" not found`,
    });
    expect(await events("norq", "FailedGetScale")).toEqual([
      'FailedGetScale:deployments.apps "norq" not found',
    ]);
  });
});
