import { describe, expect, it } from "vitest";
import { humanDuration, toTable } from "../../../src/sim/api/table/index.js";
import type { KObject, ResourceType } from "../../../src/sim/core/types.js";

const NOW = Date.parse("2025-06-01T12:00:00Z");
const ago = (ms: number) => new Date(NOW - ms).toISOString();
const S = 1000;
const M = 60 * S;
const H = 60 * M;
const D = 24 * H;

function rt(group: string, resource: string, kind: string, extra: Partial<ResourceType> = {}): ResourceType {
  return {
    group,
    version: "v1",
    resource,
    kind,
    singular: kind.toLowerCase(),
    namespaced: true,
    verbs: [],
    ...extra,
  };
}
const PODS = rt("", "pods", "Pod");

function obj(
  kind: string,
  name: string,
  rest: Record<string, unknown> = {},
  meta: Record<string, unknown> = {},
): KObject {
  return {
    apiVersion: "v1",
    kind,
    metadata: { name, namespace: "shop", creationTimestamp: ago(5 * M), labels: { app: name }, ...meta },
    ...rest,
  };
}

/** The table's single row as a column-name → cell map. */
function row(resource: ResourceType, o: KObject) {
  const t = toTable(resource, [o], { now: NOW });
  expect(t.rows[0].cells).toHaveLength(t.columnDefinitions.length);
  return Object.fromEntries(t.columnDefinitions.map((c, i) => [c.name, t.rows[0].cells[i]]));
}

describe("humanDuration", () => {
  // From k8s.io/apimachinery/pkg/util/duration's TestHumanDuration and TestHumanDurationBoundaries.
  const cases: [number, string][] = [
    [S, "1s"],
    [70 * S, "70s"],
    [190 * S, "3m10s"],
    [70 * M, "70m"],
    [47 * H, "47h"],
    [49 * H, "2d1h"],
    [(8 * 24 + 2) * H, "8d"],
    [367 * D, "367d"],
    [(365 * 2 * 24 + 25) * H, "2y1d"],
    [(365 * 8 * 24 + 2) * H, "8y"],
    [-2 * S, "<invalid>"],
    [-2 * S + 1, "0s"],
    [0, "0s"],
    [S - 1, "0s"],
    [2 * M - 1, "119s"],
    [2 * M, "2m"],
    [2 * M + S, "2m1s"],
    [10 * M - 1, "9m59s"],
    [10 * M, "10m"],
    [10 * M + S, "10m"],
    [3 * H - 1, "179m"],
    [3 * H, "3h"],
    [3 * H + M, "3h1m"],
    [8 * H - 1, "7h59m"],
    [8 * H, "8h"],
    [8 * H + 59 * M, "8h"],
    [2 * D - 1, "47h"],
    [2 * D, "2d"],
    [2 * D + H, "2d1h"],
    [8 * D - 1, "7d23h"],
    [8 * D, "8d"],
    [8 * D + 23 * H, "8d"],
    [2 * 365 * D - 1, "729d"],
    [2 * 365 * D, "2y"],
    [2 * 365 * D + 24 * H - 1, "2y"],
    [2 * 365 * D + 24 * H, "2y1d"],
    [3 * 365 * D, "3y"],
    [(2 * 365 + 45) * D, "2y45d"],
    [8 * 365 * D - 1, "7y364d"],
    [8 * 365 * D, "8y"],
    [8 * 365 * D + 364 * D, "8y"],
    [9 * 365 * D, "9y"],
    [45 * S, "45s"],
    [200 * S, "3m20s"],
    [5 * M, "5m"],
    [3 * H + 20 * M, "3h20m"],
  ];
  it.each(cases)("%d ms → %s", (ms, want) => expect(humanDuration(ms)).toBe(want));
});

describe("pods", () => {
  const running = (name: string, extra: Record<string, unknown> = {}) => ({
    name,
    ready: true,
    restartCount: 0,
    state: { running: { startedAt: ago(4 * M) } },
    ...extra,
  });
  const pod = (
    status: Record<string, unknown>,
    spec: Record<string, unknown> = {},
    meta: Record<string, unknown> = {},
  ) =>
    obj(
      "Pod",
      "web-1",
      { spec: { nodeName: "node-1", containers: [{ name: "app" }], ...spec }, status },
      meta,
    );

  it("prints a running pod with its wide columns", () => {
    const r = row(
      PODS,
      pod(
        {
          phase: "Running",
          podIP: "10.42.0.5",
          podIPs: [{ ip: "10.42.0.5" }],
          containerStatuses: [running("app"), running("side")],
        },
        { containers: [{ name: "app" }, { name: "side" }] },
      ),
    );
    expect(r).toEqual({
      Name: "web-1",
      Ready: "2/2",
      Status: "Running",
      Restarts: "0",
      Age: "5m",
      IP: "10.42.0.5",
      Node: "node-1",
      "Nominated Node": "<none>",
      "Readiness Gates": "<none>",
    });
  });

  it("shows ContainerCreating while pending, with no IP or node", () => {
    const r = row(
      PODS,
      obj("Pod", "web-1", {
        spec: { containers: [{ name: "app" }] },
        status: {
          phase: "Pending",
          containerStatuses: [
            {
              name: "app",
              ready: false,
              restartCount: 0,
              state: { waiting: { reason: "ContainerCreating" } },
            },
          ],
        },
      }),
    );
    expect([r.Ready, r.Status, r.Restarts, r.IP, r.Node]).toEqual([
      "0/1",
      "ContainerCreating",
      "0",
      "<none>",
      "<none>",
    ]);
  });

  it("shows CrashLoopBackOff with the restart count and the last restart's age", () => {
    const r = row(
      PODS,
      pod({
        phase: "Running",
        containerStatuses: [
          {
            name: "app",
            ready: false,
            restartCount: 3,
            state: { waiting: { reason: "CrashLoopBackOff", message: "back-off 40s" } },
            lastState: { terminated: { exitCode: 1, reason: "Error", finishedAt: ago(45 * S) } },
          },
        ],
      }),
    );
    expect([r.Ready, r.Status, r.Restarts]).toEqual(["0/1", "CrashLoopBackOff", "3 (45s ago)"]);
  });

  it("shows image pull failures", () => {
    for (const reason of ["ErrImagePull", "ImagePullBackOff"]) {
      const r = row(
        PODS,
        pod({
          phase: "Pending",
          containerStatuses: [{ name: "app", ready: false, restartCount: 0, state: { waiting: { reason } } }],
        }),
      );
      expect(r.Status).toBe(reason);
    }
  });

  it("shows OOMKilled from a terminated container, and exit codes when there is no reason", () => {
    const term = (terminated: Record<string, unknown>) =>
      row(
        PODS,
        pod({
          phase: "Running",
          containerStatuses: [
            { name: "app", ready: false, restartCount: 1, state: { terminated }, lastState: {} },
          ],
        }),
      );
    expect(term({ exitCode: 137, reason: "OOMKilled", finishedAt: ago(S) }).Status).toBe("OOMKilled");
    expect(term({ exitCode: 2 }).Status).toBe("ExitCode:2");
    expect(term({ exitCode: 137, signal: 9 }).Status).toBe("Signal:9");
    // No last termination time: the count alone.
    expect(term({ exitCode: 137, reason: "OOMKilled" }).Restarts).toBe("1");
  });

  it("shows Completed for succeeded pods and marks the row completed", () => {
    const t = toTable(
      PODS,
      [
        pod({
          phase: "Succeeded",
          containerStatuses: [
            {
              name: "app",
              ready: false,
              restartCount: 0,
              state: { terminated: { exitCode: 0, reason: "Completed" } },
            },
          ],
        }),
      ],
      { now: NOW },
    );
    expect(t.rows[0].cells[2]).toBe("Completed");
    expect(t.rows[0].conditions).toEqual([
      {
        type: "Completed",
        status: "True",
        reason: "Succeeded",
        message: "The pod has completed successfully.",
      },
    ]);
  });

  it("says NotReady when one container completed and another still runs", () => {
    const r = row(
      PODS,
      pod(
        {
          phase: "Running",
          conditions: [{ type: "Ready", status: "False" }],
          containerStatuses: [
            {
              name: "app",
              ready: false,
              restartCount: 0,
              state: { terminated: { exitCode: 0, reason: "Completed" } },
            },
            running("side"),
          ],
        },
        { containers: [{ name: "app" }, { name: "side" }] },
      ),
    );
    expect([r.Ready, r.Status]).toEqual(["1/2", "NotReady"]);
  });

  it("shows Terminating once a deletion timestamp is set, Unknown for a lost node", () => {
    const status = { phase: "Running", containerStatuses: [running("app")] };
    expect(row(PODS, pod(status, {}, { deletionTimestamp: ago(S) })).Status).toBe("Terminating");
    expect(row(PODS, pod({ ...status, reason: "NodeLost" }, {}, { deletionTimestamp: ago(S) })).Status).toBe(
      "Unknown",
    );
    expect(row(PODS, pod({ ...status, reason: "NodeLost" })).Status).toBe("NodeLost");
    // Terminal pods keep their phase.
    expect(row(PODS, pod({ phase: "Failed" }, {}, { deletionTimestamp: ago(S) })).Status).toBe("Failed");
  });

  describe("init containers", () => {
    const spec = { initContainers: [{ name: "migrate" }, { name: "seed" }] };
    const done = {
      name: "migrate",
      ready: true,
      restartCount: 0,
      state: { terminated: { exitCode: 0, reason: "Completed" } },
    };
    const waitingApp = [
      { name: "app", ready: false, restartCount: 0, state: { waiting: { reason: "PodInitializing" } } },
    ];
    const init = (second: Record<string, unknown>) =>
      row(
        PODS,
        pod(
          {
            phase: "Pending",
            initContainerStatuses: [done, { name: "seed", ...second }],
            containerStatuses: waitingApp,
          },
          spec,
        ),
      );

    it("counts finished init containers", () => {
      const r = init({ ready: false, restartCount: 0, state: { running: { startedAt: ago(S) } } });
      expect([r.Ready, r.Status]).toEqual(["0/1", "Init:1/2"]);
    });
    it("shows an init container's waiting reason and its restarts", () => {
      const r = init({
        ready: false,
        restartCount: 2,
        state: { waiting: { reason: "CrashLoopBackOff" } },
        lastState: { terminated: { exitCode: 1, finishedAt: ago(3 * M) } },
      });
      expect([r.Status, r.Restarts]).toEqual(["Init:CrashLoopBackOff", "2 (3m ago)"]);
    });
    it("shows a failed init container", () => {
      expect(init({ restartCount: 0, state: { terminated: { exitCode: 1, reason: "Error" } } }).Status).toBe(
        "Init:Error",
      );
      expect(init({ restartCount: 0, state: { terminated: { exitCode: 3 } } }).Status).toBe(
        "Init:ExitCode:3",
      );
    });
    it("counts a started sidecar as a container", () => {
      const r = row(
        PODS,
        pod(
          {
            phase: "Running",
            conditions: [{ type: "Initialized", status: "True" }],
            initContainerStatuses: [
              { name: "proxy", ready: true, started: true, restartCount: 0, state: { running: {} } },
            ],
            containerStatuses: [running("app")],
          },
          { initContainers: [{ name: "proxy", restartPolicy: "Always" }] },
        ),
      );
      expect([r.Ready, r.Status]).toEqual(["2/2", "Running"]);
    });
  });

  it("counts readiness gates and shows SchedulingGated", () => {
    const r = row(
      PODS,
      pod(
        {
          phase: "Pending",
          conditions: [
            { type: "PodScheduled", status: "False", reason: "SchedulingGated" },
            { type: "example.com/lb", status: "True" },
          ],
        },
        { readinessGates: [{ conditionType: "example.com/lb" }, { conditionType: "example.com/other" }] },
      ),
    );
    expect([r.Status, r["Readiness Gates"]]).toEqual(["SchedulingGated", "1/2"]);
  });

  it("marks the wide columns priority 1", () => {
    const t = toTable(PODS, [], { now: NOW });
    expect(t.columnDefinitions.map((c) => [c.name, c.priority])).toEqual([
      ["Name", 0],
      ["Ready", 0],
      ["Status", 0],
      ["Restarts", 0],
      ["Age", 0],
      ["IP", 1],
      ["Node", 1],
      ["Nominated Node", 1],
      ["Readiness Gates", 1],
    ]);
    expect(t.columnDefinitions[0].format).toBe("name");
    expect(t.rows).toEqual([]);
  });
});

describe("row objects", () => {
  const p = obj("Pod", "web-1", { spec: { containers: [] }, status: {} }, { uid: "u1" });

  it("default to PartialObjectMetadata with the namespace and labels", () => {
    const t = toTable(PODS, [p], { now: NOW, resourceVersion: "42" });
    expect(t.kind).toBe("Table");
    expect(t.apiVersion).toBe("meta.k8s.io/v1");
    expect(t.metadata).toEqual({ resourceVersion: "42" });
    expect(t.rows[0].object).toEqual({
      kind: "PartialObjectMetadata",
      apiVersion: "meta.k8s.io/v1",
      metadata: {
        name: "web-1",
        namespace: "shop",
        uid: "u1",
        creationTimestamp: ago(5 * M),
        labels: { app: "web-1" },
      },
    });
  });

  it("honour includeObject=Object and None", () => {
    expect(toTable(PODS, [p], { now: NOW, includeObject: "Object" }).rows[0].object).toBe(p);
    expect(toTable(PODS, [p], { now: NOW, includeObject: "None" }).rows[0].object).toBeNull();
  });

  it("age is <unknown> without a creation timestamp", () => {
    expect(row(PODS, obj("Pod", "x", {}, { creationTimestamp: undefined })).Age).toBe("<unknown>");
  });
});

const template = {
  spec: {
    containers: [
      { name: "app", image: "shop/web:1.2" },
      { name: "log", image: "busybox" },
    ],
  },
};

describe("apps", () => {
  it("deployments", () => {
    const d = obj("Deployment", "web", {
      spec: { replicas: 3, selector: { matchLabels: { tier: "fe", app: "web" } }, template },
      status: { replicas: 3, updatedReplicas: 3, readyReplicas: 2, availableReplicas: 2 },
    });
    expect(row(rt("apps", "deployments", "Deployment"), d)).toEqual({
      Name: "web",
      Ready: "2/3",
      "Up-to-date": 3,
      Available: 2,
      Age: "5m",
      Containers: "app,log",
      Images: "shop/web:1.2,busybox",
      Selector: "app=web,tier=fe",
    });
    // A fresh deployment has no status yet.
    expect(
      row(rt("apps", "deployments", "Deployment"), obj("Deployment", "web", { spec: { template } })).Ready,
    ).toBe("0/1");
  });

  it("replicasets", () => {
    const rs = obj("ReplicaSet", "web-5d8f", {
      spec: {
        replicas: 2,
        selector: {
          matchLabels: { app: "web" },
          matchExpressions: [{ key: "env", operator: "In", values: ["prod", "dev"] }],
        },
        template,
      },
      status: { replicas: 2, readyReplicas: 1 },
    });
    const r = row(rt("apps", "replicasets", "ReplicaSet"), rs);
    expect([r.Desired, r.Current, r.Ready, r.Selector]).toEqual([2, 2, 1, "app=web,env in (dev,prod)"]);
    expect(
      row(rt("apps", "replicasets", "ReplicaSet"), obj("ReplicaSet", "x", { spec: { template } })).Selector,
    ).toBe("<none>");
  });

  it("statefulsets", () => {
    const sts = obj("StatefulSet", "db", { spec: { replicas: 2, template }, status: { readyReplicas: 1 } });
    expect(row(rt("apps", "statefulsets", "StatefulSet"), sts)).toEqual({
      Name: "db",
      Ready: "1/2",
      Age: "5m",
      Containers: "app,log",
      Images: "shop/web:1.2,busybox",
    });
  });

  it("daemonsets", () => {
    const ds = obj("DaemonSet", "agent", {
      spec: {
        selector: { matchLabels: { app: "agent" } },
        template: { spec: { ...template.spec, nodeSelector: { "kubernetes.io/os": "linux" } } },
      },
      status: {
        desiredNumberScheduled: 3,
        currentNumberScheduled: 3,
        numberReady: 2,
        updatedNumberScheduled: 3,
        numberAvailable: 2,
      },
    });
    const r = row(rt("apps", "daemonsets", "DaemonSet"), ds);
    expect([r.Desired, r.Current, r.Ready, r["Up-to-date"], r.Available, r["Node Selector"]]).toEqual([
      3,
      3,
      2,
      3,
      2,
      "kubernetes.io/os=linux",
    ]);
  });

  it("controllerrevisions", () => {
    const cr = obj(
      "ControllerRevision",
      "db-7c9",
      { revision: 2 },
      {
        ownerReferences: [
          { apiVersion: "apps/v1", kind: "StatefulSet", name: "db", uid: "u", controller: true },
        ],
      },
    );
    expect(row(rt("apps", "controllerrevisions", "ControllerRevision"), cr)).toEqual({
      Name: "db-7c9",
      Controller: "statefulset.apps/db",
      Revision: 2,
      Age: "5m",
    });
  });
});

describe("services and endpoints", () => {
  const SVC = rt("", "services", "Service");
  it("prints ports, cluster IPs and selectors", () => {
    const svc = obj("Service", "web", {
      spec: {
        type: "ClusterIP",
        clusterIP: "10.43.0.10",
        clusterIPs: ["10.43.0.10"],
        selector: { app: "web" },
        ports: [
          { port: 80, protocol: "TCP" },
          { port: 53, protocol: "UDP" },
        ],
      },
    });
    expect(row(SVC, svc)).toEqual({
      Name: "web",
      Type: "ClusterIP",
      "Cluster-IP": "10.43.0.10",
      "External-IP": "<none>",
      "Port(s)": "80/TCP,53/UDP",
      Age: "5m",
      Selector: "app=web",
    });
  });
  it("prints node ports and load balancers", () => {
    const np = obj("Service", "web", {
      spec: { type: "NodePort", clusterIP: "10.43.0.11", ports: [{ port: 80, nodePort: 30080 }] },
    });
    expect(row(SVC, np)["Port(s)"]).toBe("80:30080/TCP");
    expect(row(SVC, np).Selector).toBe("<none>");
    const lb = obj("Service", "lb", { spec: { type: "LoadBalancer", clusterIP: "10.43.0.12", ports: [] } });
    expect([row(SVC, lb)["External-IP"], row(SVC, lb)["Port(s)"]]).toEqual(["<pending>", "<none>"]);
    lb.status = { loadBalancer: { ingress: [{ ip: "192.168.1.9" }, { hostname: "lb.example" }] } };
    expect(row(SVC, lb)["External-IP"]).toBe("192.168.1.9,lb.example");
    const ext = obj("Service", "ext", { spec: { type: "ExternalName", externalName: "db.example.com" } });
    expect([row(SVC, ext)["Cluster-IP"], row(SVC, ext)["External-IP"]]).toEqual(["<none>", "db.example.com"]);
  });

  const EP = rt("", "endpoints", "Endpoints");
  it("lists three endpoints then counts the rest", () => {
    const ep = obj("Endpoints", "web", {
      subsets: [
        {
          addresses: ["10.42.0.5", "10.42.0.6", "10.42.0.7", "10.42.0.8"].map((ip) => ({ ip })),
          ports: [{ port: 8080, protocol: "TCP" }],
        },
      ],
    });
    expect(row(EP, ep).Endpoints).toBe("10.42.0.5:8080,10.42.0.6:8080,10.42.0.7:8080 + 1 more...");
    ep.subsets = [{ addresses: [{ ip: "10.42.0.5" }, { ip: "fd00::1" }], ports: [{ port: 8080 }] }];
    expect(row(EP, ep).Endpoints).toBe("10.42.0.5:8080,[fd00::1]:8080");
    expect(row(EP, obj("Endpoints", "idle", {})).Endpoints).toBe("<none>");
  });
});

describe("events", () => {
  const EV = rt("", "events", "Event");
  const base = {
    involvedObject: { kind: "Pod", name: "web-1", namespace: "shop", fieldPath: "spec.containers{app}" },
    reason: "BackOff",
    type: "Warning",
    message: "Back-off restarting failed container\n",
    source: { component: "kubelet", host: "node-1" },
  };

  it("prints the real column set, wide ones last", () => {
    const ev = obj("Event", "web-1.17a", {
      ...base,
      firstTimestamp: ago(10 * M),
      lastTimestamp: ago(30 * S),
      count: 7,
    });
    const t = toTable(EV, [ev], { now: NOW });
    expect(t.columnDefinitions.map((c) => `${c.name}:${c.priority}`)).toEqual([
      "Last Seen:0",
      "Type:0",
      "Reason:0",
      "Object:0",
      "Subobject:1",
      "Source:1",
      "Message:0",
      "First Seen:1",
      "Count:1",
      "Name:1",
    ]);
    expect(t.rows[0].cells).toEqual([
      "30s",
      "Warning",
      "BackOff",
      "pod/web-1",
      "spec.containers{app}",
      "kubelet, node-1",
      "Back-off restarting failed container",
      "10m",
      7,
      "web-1.17a",
    ]);
  });

  // core/v1 spells the Go field ReportingController `reportingComponent` in JSON
  // (k8s.io/api/core/v1/types.go); events.k8s.io/v1 spells it `reportingController`
  it("falls back to eventTime, series and reporting controller", () => {
    const ev = obj("Event", "e2", {
      ...base,
      source: {},
      reportingComponent: "deployment-controller",
      eventTime: ago(2 * M),
      involvedObject: { kind: "Deployment", name: "web" },
    });
    const r = row(EV, ev);
    expect([r["Last Seen"], r["First Seen"], r.Count, r.Object, r.Source]).toEqual([
      "2m",
      "2m",
      1,
      "deployment/web",
      "deployment-controller",
    ]);
    ev.series = { count: 4, lastObservedTime: ago(5 * S) };
    expect([row(EV, ev)["Last Seen"], row(EV, ev).Count]).toEqual(["5s", 4]);
    expect(row(EV, obj("Event", "e3", { involvedObject: { kind: "Node" } }))["Last Seen"]).toBe("<unknown>");
  });

  it("prints an events.k8s.io/v1 Event's reportingController and instance as its source", () => {
    const ev: KObject = {
      ...obj("Event", "e4", {
        type: "Normal",
        reason: "ScalingReplicaSet",
        note: "Scaled up replica set web-1 to 1",
        regarding: { kind: "Deployment", name: "web" },
        eventTime: ago(3 * M),
        reportingController: "deployment-controller",
        reportingInstance: "kube-controller-manager-node-1",
      }),
      apiVersion: "events.k8s.io/v1",
    };
    const r = row(rt("events.k8s.io", "events", "Event"), ev);
    expect([r.Object, r.Source, r.Message]).toEqual([
      "deployment/web",
      "deployment-controller, kube-controller-manager-node-1",
      "Scaled up replica set web-1 to 1",
    ]);
  });
});

describe("nodes", () => {
  const NODES = rt("", "nodes", "Node", { namespaced: false });
  it("prints status, roles and system info", () => {
    const node = obj(
      "Node",
      "node-1",
      {
        spec: { unschedulable: true },
        status: {
          conditions: [{ type: "Ready", status: "True" }],
          addresses: [
            { type: "InternalIP", address: "172.18.0.2" },
            { type: "Hostname", address: "node-1" },
          ],
          nodeInfo: {
            kubeletVersion: "v1.32.0+k3s1",
            osImage: "K3s v1.32.0+k3s1",
            kernelVersion: "6.8.0",
            containerRuntimeVersion: "containerd://1.7.23",
          },
        },
      },
      {
        namespace: undefined,
        creationTimestamp: ago(3 * D),
        labels: { "node-role.kubernetes.io/control-plane": "true", "node-role.kubernetes.io/master": "true" },
      },
    );
    expect(row(NODES, node)).toEqual({
      Name: "node-1",
      Status: "Ready,SchedulingDisabled",
      Roles: "control-plane,master",
      Age: "3d",
      Version: "v1.32.0+k3s1",
      "Internal-IP": "172.18.0.2",
      "External-IP": "<none>",
      "OS-Image": "K3s v1.32.0+k3s1",
      "Kernel-Version": "6.8.0",
      "Container-Runtime": "containerd://1.7.23",
    });
    const worker = obj(
      "Node",
      "node-2",
      { status: { conditions: [{ type: "Ready", status: "Unknown" }] } },
      { labels: {} },
    );
    expect([row(NODES, worker).Status, row(NODES, worker).Roles, row(NODES, worker)["OS-Image"]]).toEqual([
      "NotReady",
      "<none>",
      "<unknown>",
    ]);
  });
});

describe("other core kinds", () => {
  it("namespaces, configmaps, secrets, serviceaccounts, pvcs", () => {
    expect(
      row(rt("", "namespaces", "Namespace"), obj("Namespace", "shop", { status: { phase: "Active" } })),
    ).toEqual({
      Name: "shop",
      Status: "Active",
      Age: "5m",
    });
    expect(
      row(
        rt("", "configmaps", "ConfigMap"),
        obj("ConfigMap", "cfg", { data: { a: "1", b: "2" }, binaryData: { c: "" } }),
      ).Data,
    ).toBe(3);
    expect(
      row(rt("", "secrets", "Secret"), obj("Secret", "s", { type: "Opaque", data: { k: "dg==" } })),
    ).toEqual({
      Name: "s",
      Type: "Opaque",
      Data: 1,
      Age: "5m",
    });
    expect(
      row(rt("", "serviceaccounts", "ServiceAccount"), obj("ServiceAccount", "default", {})).Secrets,
    ).toBe(0);
    const pvc = obj("PersistentVolumeClaim", "data", {
      spec: {
        volumeName: "pv-1",
        storageClassName: "local-path",
        accessModes: ["ReadWriteOnce"],
        volumeMode: "Filesystem",
      },
      status: { phase: "Bound", capacity: { storage: "1Gi" }, accessModes: ["ReadWriteOnce"] },
    });
    expect(row(rt("", "persistentvolumeclaims", "PersistentVolumeClaim"), pvc)).toEqual({
      Name: "data",
      Status: "Bound",
      Volume: "pv-1",
      Capacity: "1Gi",
      "Access Modes": "RWO",
      StorageClass: "local-path",
      VolumeAttributesClass: "<unset>",
      Age: "5m",
      VolumeMode: "Filesystem",
    });
  });

  it("horizontalpodautoscalers (autoscaling/v1)", () => {
    const hpa = obj("HorizontalPodAutoscaler", "web", {
      spec: {
        scaleTargetRef: { kind: "Deployment", name: "web" },
        minReplicas: 1,
        maxReplicas: 5,
        targetCPUUtilizationPercentage: 80,
      },
      status: { currentReplicas: 2, currentCPUUtilizationPercentage: 45 },
    });
    const r = row(rt("autoscaling", "horizontalpodautoscalers", "HorizontalPodAutoscaler"), hpa);
    expect([r.Reference, r.Targets, r.MinPods, r.MaxPods, r.Replicas]).toEqual([
      "Deployment/web",
      "cpu: 45%/80%",
      "1",
      5,
      2,
    ]);
  });
});

describe("custom resources and unknown kinds", () => {
  const chaos = (kind: string) =>
    rt("chaos-mesh.org", kind.toLowerCase(), kind, { version: "v1alpha1", custom: true });

  it("mirror the Chaos Mesh printer columns", () => {
    const nc = obj("NetworkChaos", "delay", { spec: { action: "delay", duration: "5m" } });
    expect(row(chaos("NetworkChaos"), nc)).toEqual({ Name: "delay", action: "delay", duration: "5m" });
    expect(row(chaos("StressChaos"), obj("StressChaos", "cpu", { spec: {} }))).toEqual({
      Name: "cpu",
      duration: null,
    });
    expect(
      row(chaos("IOChaos"), obj("IOChaos", "io", { spec: { action: "latency", duration: "1m" } })),
    ).toEqual({
      Name: "io",
      action: "latency",
      duration: "1m",
    });
    const t = toTable(chaos("PodChaos"), [obj("PodChaos", "kill", { spec: { action: "pod-kill" } })], {
      now: NOW,
    });
    expect(t.columnDefinitions.map((c) => [c.name, c.type])).toEqual([
      ["Name", "string"],
      ["Age", "date"],
    ]);
    expect(t.rows[0].cells).toEqual(["kill", "5m"]);
  });

  it("evaluate given additionalPrinterColumns", () => {
    const t = toTable(
      rt("example.com", "widgets", "Widget", { custom: true }),
      [
        obj("Widget", "w", {
          spec: { size: 3.7, on: true },
          status: { conditions: [{ type: "Ready", status: "True" }] },
        }),
      ],
      {
        now: NOW,
        printerColumns: [
          { name: "Size", type: "integer", jsonPath: ".spec.size" },
          { name: "On", type: "boolean", jsonPath: ".spec.on" },
          {
            name: "Ready",
            type: "string",
            jsonPath: '.status.conditions[?(@.type=="Ready")].status',
            priority: 1,
          },
          { name: "Spec", type: "string", jsonPath: ".spec" },
          { name: "Age", type: "date", jsonPath: ".metadata.creationTimestamp" },
        ],
      },
    );
    expect(t.rows[0].cells).toEqual(["w", 3, true, "True", "map[on:true size:3.7]", "5m"]);
    expect(t.columnDefinitions[3].priority).toBe(1);
  });

  it("fall back to NAME AGE, or NAME CREATED AT for built-ins without a printer", () => {
    const thing = obj("Thing", "t1", {});
    expect(row(rt("example.com", "things", "Thing"), thing)).toEqual({ Name: "t1", Age: "5m" });
    const role = obj("ClusterRole", "view", {}, { creationTimestamp: "2025-01-02T03:04:05Z" });
    expect(row(rt("rbac.authorization.k8s.io", "clusterroles", "ClusterRole"), role)).toEqual({
      Name: "view",
      "Created At": "2025-01-02T03:04:05Z",
    });
  });

  it("omits column definitions for watch events after the first", () => {
    expect(toTable(PODS, [], { now: NOW, noHeaders: true }).columnDefinitions).toEqual([]);
  });
});

describe("metrics", () => {
  it("sums container usage like metrics-server", () => {
    const pm = obj("PodMetrics", "web-1", {
      window: "15s",
      containers: [
        { name: "app", usage: { cpu: "5m", memory: "20Mi" } },
        { name: "log", usage: { cpu: "1500000n", memory: "1024Ki" } },
      ],
    });
    const t = toTable(rt("metrics.k8s.io", "pods", "PodMetrics"), [pm], { now: NOW });
    expect(t.columnDefinitions.map((c) => c.name)).toEqual(["Name", "cpu", "memory", "Window"]);
    expect(t.rows[0].cells).toEqual(["web-1", "6500000n", "21504Ki", "15s"]);
  });
});
