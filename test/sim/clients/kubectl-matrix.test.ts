// The kubectl on PATH against the embedded cluster, checked on what it prints.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestCluster, type TestCluster } from "../../helpers/cluster.js";

const MANIFEST = `
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, labels: {app: web}}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web, tier: front}}
    spec:
      containers:
      - name: web
        image: nginx:1.25
        ports: [{containerPort: 80}]
        resources: {requests: {cpu: 100m, memory: 64Mi}, limits: {cpu: 500m, memory: 256Mi}}
        readinessProbe: {httpGet: {path: /, port: 80}, initialDelaySeconds: 2, periodSeconds: 5}
      - name: sidecar-busybox
        image: busybox:1.35
        command: [sleep, infinity]
---
apiVersion: v1
kind: Service
metadata: {name: web}
spec:
  selector: {app: web}
  ports: [{port: 80, targetPort: 80}]
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db}
spec:
  serviceName: db
  replicas: 2
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec:
      containers:
      - {name: db, image: redis:7-alpine, ports: [{containerPort: 6379}]}
---
apiVersion: v1
kind: Service
metadata: {name: db}
spec: {clusterIP: None, selector: {app: db}, ports: [{port: 6379}]}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: settings}
data: {mode: fast}
`;

const STRESS = `
apiVersion: chaos-mesh.org/v1alpha1
kind: StressChaos
metadata: {name: cpu-stress, namespace: shop}
spec:
  mode: one
  selector: {namespaces: [shop], labelSelectors: {app: web}}
  stressors: {cpu: {workers: 10, load: 100}}
`;

let t: TestCluster;
const k = (...args: string[]) => t.kubectl(args).then((r) => r.stdout);
const kn = (...args: string[]) => k("-n", "shop", ...args);

beforeAll(async () => {
  t = await startTestCluster(30);
  await k("create", "namespace", "shop");
  await kn("apply", "-f", t.file("app.yaml", MANIFEST));
  await kn("rollout", "status", "deploy/web", "--timeout=90s");
  await kn("rollout", "status", "sts/db", "--timeout=90s");
}, 120_000);
afterAll(() => t?.stop());

describe("kubectl against the embedded cluster", () => {
  it("gets each kind as a table with the real columns", async () => {
    expect(await kn("get", "pods")).toMatch(
      /NAME\s+READY\s+STATUS\s+RESTARTS\s+AGE\n(db-\d\s+1\/1\s+Running\s+0\s+\S+\n){2}(web-\S+\s+2\/2\s+Running\s+0\s+\S+\n?){2}$/,
    );
    expect(await kn("get", "deploy")).toMatch(
      /NAME\s+READY\s+UP-TO-DATE\s+AVAILABLE\s+AGE\nweb\s+2\/2\s+2\s+2\s/,
    );
    expect(await kn("get", "rs")).toMatch(/NAME\s+DESIRED\s+CURRENT\s+READY\s+AGE\nweb-\S+\s+2\s+2\s+2\s/);
    expect(await kn("get", "sts")).toMatch(/db\s+2\/2\s/);
    expect(await kn("get", "svc")).toMatch(/web\s+ClusterIP\s+10\.43\.\d+\.\d+\s+<none>\s+80\/TCP/);
    expect(await kn("get", "svc", "db")).toMatch(/db\s+ClusterIP\s+None\s+<none>\s+6379\/TCP/);
    expect(await kn("get", "ep", "web")).toMatch(/web\s+10\.42\.\d+\.\d+:80,10\.42\.\d+\.\d+:80\s/);
    expect(await kn("get", "events")).toMatch(/LAST SEEN\s+TYPE\s+REASON\s+OBJECT\s+MESSAGE/);
    expect(await kn("get", "events")).toMatch(/Normal\s+Scheduled\s+pod\/web-/);
    expect(await k("get", "nodes")).toMatch(/k3s-server\s+Ready\s+control-plane,master/);
    expect(await kn("get", "cm", "settings")).toMatch(/settings\s+1\s/);
  });

  it("prints -o wide, yaml, json, jsonpath, -A, --show-labels and -l", async () => {
    expect(await kn("get", "pods", "-o", "wide")).toMatch(
      /IP\s+NODE\s+NOMINATED NODE\s+READINESS GATES\n.*10\.42\.\d+\.\d+\s+k3s-server\s+<none>\s+<none>/,
    );
    const y = await kn("get", "deploy", "web", "-o", "yaml");
    expect(y).toMatch(/kind: Deployment/);
    expect(y).toMatch(/image: nginx:1\.25/);
    expect(y).toMatch(/observedGeneration: 1/);
    const j = JSON.parse(await kn("get", "pods", "-l", "app=web", "-o", "json"));
    expect(j.items).toHaveLength(2);
    expect(j.items[0].status.phase).toBe("Running");
    expect(await kn("get", "deploy", "web", "-o", "jsonpath={.spec.template.spec.containers[0].image}")).toBe(
      "nginx:1.25",
    );
    expect(await k("get", "pods", "-A")).toMatch(/NAMESPACE\s+NAME\s+READY\s+STATUS[\s\S]*shop\s+web-/);
    expect(await kn("get", "pods", "--show-labels")).toMatch(
      /LABELS\n[\s\S]*app=web,pod-template-hash=\w+,tier=front/,
    );
    expect(await kn("get", "pods", "-l", "app=db", "-o", "name")).toBe("pod/db-0\npod/db-1");
  });

  it("describes a pod and a deployment with their events", async () => {
    const pod = (await kn("get", "pods", "-l", "app=web", "-o", "name")).split("\n")[0];
    const d = await kn("describe", pod);
    expect(d).toMatch(/Status:\s+Running/);
    expect(d).toMatch(/Events:[\s\S]*Scheduled[\s\S]*Pulled[\s\S]*Created[\s\S]*Started/);
    expect(d).not.toMatch(/<invalid>/);
    const dd = await kn("describe", "deploy", "web");
    expect(dd).toMatch(/Replicas:\s+2 desired \| 2 updated \| 2 total \| 2 available \| 0 unavailable/);
    expect(dd).toMatch(/ScalingReplicaSet\s+.*Scaled up replica set web-\w+ (from 0 )?to 2/);
  });

  it("patches with all three types, labels and annotates", async () => {
    await kn("patch", "cm", "settings", "--type", "merge", "-p", '{"data":{"mode":"slow"}}');
    expect(await kn("get", "cm", "settings", "-o", "jsonpath={.data.mode}")).toBe("slow");
    await kn(
      "patch",
      "cm",
      "settings",
      "--type",
      "json",
      "-p",
      '[{"op":"add","path":"/data/extra","value":"1"}]',
    );
    expect(await kn("get", "cm", "settings", "-o", "jsonpath={.data.extra}")).toBe("1");
    await kn(
      "patch",
      "deploy",
      "web",
      "-p",
      '{"spec":{"template":{"spec":{"containers":[{"name":"web","env":[{"name":"A","value":"1"}]}]}}}}',
    );
    expect(await kn("get", "deploy", "web", "-o", "jsonpath={.spec.template.spec.containers[*].name}")).toBe(
      "web sidecar-busybox",
    );
    await kn("label", "cm", "settings", "team=sre");
    await kn("annotate", "cm", "settings", "note=checked");
    expect(
      await kn(
        "get",
        "cm",
        "settings",
        "-o",
        "jsonpath={.metadata.labels.team} {.metadata.annotations.note}",
      ),
    ).toBe("sre checked");
    await kn("rollout", "status", "deploy/web", "--timeout=90s");
  });

  it("scales, sets resources and env, and rolls out, back and restarts", async () => {
    await kn("scale", "deploy/web", "--replicas=3");
    await kn("rollout", "status", "deploy/web", "--timeout=90s");
    expect(await kn("get", "deploy", "web")).toMatch(/web\s+3\/3\s+3\s+3\s/);
    await kn("set", "resources", "deploy/web", "-c", "web", "--limits=cpu=400m,memory=300Mi");
    await kn("rollout", "status", "deploy/web", "--timeout=90s");
    expect(
      await kn(
        "get",
        "deploy",
        "web",
        "-o",
        "jsonpath={.spec.template.spec.containers[0].image} {.spec.template.spec.containers[0].resources.limits.cpu}",
      ),
    ).toBe("nginx:1.25 400m");
    await kn("set", "env", "deploy/web", "-c", "web", "B=2");
    await kn("rollout", "status", "deploy/web", "--timeout=90s");
    expect(await kn("rollout", "history", "deploy/web")).toMatch(/REVISION\s+CHANGE-CAUSE\n1\s[\s\S]*4\s/);
    await kn("set", "image", "deploy/web", "web=nginx:doesnotexist-9");
    await new Promise((r) => setTimeout(r, 1500));
    expect(await kn("get", "pods", "-l", "app=web")).toMatch(/ErrImagePull|ImagePullBackOff/);
    const stuck = await t.kubectl(["-n", "shop", "rollout", "status", "deploy/web", "--timeout=2s"], {
      reject: false,
    });
    expect(stuck.exitCode).not.toBe(0);
    await kn("rollout", "undo", "deploy/web");
    await kn("rollout", "status", "deploy/web", "--timeout=90s");
    expect(await kn("get", "deploy", "web", "-o", "jsonpath={.spec.template.spec.containers[0].image}")).toBe(
      "nginx:1.25",
    );
    const before = await kn("get", "pods", "-l", "app=web", "-o", "name");
    await kn("rollout", "restart", "deploy/web");
    await kn("rollout", "status", "deploy/web", "--timeout=90s");
    // the old pods are Terminating for their containers' stop (a PID 1 without a SIGTERM handler
    // lasts the grace period), as `kubectl get pods` shows on any cluster: wait them out
    for (const old of before.split("\n").filter(Boolean))
      await t.kubectl(["-n", "shop", "wait", "--for=delete", old, "--timeout=60s"], { reject: false });
    const after = await kn("get", "pods", "-l", "app=web", "-o", "name");
    expect(after.split("\n").some((p) => before.includes(p))).toBe(false);
  });

  it("waits, logs, execs and tops", async () => {
    const pod = (await kn("get", "pods", "-l", "app=web", "-o", "name")).split("\n")[0];
    expect(await kn("wait", "--for=condition=Ready", pod, "--timeout=60s")).toMatch(/condition met/);
    expect((await kn("logs", pod, "-c", "web")).length).toBeGreaterThan(0);
    expect(
      (await kn("exec", pod.replace("pod/", ""), "-c", "web", "--", "cat", "/etc/hostname")).trim(),
    ).toBe(pod.replace("pod/", ""));
    await new Promise((r) => setTimeout(r, 1000)); // 30 s of cluster time: metrics-server has a sample
    expect(await kn("top", "pod")).toMatch(
      /NAME\s+CPU\(cores\)\s+MEMORY\(bytes\)\s*\n[\s\S]*web-\S+\s+\d+m\s+\d+Mi/,
    );
    expect(await k("top", "node")).toMatch(/k3s-server\s+\d+m\s+\d+%\s+\d+Mi\s+\d+%/);
  });

  it("replaces a deleted pod and collects a deleted deployment's pods", async () => {
    const pod = (await kn("get", "pods", "-l", "app=web", "-o", "name")).split("\n")[0];
    await kn("delete", pod);
    await kn("rollout", "status", "deploy/web", "--timeout=90s");
    const pods = await kn("get", "pods", "-l", "app=web", "-o", "name");
    expect(pods.split("\n")).toHaveLength(3);
    expect(pods).not.toContain(pod);
    await kn("delete", "deploy", "web");
    await kn("wait", "--for=delete", "pod", "-l", "app=web", "--timeout=60s");
    expect(await kn("get", "rs", "-o", "name")).toBe("");
  });

  it("applies and deletes a StressChaos", async () => {
    expect(await k("apply", "-f", t.file("stress.yaml", STRESS))).toMatch(
      /stresschaos.chaos-mesh.org\/cpu-stress created/,
    );
    expect(await kn("get", "stresschaos")).toMatch(/cpu-stress/);
    expect(await kn("delete", "stresschaos", "cpu-stress")).toMatch(/deleted/);
  });

  it("deletes a namespace", async () => {
    await k("delete", "namespace", "shop", "--timeout=60s");
    const r = await t.kubectl(["get", "ns", "shop"], { reject: false });
    expect(r.stderr).toMatch(/namespaces "shop" not found/);
  });
});
