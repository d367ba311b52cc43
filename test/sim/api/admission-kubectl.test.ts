// What kube-apiserver's admission and encoding do to pods and other objects,
// and taint-based eviction, through real kubectl on a two-node embedded cluster.
// - ServiceAccount admission (plugin/pkg/admission/serviceaccount/admission.go): a pod naming a
//   missing account is refused 403 `pods "NAME" is forbidden: error looking up service account
//   NS/SA: serviceaccount "SA" not found` (with generateName shown, as
//   apiserver/pkg/admission/errors.go extractResourceName does); the ReplicaSet controller
//   records FailedCreate "Error creating: ..." (pkg/controller/controller_utils.go) and sets
//   ReplicaFailure (pkg/controller/replicaset/replica_set_utils.go).
// - The ServiceAccount controller recreates `default` (pkg/controller/serviceaccount).
// - DefaultTolerationSeconds (plugin/pkg/admission/defaulttolerationseconds): 300 s
//   not-ready/unreachable NoExecute tolerations are added unless already tolerated.
// - Taint eviction (pkg/controller/tainteviction/taint_eviction.go): "Marking for deletion Pod
//   NS/NAME" from taint-eviction-controller, DisruptionTarget "DeletionByTaintManager".
// - omitempty: empty maps and slices are not returned (k8s.io/api core/v1 types.go json tags).
// - A create carrying metadata.resourceVersion fails in etcd3's store.Create
//   (apiserver/pkg/storage/etcd3/store.go) as an untyped 500.
import * as k8s from "@kubernetes/client-node";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startNodesCluster, type TestCluster } from "../helpers/nodes-cluster.js";

let t: TestCluster;
const k = (...args: string[]) => t.kubectl(args).then((r) => r.stdout);
const kn = (...args: string[]) => k("-n", "adm", ...args);

async function until<T>(what: string, f: () => Promise<T>, ok: (v: T) => boolean): Promise<T> {
  for (let i = 0; i < 200; i++) {
    const v = await f();
    if (ok(v)) return v;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

const deploy = (name: string, extra = "") => `
apiVersion: apps/v1
kind: Deployment
metadata: {name: ${name}}
spec:
  replicas: 1
  selector: {matchLabels: {app: ${name}}}
  template:
    metadata: {labels: {app: ${name}}}
    spec:
      ${extra}
      containers: [{name: app, image: "nginx:1.25"}]
`;

beforeAll(async () => {
  t = await startNodesCluster(["node-a", "node-b"]);
  await k("create", "namespace", "adm");
}, 60_000);
afterAll(() => t?.stop());

describe("ServiceAccount admission and controller", () => {
  it("refuses a pod that names a missing ServiceAccount, with the exact 403", async () => {
    const pod =
      "apiVersion: v1\nkind: Pod\nmetadata: {name: x}\nspec:\n  serviceAccountName: ghost\n  containers: [{name: a, image: nginx:1.25}]\n";
    const r = await t.kubectl(["-n", "adm", "create", "-f", t.file("x.yaml", pod)], { reject: false });
    expect(r.stderr).toContain(
      'Error from server (Forbidden): error when creating "' +
        `${t.dir}/x.yaml` +
        '": pods "x" is forbidden: error looking up service account adm/ghost: serviceaccount "ghost" not found',
    );
  });

  it("publishes the cluster CA in every namespace's kube-root-ca.crt: the one kubectl trusts", async () => {
    // kube-controller-manager's root-ca-cert-publisher (pkg/controller/certificates/rootcacertpublisher)
    const published = await kn("get", "configmap", "kube-root-ca.crt", "-o", "jsonpath={.data.ca\\.crt}");
    const trusted = Buffer.from(
      await k("config", "view", "--raw", "-o", "jsonpath={.clusters[0].cluster.certificate-authority-data}"),
      "base64",
    ).toString();
    expect(published.trim()).toBe(trusted.trim());
    const x509 = await execa("openssl", ["x509", "-noout", "-text"], { input: published });
    expect(x509.stdout).toMatch(/CA:TRUE/);
  });

  it("sets serviceAccountName default when unset", async () => {
    await kn("run", "plain", "--image=nginx:1.25");
    expect(await kn("get", "pod", "plain", "-o", "jsonpath={.spec.serviceAccountName}")).toBe("default");
  });

  it("mounts the bound token volume unless automounting is off", async () => {
    const spec = JSON.parse(await kn("get", "pod", "plain", "-o", "jsonpath={.spec}"));
    const vol = spec.volumes.find((v: { name: string }) => v.name.startsWith("kube-api-access-"));
    expect(vol.name).toMatch(/^kube-api-access-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
    expect(vol.projected).toEqual({
      sources: [
        { serviceAccountToken: { expirationSeconds: 3607, path: "token" } },
        { configMap: { name: "kube-root-ca.crt", items: [{ key: "ca.crt", path: "ca.crt" }] } },
        {
          downwardAPI: {
            items: [{ path: "namespace", fieldRef: { apiVersion: "v1", fieldPath: "metadata.namespace" } }],
          },
        },
      ],
      defaultMode: 420,
    });
    expect(spec.containers[0].volumeMounts).toEqual([
      { name: vol.name, readOnly: true, mountPath: "/var/run/secrets/kubernetes.io/serviceaccount" },
    ]);
    expect(
      await kn("exec", "plain", "--", "cat", "/var/run/secrets/kubernetes.io/serviceaccount/namespace"),
    ).toBe("adm");
    const off =
      "apiVersion: v1\nkind: Pod\nmetadata: {name: notoken}\nspec:\n  automountServiceAccountToken: false\n  containers: [{name: a, image: nginx:1.25}]\n";
    await kn("create", "-f", t.file("notoken.yaml", off));
    expect(await kn("get", "pod", "notoken", "-o", "jsonpath={.spec.volumes}")).toBe("");
  });

  it("a Deployment naming a missing account never rolls out: FailedCreate, ReplicaFailure", async () => {
    await kn("apply", "-f", t.file("d.yaml", deploy("ghosted", "serviceAccountName: ghost")));
    const ev = await until(
      "FailedCreate",
      () => kn("get", "events", "--field-selector=reason=FailedCreate", "-o", "jsonpath={.items[*].message}"),
      (s) => s.length > 0,
    );
    expect(ev).toMatch(
      /^Error creating: pods "ghosted-[a-z0-9]+-" is forbidden: error looking up service account adm\/ghost: serviceaccount "ghost" not found/,
    );
    const r = await t.kubectl(["-n", "adm", "rollout", "status", "deploy/ghosted", "--timeout=2s"], {
      reject: false,
    });
    expect(r.exitCode).not.toBe(0);
    expect(await kn("get", "pods", "-l", "app=ghosted", "-o", "name")).toBe("");
    const rs = JSON.parse(await kn("get", "rs", "-l", "app=ghosted", "-o", "json")).items[0];
    expect(rs.status.conditions).toEqual([
      expect.objectContaining({ type: "ReplicaFailure", status: "True", reason: "FailedCreate" }),
    ]);
    // and the Deployment shows it (progress.go getReplicaFailures)
    const d = JSON.parse(await kn("get", "deploy", "ghosted", "-o", "json"));
    expect(d.status.conditions).toContainEqual(
      expect.objectContaining({
        type: "ReplicaFailure",
        status: "True",
        reason: "FailedCreate",
        message: rs.status.conditions[0].message,
      }),
    );
    // once the account exists, the controller's retry creates the pod
    await kn("create", "serviceaccount", "ghost");
    await kn("rollout", "status", "deploy/ghosted", "--timeout=60s");
  });

  it("a StatefulSet naming a missing account records FailedCreate as stateful_set_control.go words it", async () => {
    const sts = `apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db}
spec:
  serviceName: db
  replicas: 1
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec:
      serviceAccountName: ghost2
      containers: [{name: db, image: "redis:7-alpine"}]
`;
    await kn("apply", "-f", t.file("sts.yaml", sts));
    const ev = await until(
      "FailedCreate",
      () =>
        kn(
          "get",
          "events",
          "--field-selector=reason=FailedCreate,involvedObject.kind=StatefulSet",
          "-o",
          "jsonpath={.items[*].message}",
        ),
      (s) => s.length > 0,
    );
    expect(ev).toBe(
      'create Pod db-0 in StatefulSet db failed error: pods "db-0" is forbidden: error looking up service account adm/ghost2: serviceaccount "ghost2" not found',
    );
    await kn("delete", "sts", "db");
  });

  it("recreates the default ServiceAccount when it is deleted", async () => {
    await kn("delete", "serviceaccount", "default");
    await until(
      "default SA",
      () => t.kubectl(["-n", "adm", "get", "sa", "default"], { reject: false }),
      (r) => r.exitCode === 0,
    );
  });
});

describe("tolerations and taint-based eviction", () => {
  it("adds the 300 s not-ready and unreachable tolerations beside the pod's own", async () => {
    const pod = `apiVersion: v1\nkind: Pod\nmetadata: {name: tol}\nspec:\n  nodeName: node-b\n  tolerations: [{key: dedicated, operator: Equal, value: x, effect: NoExecute, tolerationSeconds: 240}]\n  containers: [{name: a, image: nginx:1.25}]\n`;
    await kn("apply", "-f", t.file("tol.yaml", pod));
    const tols = JSON.parse(await kn("get", "pod", "tol", "-o", "jsonpath={.spec.tolerations}"));
    expect(tols).toEqual([
      { key: "dedicated", operator: "Equal", value: "x", effect: "NoExecute", tolerationSeconds: 240 },
      {
        key: "node.kubernetes.io/not-ready",
        operator: "Exists",
        effect: "NoExecute",
        tolerationSeconds: 300,
      },
      {
        key: "node.kubernetes.io/unreachable",
        operator: "Exists",
        effect: "NoExecute",
        tolerationSeconds: 300,
      },
    ]);
  });

  it("a NoExecute taint evicts intolerant pods at once and tolerant ones after tolerationSeconds", async () => {
    const forever = `apiVersion: v1\nkind: Pod\nmetadata: {name: forever}\nspec:\n  nodeName: node-b\n  tolerations: [{key: dedicated, operator: Exists}]\n  containers: [{name: a, image: nginx:1.25}]\n`;
    const plain = `apiVersion: v1\nkind: Pod\nmetadata: {name: intolerant}\nspec:\n  nodeName: node-b\n  containers: [{name: a, image: nginx:1.25}]\n`;
    await kn("apply", "-f", t.file("forever.yaml", forever), "-f", t.file("plain.yaml", plain));
    await kn("wait", "--for=condition=Ready", "pod/intolerant", "pod/tol", "pod/forever", "--timeout=30s");
    // a watch sees the DisruptionTarget condition the controller sets before deleting
    const kc = new k8s.KubeConfig();
    kc.loadFromFile(t.kubeconfig);
    const seen: k8s.V1Pod[] = [];
    const watching = await new k8s.Watch(kc).watch(
      "/api/v1/namespaces/adm/pods",
      {},
      (_type, pod: k8s.V1Pod) => seen.push(pod),
      () => {},
    );
    await k("taint", "nodes", "node-b", "dedicated=x:NoExecute");
    const gone = (name: string) => () => t.kubectl(["-n", "adm", "get", "pod", name], { reject: false });
    // evicted at once (the kubelet ends nginx well within its grace period)
    await until("intolerant gone", gone("intolerant"), (r) => r.exitCode !== 0);
    // `tol` tolerates for 240 s of cluster time (8 s at speed 30): still running
    expect(await kn("get", "pod", "tol", "-o", "jsonpath={.metadata.deletionTimestamp}")).toBe("");
    await until("tol gone", gone("tol"), (r) => r.exitCode !== 0);
    expect((await gone("forever")()).exitCode).toBe(0);
    const events = await kn(
      "get",
      "events",
      "--field-selector=reason=TaintManagerEviction",
      "-o",
      "jsonpath={range .items[*]}{.message}{'|'}{.source.component}{'\\n'}{end}",
    );
    expect(events).toContain("Marking for deletion Pod adm/intolerant|taint-eviction-controller");
    expect(events).toContain("Marking for deletion Pod adm/tol|taint-eviction-controller");
    expect(events).not.toContain("adm/forever");
    const marked = seen.find(
      (p) =>
        p.metadata?.name === "intolerant" && p.status?.conditions?.some((c) => c.type === "DisruptionTarget"),
    );
    expect(marked?.status?.conditions?.find((c) => c.type === "DisruptionTarget")).toMatchObject({
      status: "True",
      reason: "DeletionByTaintManager",
      message: "Taint manager: deleting due to NoExecute taint",
    });
    watching.abort();
  });

  it("keeps new pods off a NoSchedule-tainted node", async () => {
    await k("taint", "nodes", "node-a", "dedicated=x:NoSchedule");
    await kn("run", "homeless", "--image=nginx:1.25");
    const cond = await until(
      "unschedulable",
      () => kn("get", "pod", "homeless", "-o", "jsonpath={.status.conditions[0].message}"),
      (s) => s.length > 0,
    );
    expect(cond).toMatch(/0\/2 nodes are available: 2 node\(s\) had untolerated taint \{dedicated: x\}/);
    await k("taint", "nodes", "node-a", "dedicated=x:NoSchedule-");
    await kn("wait", "--for=condition=Ready", "pod/homeless", "--timeout=30s");
    expect(await kn("get", "pod", "homeless", "-o", "jsonpath={.spec.nodeName}")).toBe("node-a");
  });
});

describe("what the API server stores and refuses", () => {
  it("drops empty maps and lists written by a client", async () => {
    const cm =
      "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: empty, annotations: {}, labels: {}}\ndata: {}\n";
    await kn("create", "-f", t.file("cm.yaml", cm));
    const got = JSON.parse(await kn("get", "cm", "empty", "-o", "json"));
    expect(got.metadata).not.toHaveProperty("annotations");
    expect(got.metadata).not.toHaveProperty("labels");
    expect(got).not.toHaveProperty("data");
    const pod =
      "apiVersion: v1\nkind: Pod\nmetadata: {name: noenv}\nspec:\n  containers: [{name: a, image: nginx:1.25, env: [], resources: {}}]\n";
    await kn("create", "-f", t.file("noenv.yaml", pod));
    const c = JSON.parse(await kn("get", "pod", "noenv", "-o", "json")).spec.containers[0];
    expect(c).not.toHaveProperty("env");
    expect(c.resources).toEqual({}); // a struct, not a map: kept
  });

  it("refuses a create that carries metadata.resourceVersion", async () => {
    const cm = 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: stale, resourceVersion: "123"}\n';
    // kubectl clears it before creating (cli-runtime resource/helper.go CreateWithOptions), so
    // only a client that sends it meets the refusal
    await kn("create", "-f", t.file("stale.yaml", cm));
    const kc = new k8s.KubeConfig();
    kc.loadFromFile(t.kubeconfig);
    const err = await kc
      .makeApiClient(k8s.CoreV1Api)
      .createNamespacedConfigMap({
        namespace: "adm",
        body: { metadata: { name: "stale", resourceVersion: "5" } },
      })
      .catch((e: unknown) => e);
    expect((err as k8s.ApiException<string>).code).toBe(500);
    expect(JSON.parse((err as k8s.ApiException<string>).body)).toEqual({
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message: "resourceVersion should not be set on objects to be created",
      code: 500,
    });
  });
});
