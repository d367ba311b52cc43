import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { failure } from "../../src/faults/catalog.js";
import { KubeClient } from "../../src/kube/client.js";
import { loadKubeConfig } from "../../src/kube/connect.js";
import type { KObj } from "../../src/kube/objects.js";
import { makeNoise, undoNoise } from "../../src/noise/apply.js";
import { EDIT_ANNOTATION, type NoiseEvent, planNoise } from "../../src/noise/plan.js";
import { caseScope, type Fault } from "../../src/runner/context.js";
import { seededNoise } from "../../src/runner/noise.js";
import { FakeClock } from "../helpers/clock.js";
import { startTestCluster, type TestCluster } from "../helpers/cluster.js";
import { runConfig, simpleMicro } from "../helpers/offline.js";

const deployment = (name: string, image: string, command?: string[]): KObj => ({
  apiVersion: "apps/v1",
  kind: "Deployment",
  metadata: { name },
  spec: {
    replicas: 1,
    selector: { matchLabels: { app: name } },
    template: {
      metadata: { labels: { app: name } },
      spec: { containers: [{ name, image, ...(command ? { command } : {}) }] },
    },
  },
});
/** A shell in one image, none in the other (distroless); the case's fault is on "target". */
const MANIFESTS: KObj[] = [
  deployment("shell", "busybox:1.35", ["sleep", "36000"]),
  deployment("bare", "gcr.io/distroless/static:nonroot"),
  deployment("target", "busybox:1.35", ["sleep", "36000"]),
  {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "settings", annotations: { owner: "team-a" } },
    data: { a: "1" },
  },
];

let tc: TestCluster;
let client: KubeClient;
const kn = (ns: string, args: string[]) => tc.kubectl(["-n", ns, ...args]);

/** A namespace with the manifests, every Deployment Ready. */
async function namespace(ns: string): Promise<void> {
  await tc.kubectl(["create", "namespace", ns]);
  await kn(ns, ["apply", "-f", tc.file(`${ns}.yaml`, MANIFESTS.map((m) => stringify(m)).join("---\n"))]);
  await kn(ns, ["rollout", "status", "deployment", "--timeout=120s"]);
}

const annotations = async (ns: string) =>
  (await client.get<KObj>("v1", "ConfigMap", ns, "settings")).metadata.annotations ?? {};

beforeAll(async () => {
  tc = await startTestCluster(30, 11);
  client = new KubeClient(loadKubeConfig({ kubeconfig: tc.kubeconfig }).kc);
}, 60_000);
afterAll(() => tc.stop());

describe("makeNoise", () => {
  it("records only the events that happened, and undoNoise takes the ConfigMap edit back", async () => {
    await namespace("made");
    const ev = (kind: NoiseEvent["kind"], target: string, detail: string): NoiseEvent => ({
      kind,
      target,
      detail,
    });
    const events = [
      ev("cpu-burst", "shell", "2 s of CPU work"),
      ev("cpu-burst", "bare", "2 s of CPU work"),
      ev("warning-event", "shell", "DNSConfigForming"),
      // the kubelet writes no probe failure for a pod without a readiness probe: not made
      ev("warning-event", "shell", "Unhealthy"),
      ev("pod-restart", "gone", "one pod deleted; its Deployment replaces it"),
      ev("configmap-edit", "settings", `annotation ${EDIT_ANNOTATION}=12345678`),
      ev("configmap-edit", "missing", `annotation ${EDIT_ANNOTATION}=12345678`),
      ev("pod-restart", "shell", "one pod deleted; its Deployment replaces it"),
    ];
    const before = await annotations("made");
    // (indices below: 0 burst, 2-3 warnings, 5 edit, 7 restart)
    expect(before).toMatchObject({ owner: "team-a" });
    const scope = { client, time: new FakeClock(), namespace: "made", seed: 1 };
    const made = await makeNoise(scope, events, "1#1");
    expect(made).toEqual([
      events[0],
      {
        ...events[2],
        detail:
          "DNSConfigForming: Search Line limits were exceeded, some search paths have been omitted, the applied search line is: made.svc.cluster.local svc.cluster.local cluster.local",
      },
      events[5],
      events[7],
    ]);
    expect(await annotations("made")).toEqual({ ...before, [EDIT_ANNOTATION]: "12345678" });
    const warnings = await kn("made", ["get", "events", "--field-selector", "type=Warning", "-o", "name"]);
    expect(warnings.stdout.trim().split("\n")).toHaveLength(1);
    await undoNoise(scope, events);
    expect(await annotations("made")).toEqual(before);
  }, 180_000);
});

describe("a warning as the kubelet writes it", () => {
  it("names the pod's own readiness probe, stamped in the past in whole seconds, never <invalid>", async () => {
    await tc.kubectl(["create", "namespace", "probed"]);
    const web: KObj = {
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name: "web" },
      spec: {
        replicas: 1,
        selector: { matchLabels: { app: "web" } },
        template: {
          metadata: { labels: { app: "web" } },
          spec: {
            containers: [
              {
                name: "web",
                image: "nginx:1.27",
                ports: [{ name: "http", containerPort: 80 }],
                readinessProbe: { httpGet: { path: "/", port: "http" }, periodSeconds: 5 },
              },
            ],
          },
        },
      },
    };
    await kn("probed", ["apply", "-f", tc.file("probed.yaml", stringify(web))]);
    await kn("probed", ["rollout", "status", "deployment/web", "--timeout=120s"]);
    const scope = { client, time: new FakeClock(), namespace: "probed", seed: 3 };
    const [made] = await makeNoise(
      scope,
      [{ kind: "warning-event", target: "web", detail: "Unhealthy" }],
      "2#1",
    );
    const ip = (
      await kn("probed", ["get", "pod", "-l", "app=web", "-o", "jsonpath={.items[0].status.podIP}"])
    ).stdout;
    expect(made?.detail).toBe(
      `Unhealthy: Readiness probe failed: Get "http://${ip}:80/": context deadline exceeded (Client.Timeout exceeded while awaiting headers)`,
    );
    const ev = (
      JSON.parse((await kn("probed", ["get", "events", "-o", "json"])).stdout).items as KObj[]
    ).find((x) => String(x.message).includes("context deadline exceeded")) as KObj & {
      lastTimestamp: string;
    };
    expect(ev.lastTimestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(Date.parse(ev.lastTimestamp)).toBeLessThan(await scope.time.clusterNow());
  }, 180_000);
});

describe("seededNoise", () => {
  it("a restarted workload that does not come back is left out, the case goes on, and the restore undoes the edit", async () => {
    await namespace("late");
    const env = { ...simpleMicro(), manifests: MANIFESTS };
    const faults: Fault[] = [{ failure: failure("pod-fail"), target: "target" }];
    // a seed whose plan restarts a pod and edits the ConfigMap
    const names = (kind: string) => MANIFESTS.filter((m) => m.kind === kind).map((m) => m.metadata.name!);
    const seed = [...Array(500).keys()].find((s) => {
      const kinds = planNoise(s, "4#1", names("Deployment"), names("ConfigMap"), ["target"]).map(
        (e) => e.kind,
      );
      return kinds.includes("pod-restart") && kinds.includes("configmap-edit");
    })!;
    const planned = planNoise(seed, "4#1", names("Deployment"), names("ConfigMap"), ["target"]);
    const cfg = runConfig({ seed, noise: true, namespace: "late" });
    const scope = caseScope(
      { client, time: new FakeClock(), env, namespace: "late", signal: new AbortController().signal },
      cfg,
    );
    const noise = seededNoise(cfg).plan(scope, faults, "4#1");
    const before = await annotations("late");
    // no node takes a new pod: what the noise restarts stays Pending past the ready timeout
    const node = (await tc.kubectl(["get", "nodes", "-o", "name"])).stdout.trim().split("\n")[0];
    await tc.kubectl(["cordon", node]);
    try {
      const made = await noise.make();
      const happens = (e: NoiseEvent) =>
        e.kind !== "pod-restart" && !(e.kind === "cpu-burst" && e.target === "bare");
      expect(made).toEqual(planned.filter(happens));
      expect(made.some((e) => e.kind === "configmap-edit")).toBe(true);
      expect(made.every((e) => e.target !== "target")).toBe(true);
    } finally {
      await tc.kubectl(["uncordon", node]);
    }
    expect(await annotations("late")).toEqual({ ...before, [EDIT_ANNOTATION]: expect.any(String) });
    await noise.undo();
    expect(await annotations("late")).toEqual(before);
  }, 180_000);
});
