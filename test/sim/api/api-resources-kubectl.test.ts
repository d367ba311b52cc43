// Every API a k3s v1.31 cluster serves is in discovery and answers with kubectl's
// Tables, even where no controller acts on the kind.
// - Discovery: `kubectl api-resources` equals a k3s server's (golden/k3s-v1.31-api-resources.txt,
//   whose head says where it comes from), besides Chaos Mesh's kinds; verbs and categories as the
//   kinds' REST storages declare them (namespaces have no deletecollection, bindings are
//   create-only, componentstatuses and metrics get/list only, reviews create-only).
// - Tables: the columns pkg/printers/internalversion/printers.go prints for each kind (v1.31:
//   PriorityClass shows PREEMPTIONPOLICY, ResourceQuota shows AGE before REQUEST/LIMIT), the
//   default NAME/CREATED AT for kinds without a printer, APIServices as kube-aggregator prints
//   them, the k3s CRDs' additionalPrinterColumns (k3s pkg/crd/crds.go, helm-controller).
// - The objects every k3s cluster starts with: system PriorityClasses, the local-path
//   StorageClass (default), the traefik IngressClass, an APIService per group-version.
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { agentRules } from "../../../src/identity/rules.js";
import { kubeconfigYaml } from "../../../src/sim/cluster/kubeconfig.js";
import { startTestCluster, type TestCluster } from "../../helpers/cluster.js";

let t: TestCluster;
const k = (...args: string[]) => t.kubectl(args).then((r) => r.stdout);
const kn = (...args: string[]) => k("-n", "res", ...args);
const apply = (yaml: string) => t.kubectl(["apply", "-f", "-"], { input: yaml });
const squash = (s: string) =>
  s
    .split("\n")
    .map((l) => l.trim().replace(/\s+/g, " "))
    .filter(Boolean);

beforeAll(async () => {
  t = await startTestCluster(30);
  await k("create", "namespace", "res");
}, 60_000);
afterAll(() => t?.stop());

describe("discovery", () => {
  it("lists what a k3s v1.31 server lists, plus Chaos Mesh's kinds", async () => {
    const golden = readFileSync(new URL("golden/k3s-v1.31-api-resources.txt", import.meta.url), "utf8")
      .split("\n")
      .filter((l) => !l.startsWith("#"))
      .join("\n");
    const ours = squash(await k("api-resources")).filter((l) => !l.includes("chaos-mesh.org/"));
    expect(ours).toEqual(squash(golden));
    expect(squash(await k("api-resources", "--api-group=chaos-mesh.org"))).toEqual([
      "NAME SHORTNAMES APIVERSION NAMESPACED KIND",
      "httpchaos chaos-mesh.org/v1alpha1 true HTTPChaos",
      "iochaos chaos-mesh.org/v1alpha1 true IOChaos",
      "networkchaos chaos-mesh.org/v1alpha1 true NetworkChaos",
      "podchaos chaos-mesh.org/v1alpha1 true PodChaos",
      "stresschaos chaos-mesh.org/v1alpha1 true StressChaos",
    ]);
  });

  it("gives each resource the verbs and categories of its REST storage", async () => {
    const wide = new Map<string, { verbs: string; categories: string }>();
    for (const line of (await k("api-resources", "-o", "wide", "--no-headers")).split("\n").filter(Boolean)) {
      const cols = line.trim().split(/\s+/);
      // NAME [SHORTNAMES] APIVERSION NAMESPACED KIND VERBS [CATEGORIES]
      const i = cols.findIndex((c) => c === "true" || c === "false");
      const apiVersion = cols[i - 1];
      wide.set(`${cols[0]}.${apiVersion}`, { verbs: cols[i + 2], categories: cols[i + 3] ?? "" });
    }
    const rw = "create,delete,deletecollection,get,list,patch,update,watch";
    expect(wide.get("pods.v1")?.verbs).toBe(rw);
    expect(wide.get("networkpolicies.networking.k8s.io/v1")?.verbs).toBe(rw);
    expect(wide.get("namespaces.v1")?.verbs).toBe("create,delete,get,list,patch,update,watch");
    expect(wide.get("bindings.v1")?.verbs).toBe("create");
    expect(wide.get("componentstatuses.v1")?.verbs).toBe("get,list");
    expect(wide.get("tokenreviews.authentication.k8s.io/v1")?.verbs).toBe("create");
    expect(wide.get("pods.metrics.k8s.io/v1beta1")?.verbs).toBe("get,list");
    const inCategory = (c: string) =>
      [...wide]
        .filter(([, v]) => v.categories.split(",").includes(c))
        .map(([name]) => name)
        .sort();
    expect(inCategory("all")).toEqual([
      "cronjobs.batch/v1",
      "daemonsets.apps/v1",
      "deployments.apps/v1",
      "horizontalpodautoscalers.autoscaling/v2",
      "jobs.batch/v1",
      "pods.v1",
      "replicasets.apps/v1",
      "replicationcontrollers.v1",
      "services.v1",
      "statefulsets.apps/v1",
    ]);
    expect(inCategory("api-extensions")).toEqual([
      "apiservices.apiregistration.k8s.io/v1",
      "customresourcedefinitions.apiextensions.k8s.io/v1",
      "mutatingwebhookconfigurations.admissionregistration.k8s.io/v1",
      "validatingadmissionpolicies.admissionregistration.k8s.io/v1",
      "validatingadmissionpolicybindings.admissionregistration.k8s.io/v1",
      "validatingwebhookconfigurations.admissionregistration.k8s.io/v1",
    ]);
  });

  it("serves autoscaling/v2 as preferred and v1 beside it, over the same objects", async () => {
    const group = JSON.parse(await k("get", "--raw", "/apis/autoscaling"));
    expect(group.preferredVersion.version).toBe("v2");
    expect(group.versions.map((v: { version: string }) => v.version)).toEqual(["v2", "v1"]);
    await kn("create", "deployment", "scaled", "--image=nginx:1.25");
    await kn("autoscale", "deployment", "scaled", "--min=2", "--max=5", "--cpu-percent=70");
    const v1 = JSON.parse(
      await k("get", "--raw", "/apis/autoscaling/v1/namespaces/res/horizontalpodautoscalers/scaled"),
    );
    expect(v1.apiVersion).toBe("autoscaling/v1");
    expect(v1.spec).toMatchObject({ minReplicas: 2, maxReplicas: 5, targetCPUUtilizationPercentage: 70 });
    const v2 = JSON.parse(await kn("get", "hpa", "scaled", "-o", "json"));
    expect(v2.apiVersion).toBe("autoscaling/v2");
    expect(v2.spec.metrics).toEqual([
      {
        type: "Resource",
        resource: { name: "cpu", target: { type: "Utilization", averageUtilization: 70 } },
      },
    ]);
    expect(squash(await kn("get", "hpa"))).toEqual([
      "NAME REFERENCE TARGETS MINPODS MAXPODS REPLICAS AGE",
      // REPLICAS: 0 until the HPA controller's first sync (15 s), then the target's count
      expect.stringMatching(/^scaled Deployment\/scaled cpu: <unknown>\/70% 2 5 [0-2] (?:\d+[smhd])+$/),
    ]);
  });
});

/** Each kind: a manifest, then what `kubectl get` prints for it (AGE stands for an age: 45s, 3m12s, 2h). */
const TABLES: [string, string, string, string | RegExp][] = [
  [
    "networkpolicy",
    "apiVersion: networking.k8s.io/v1\nkind: NetworkPolicy\nmetadata: {name: db, namespace: res}\nspec:\n  podSelector: {matchLabels: {app: db}}\n  ingress: [{from: [{podSelector: {matchLabels: {role: api}}}]}]\n",
    "NAME POD-SELECTOR AGE",
    "db app=db AGE",
  ],
  [
    "priorityclass",
    "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: high}\nvalue: 1000\nglobalDefault: false\n",
    "NAME VALUE GLOBAL-DEFAULT AGE PREEMPTIONPOLICY",
    "high 1000 false AGE PreemptLowerPriority",
  ],
  [
    "limitrange",
    "apiVersion: v1\nkind: LimitRange\nmetadata: {name: defaults, namespace: res}\nspec: {limits: [{type: Container, default: {cpu: 500m}}]}\n",
    "NAME CREATED AT",
    /^defaults \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/,
  ],
  [
    "ingress",
    "apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata: {name: web, namespace: res}\nspec:\n  ingressClassName: traefik\n  rules: [{host: shop.example.com, http: {paths: [{path: /, pathType: Prefix, backend: {service: {name: web, port: {number: 80}}}}]}}]\n",
    "NAME CLASS HOSTS ADDRESS PORTS AGE",
    "web traefik shop.example.com 80 AGE",
  ],
  [
    "lease",
    "apiVersion: coordination.k8s.io/v1\nkind: Lease\nmetadata: {name: leader, namespace: res}\nspec: {holderIdentity: pod-a}\n",
    "NAME HOLDER AGE",
    "leader pod-a AGE",
  ],
  [
    "runtimeclass",
    "apiVersion: node.k8s.io/v1\nkind: RuntimeClass\nmetadata: {name: gvisor}\nhandler: runsc\n",
    "NAME HANDLER AGE",
    "gvisor runsc AGE",
  ],
  [
    "csidriver",
    "apiVersion: storage.k8s.io/v1\nkind: CSIDriver\nmetadata: {name: hostpath.csi.k8s.io}\nspec: {volumeLifecycleModes: [Persistent, Ephemeral]}\n",
    "NAME ATTACHREQUIRED PODINFOONMOUNT STORAGECAPACITY TOKENREQUESTS REQUIRESREPUBLISH MODES AGE",
    "hostpath.csi.k8s.io true false false <unset> false Persistent,Ephemeral AGE",
  ],
  [
    "volumeattachment",
    "apiVersion: storage.k8s.io/v1\nkind: VolumeAttachment\nmetadata: {name: va-1}\nspec: {attacher: hostpath.csi.k8s.io, nodeName: k3s-server, source: {persistentVolumeName: pv-1}}\n",
    "NAME ATTACHER PV NODE ATTACHED AGE",
    "va-1 hostpath.csi.k8s.io pv-1 k3s-server false AGE",
  ],
  [
    "podtemplate",
    "apiVersion: v1\nkind: PodTemplate\nmetadata: {name: tpl, namespace: res}\ntemplate: {metadata: {labels: {app: tpl}}, spec: {containers: [{name: web, image: nginx:1.25}]}}\n",
    "NAME CONTAINERS IMAGES POD LABELS",
    "tpl web nginx:1.25 app=tpl",
  ],
  [
    "validatingwebhookconfiguration",
    "apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingWebhookConfiguration\nmetadata: {name: checks}\nwebhooks: []\n",
    "NAME WEBHOOKS AGE",
    "checks 0 AGE",
  ],
  [
    "helmchart",
    "apiVersion: helm.cattle.io/v1\nkind: HelmChart\nmetadata: {name: grafana, namespace: res}\nspec: {chart: grafana, repo: https://grafana.github.io/helm-charts, targetNamespace: monitoring}\n",
    "NAME JOB CHART TARGETNAMESPACE VERSION REPO HELMVERSION BOOTSTRAP",
    "grafana grafana monitoring https://grafana.github.io/helm-charts",
  ],
  [
    "ingressroute.traefik.io",
    "apiVersion: traefik.io/v1alpha1\nkind: IngressRoute\nmetadata: {name: web, namespace: res}\nspec: {routes: []}\n",
    "NAME AGE",
    "web AGE",
  ],
];

describe("Tables", () => {
  it.each(TABLES)("kubectl get %s prints kube-apiserver's columns", async (kind, manifest, header, row) => {
    await apply(manifest);
    const name = /name: ([^,}]+)/.exec(manifest)?.[1] ?? "";
    const out = squash(await kn("get", kind, name));
    expect(out[0]).toBe(header);
    const pattern =
      row instanceof RegExp
        ? row
        : new RegExp(`^${row.replace(/[.*+?^${}()|[\]\\]/g, "\\$&").replace("AGE", "(?:\\d+[smhd])+")}$`);
    expect(out[1]).toMatch(pattern);
    // and it goes away
    await kn("delete", kind, name);
    const gone = await t.kubectl(["-n", "res", "get", kind, name], { reject: false });
    expect(gone.stderr).toMatch(/NotFound/);
  });

  it("shows the objects a k3s cluster starts with", async () => {
    expect(squash(await k("get", "priorityclasses"))).toEqual([
      "NAME VALUE GLOBAL-DEFAULT AGE PREEMPTIONPOLICY",
      expect.stringMatching(/^system-cluster-critical 2000000000 false (?:\d+[smhd])+ PreemptLowerPriority$/),
      expect.stringMatching(/^system-node-critical 2000001000 false (?:\d+[smhd])+ PreemptLowerPriority$/),
    ]);
    expect(squash(await k("get", "storageclass"))).toEqual([
      "NAME PROVISIONER RECLAIMPOLICY VOLUMEBINDINGMODE ALLOWVOLUMEEXPANSION AGE",
      expect.stringMatching(
        /^local-path \(default\) rancher.io\/local-path Delete WaitForFirstConsumer false (?:\d+[smhd])+$/,
      ),
    ]);
    expect(squash(await k("get", "ingressclass"))).toEqual([
      "NAME CONTROLLER PARAMETERS AGE",
      expect.stringMatching(/^traefik traefik.io\/ingress-controller <none> (?:\d+[smhd])+$/),
    ]);
    const apiservices = squash(await k("get", "apiservices"));
    expect(apiservices[0]).toBe("NAME SERVICE AVAILABLE AGE");
    expect(apiservices).toContainEqual(expect.stringMatching(/^v1\. Local True (?:\d+[smhd])+$/));
    expect(apiservices).toContainEqual(
      expect.stringMatching(/^v1\.networking\.k8s\.io Local True (?:\d+[smhd])+$/),
    );
    expect(apiservices).toContainEqual(
      expect.stringMatching(/^v1beta1\.metrics\.k8s\.io kube-system\/metrics-server True (?:\d+[smhd])+$/),
    );
  });

  it("answers componentstatuses with the deprecation warning", async () => {
    const r = await t.kubectl(["get", "componentstatuses"]);
    expect(r.stderr).toContain("Warning: v1 ComponentStatus is deprecated in v1.19+");
    expect(squash(r.stdout)).toEqual([
      "NAME STATUS MESSAGE ERROR",
      "controller-manager Healthy ok",
      "etcd-0 Healthy ok",
      "scheduler Healthy ok",
    ]);
  });

  it("shows events through events.k8s.io/v1 too, as the same objects", async () => {
    await kn("run", "ev", "--image=nginx:1.25");
    const ev = JSON.parse(await kn("get", "events.events.k8s.io", "-o", "json"));
    const scheduled = ev.items.find((e: { reason: string }) => e.reason === "Scheduled");
    expect(scheduled).toMatchObject({
      apiVersion: "events.k8s.io/v1",
      regarding: { kind: "Pod", name: "ev" },
      note: expect.stringContaining("Successfully assigned res/ev"),
    });
    expect(scheduled.involvedObject).toBeUndefined();
  });
});

describe("controllers of the new kinds", () => {
  it("a ResourceQuota's status is what the namespace uses (printResourceQuota's REQUEST and LIMIT)", async () => {
    await k("create", "namespace", "quota");
    await t.kubectl(["apply", "-f", "-"], {
      input: `apiVersion: v1
kind: Pod
metadata: {name: a, namespace: quota}
spec: {containers: [{name: c, image: nginx:1.25, resources: {requests: {cpu: 200m, memory: 256Mi}, limits: {cpu: 500m, memory: 512Mi}}}]}
---
apiVersion: v1
kind: ResourceQuota
metadata: {name: compute, namespace: quota}
spec: {hard: {requests.cpu: "1", requests.memory: 1Gi, limits.memory: 2Gi, pods: "10"}}
status: {used: {pods: "9"}}
`,
    });
    for (let i = 0; i < 50; i++) {
      if ((await k("-n", "quota", "get", "quota", "compute", "-o", "jsonpath={.status.used.pods}")) === "1")
        break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(squash(await k("-n", "quota", "get", "quota"))).toEqual([
      "NAME AGE REQUEST LIMIT",
      expect.stringMatching(
        /^compute \d+s pods: 1\/10, requests\.cpu: 200m\/1, requests\.memory: 256Mi\/1Gi limits\.memory: 512Mi\/2Gi$/,
      ),
    ]);
  });

  it("keeps an EndpointSlice per Service, mirroring its pods", async () => {
    await kn("create", "deployment", "shop", "--image=nginx:1.25", "--replicas=2", "--port=80");
    await kn("expose", "deployment", "shop", "--port=8080", "--target-port=80");
    let out: string[] = [];
    for (let i = 0; i < 100; i++) {
      out = squash(await kn("get", "endpointslices", "-l", "kubernetes.io/service-name=shop"));
      if (out[1] && /10\.42\.\S+,10\.42\./.test(out[1])) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(out[0]).toBe("NAME ADDRESSTYPE PORTS ENDPOINTS AGE");
    expect(out[1]).toMatch(/^shop-[a-z0-9]{5} IPv4 80 10\.42\.\d+\.\d+,10\.42\.\d+\.\d+ (?:\d+[smhd])+$/);
    const slice = JSON.parse(
      await kn("get", "endpointslices", "-l", "kubernetes.io/service-name=shop", "-o", "json"),
    ).items[0];
    expect(slice.metadata.labels).toMatchObject({
      app: "shop",
      "kubernetes.io/service-name": "shop",
      "endpointslice.kubernetes.io/managed-by": "endpointslice-controller.k8s.io",
    });
    expect(slice.metadata.ownerReferences).toEqual([
      expect.objectContaining({ kind: "Service", name: "shop", controller: true, blockOwnerDeletion: true }),
    ]);
    expect(slice.ports).toEqual([{ name: "", port: 80, protocol: "TCP" }]);
    expect(slice.endpoints[0]).toMatchObject({
      conditions: { ready: true, serving: true, terminating: false },
      nodeName: "k3s-server",
      targetRef: { kind: "Pod", namespace: "res" },
    });
    // a Service without pods keeps one empty slice
    await kn("create", "service", "clusterip", "empty", "--tcp=80:80");
    for (let i = 0; i < 50 && out.length < 2; i++) {
      out = squash(await kn("get", "endpointslices", "-l", "kubernetes.io/service-name=empty"));
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(squash(await kn("get", "endpointslices", "-l", "kubernetes.io/service-name=empty"))[1]).toMatch(
      /^empty-[a-z0-9]{5} IPv4 <unset> <unset> (?:\d+[smhd])+$/,
    );
  });
});

describe("NetworkPolicy, stored and validated as the API server does", () => {
  it("defaults policyTypes and port protocols", async () => {
    await apply(`apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: egress, namespace: res}
spec:
  podSelector: {}
  ingress: [{ports: [{port: 9093}]}]
  egress: [{}]
`);
    const np = JSON.parse(await kn("get", "netpol", "egress", "-o", "json"));
    expect(np.spec).toEqual({
      podSelector: {},
      policyTypes: ["Ingress", "Egress"],
      ingress: [{ ports: [{ port: 9093, protocol: "TCP" }] }],
      egress: [{}],
    });
    expect(squash(await kn("get", "netpol", "egress"))[1]).toMatch(/^egress <none> (?:\d+[smhd])+$/);
  });

  it("refuses what ValidateNetworkPolicySpec refuses, with its messages", async () => {
    const r = await t.kubectl(["apply", "-f", "-"], {
      reject: false,
      input: `apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: bad, namespace: res}
spec:
  podSelector: {matchExpressions: [{key: app, operator: In}]}
  policyTypes: [Ingress, Sideways]
  ingress:
    - ports: [{port: 70000, protocol: ICMP}]
      from: [{}, {ipBlock: {cidr: 10.0.0.0/8, except: [192.168.0.0/16]}, podSelector: {}}]
`,
    });
    expect(r.exitCode).toBe(1);
    const msg = r.stderr;
    expect(msg).toContain('The NetworkPolicy "bad" is invalid:');
    expect(msg).toContain(
      "spec.podSelector.matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'",
    );
    expect(msg).toContain(
      'spec.ingress[0].ports[0].protocol: Unsupported value: "ICMP": supported values: "TCP", "UDP", "SCTP"',
    );
    expect(msg).toContain(
      "spec.ingress[0].ports[0].port: Invalid value: 70000: must be between 1 and 65535, inclusive",
    );
    expect(msg).toContain("spec.ingress[0].from[0]: Required value: must specify a peer");
    expect(msg).toContain(
      'spec.ingress[0].from[1].ipBlock.except[0]: Invalid value: "192.168.0.0/16": must be a strict subset of `cidr`',
    );
    expect(msg).toContain(
      "spec.ingress[0].from[1]: Forbidden: may not specify both ipBlock and another peer",
    );
    expect(msg).toContain(
      'spec.policyTypes[1]: Unsupported value: "Sideways": supported values: "Ingress", "Egress"',
    );
  });
});

describe("the agent's RBAC", () => {
  it("lets the on-call Role read NetworkPolicies and EndpointSlices of its namespace, and write NetworkPolicies only", async () => {
    await k("create", "namespace", "oncall");
    await k("-n", "oncall", "create", "serviceaccount", "agent");
    await apply(
      stringify({
        apiVersion: "rbac.authorization.k8s.io/v1",
        kind: "Role",
        metadata: { name: "oncall", namespace: "oncall" },
        rules: agentRules(),
      }),
    );
    await k(
      "-n",
      "oncall",
      "create",
      "rolebinding",
      "oncall",
      "--role=oncall",
      "--serviceaccount=oncall:agent",
    );
    const token = (await k("-n", "oncall", "create", "token", "agent")).trim();
    const kubeconfig = t.file(
      "agent.kubeconfig",
      kubeconfigYaml(t.cluster.url, { ca: t.cluster.auth.pki.ca, user: { token } }, "oncall"),
    );
    const agent = (...args: string[]) => t.kubectl(["--kubeconfig", kubeconfig, ...args], { reject: false });
    const netpol = await agent("get", "networkpolicy");
    expect(netpol.exitCode).toBe(0);
    expect(netpol.stderr.trim()).toBe("No resources found in oncall namespace.");
    expect((await agent("get", "endpointslices")).exitCode).toBe(0);
    // the on-call Role may change NetworkPolicies (identity/rules.ts: netpol-deny is the
    // namespace's own configuration): a delete is authorized and finds nothing
    expect((await agent("delete", "networkpolicy", "x")).stderr.trim()).toBe(
      'Error from server (NotFound): networkpolicies.networking.k8s.io "x" not found',
    );
    // while the other networking kinds stay read-only
    expect((await agent("delete", "ingress", "x")).stderr).toContain(
      'cannot delete resource "ingresses" in API group "networking.k8s.io" in the namespace "oncall"',
    );
    expect((await agent("delete", "endpointslice", "x")).stderr).toContain(
      'cannot delete resource "endpointslices" in API group "discovery.k8s.io" in the namespace "oncall"',
    );
  });
});
