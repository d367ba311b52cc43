// The verbs of kubectl inside a container against the real kubectl on the host: the same
// command, run by both against the same objects, prints the same (the host's kubectl is the
// oracle for the printers, the messages and the exit codes). The pod's ServiceAccount is bound to
// cluster-admin so the two see the same objects. Sources: k8s.io/cli-runtime/pkg/printers (json,
// yaml, name, jsonpath, tables), staging/src/k8s.io/kubectl/pkg/cmd/{get,patch,apply,label,
// annotate,rollout,create,delete}, cobra's command.go (unknown command, suggestions).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { R } from "../../../src/sim/api/resources.js";
import { ManualClock } from "../../../src/sim/core/clock.js";
import type { Pod } from "../../../src/sim/core/objects.js";
import { ensureNamespace, isRunning, startCluster, type TestCluster, waitFor } from "../helpers/exec.js";

const NS = "ops";
let t: TestCluster;
let pod = "";
const clock = new ManualClock(Date.parse("2026-03-01T00:00:30Z"));

beforeAll(async () => {
  t = await startCluster(1, clock);
  ensureNamespace(t.c, NS);
  const r = await t.kubectl(["apply", "-n", NS, "-f", "-"], SETUP);
  expect(r.stderr).toBe("");
  const p = await waitFor(
    "the ops pod",
    () =>
      (t.c.ctx.registry.list(R("Pod"), NS) as Pod[]).find((x) => x.metadata.name === "ops" && isRunning(x)),
    clock,
  );
  pod = p.metadata.name!;
  await waitFor(
    "web to be available",
    () => {
      const d = t.c.ctx.registry.tryGet(R("Deployment"), NS, "web") as {
        status?: { availableReplicas?: number };
      };
      return (d?.status?.availableReplicas ?? 0) >= 1;
    },
    clock,
  );
});
afterAll(async () => {
  await t?.stop();
});

/** Two identical Deployments: the host's kubectl changes one, the pod's the other. */
function twinDeployment(name: string) {
  return `apiVersion: apps/v1
kind: Deployment
metadata: { name: ${name}, labels: { tier: front } }
spec:
  replicas: 1
  selector: { matchLabels: { app: ${name} } }
  template:
    metadata: { labels: { app: ${name} } }
    spec:
      containers:
        - name: app
          image: docker.io/library/nginx:1.25-alpine
          env: [{ name: MODE, value: "on" }, { name: KEEP, value: "1" }]`;
}

const SETUP = `
apiVersion: v1
kind: ServiceAccount
metadata: { name: ops }
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: { name: ops-admin }
roleRef: { apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: cluster-admin }
subjects: [{ kind: ServiceAccount, name: ops, namespace: ops }]
---
apiVersion: v1
kind: Pod
metadata: { name: ops, labels: { app: ops } }
spec:
  serviceAccountName: ops
  containers:
    - name: shell
      image: docker.io/bitnami/kubectl:1.32.4
      command: [/bin/sh, -c, "while true; do sleep 3600; done"]
---
apiVersion: apps/v1
kind: Deployment
metadata: { name: web, labels: { tier: front } }
spec:
  replicas: 1
  selector: { matchLabels: { app: web } }
  template:
    metadata: { labels: { app: web } }
    spec:
      containers:
        - name: web
          image: docker.io/library/nginx:1.25-alpine
          env: [{ name: MODE, value: "on" }]
---
${twinDeployment("app-host")}
---
${twinDeployment("app-pod")}
---
apiVersion: v1
kind: Service
metadata: { name: web }
spec:
  selector: { app: web }
  ports: [{ port: 80 }]
---
apiVersion: v1
kind: ConfigMap
metadata: { name: settings }
data: { a: "1", b: "<two> & more" }
`;

/** The same kubectl command from the host and from inside the pod. */
async function both(args: string[], input?: string) {
  const host = await t.kubectl(["-n", NS, ...args], input);
  const inPod = await t.kubectl(
    ["exec", ...(input ? ["-i"] : []), "-n", NS, pod, "--", "kubectl", ...args],
    input,
  );
  const err = inPod.stderr.replace(
    new RegExp(`\\n?command terminated with exit code ${inPod.exitCode}$`),
    "",
  );
  return { host, inPod: { ...inPod, stderr: err } };
}

/** The same command on the twins: the same output (names aside) and the same result. */
async function twin(args: (name: string) => string[], input?: string) {
  const host = await t.kubectl(["-n", NS, ...args("app-host")], input);
  const inPod = await t.kubectl(
    ["exec", ...(input ? ["-i"] : []), "-n", NS, pod, "--", "kubectl", ...args("app-pod")],
    input,
  );
  const err = inPod.stderr.replace(
    new RegExp(`\\n?command terminated with exit code ${inPod.exitCode}$`),
    "",
  );
  const norm = (x: string, name: string) => x.replaceAll(name, "NAME");
  // warnings kubectl prints while ranging over a map come in no set order
  const lines = (x: string) => x.split("\n").sort().join("\n");
  expect({
    out: norm(inPod.stdout, "app-pod"),
    err: lines(norm(err, "app-pod")),
    code: inPod.exitCode,
  }).toEqual({
    out: norm(host.stdout, "app-host"),
    err: lines(norm(host.stderr, "app-host")),
    code: host.exitCode,
  });
  const shape = (name: string) => {
    const d = t.c.ctx.registry.tryGet(R("Deployment"), NS, name) as unknown as {
      metadata: { labels?: unknown; annotations?: Record<string, string> };
      spec: unknown;
    };
    const ann = { ...(d.metadata.annotations ?? {}) };
    delete ann["kubectl.kubernetes.io/restartedAt"];
    const out = JSON.parse(norm(JSON.stringify({ labels: d.metadata.labels, ann, spec: d.spec }), name));
    // the host's kubectl stamps a restart with its wall clock, the pod's with the cluster's
    delete out.spec.template.metadata.annotations?.["kubectl.kubernetes.io/restartedAt"];
    // set env --from adds a ConfigMap's keys in Go's map order, which is no set order
    for (const c of out.spec.template.spec.containers)
      c.env?.sort((a: { name: string }, b: { name: string }) => a.name.localeCompare(b.name));
    return out;
  };
  expect(shape("app-pod")).toEqual(shape("app-host"));
  return host;
}

async function same(args: string[]) {
  const { host, inPod } = await both(args);
  expect({ out: inPod.stdout, err: inPod.stderr, code: inPod.exitCode }).toEqual({
    out: host.stdout,
    err: host.stderr,
    code: host.exitCode,
  });
  return host;
}

describe("kubectl get in a pod prints as kubectl does", () => {
  it.each([
    [["get", "deploy", "web", "-o", "yaml"]],
    [["get", "deployment/web", "-o", "json"]],
    [["get", "cm", "settings", "-o", "json"]],
    [["get", "cm", "-o", "name"]],
    [["get", "pods", "-l", "app=web", "-o", "name"]],
    [
      [
        "get",
        "deploy",
        "web",
        "-o",
        'jsonpath={.metadata.name}{"\\n"}{range .spec.template.spec.containers[*]}{.name}={.image}{"\\n"}{end}',
      ],
    ],
    [["get", "deploy", "-o", "jsonpath={.items[*].metadata.labels}"]],
    [["get", "svc", "web", "-o", "jsonpath={.spec.ports[?(@.port==80)].protocol}"]],
    [["get", "deploy"]],
    [["get", "deploy,svc"]],
    [["get", "cm", "settings", "missing"]],
    [["get", "secrets", "-l", "nothing=here"]],
    [["get", "deploy", "nope", "--ignore-not-found"]],
    [["logs", "deploy/web", "--tail=2"]],
    [["get", "pods", "--show-labels"]],
    [["get", "all"]],
    [["wait", "--for=condition=Available", "deploy/web", "--timeout=10s"]],
    [["wait", "--for=jsonpath={.spec.replicas}=1", "deployment/web"]],
    [["get", "deploy", "-o", "wide"]],
    [["logs", "ops", "-c", "nope"]],
  ])("%j", async (args) => {
    const r = await same(args);
    expect(r.exitCode === 0 || r.stderr !== "").toBe(true);
  });
});

describe("the verbs that write", () => {
  it("annotate and label, with and without --overwrite", async () => {
    const a = await twin((n) => ["annotate", "deploy", n, "team=payments"]);
    expect(a.stdout).toBe("deployment.apps/app-host annotated");
    await twin((n) => ["annotate", "deploy", n, "team=checkout"]);
    await twin((n) => ["annotate", "deploy", n, "team=checkout", "--overwrite"]);
    await twin((n) => ["label", "deploy", n, "tier=front"]);
    await twin((n) => ["label", "deploy", n, "tier=back"]);
    await twin((n) => ["label", "deploy", n, "tier-", "extra=1"]);
  });

  it("patch: patched, patched (no change), a bad type", async () => {
    const p = await twin((n) => [
      "patch",
      "deploy",
      n,
      "--type",
      "merge",
      "-p",
      '{"metadata":{"labels":{"x":"1"}}}',
    ]);
    expect(p.stdout).toBe("deployment.apps/app-host patched");
    await twin((n) => ["patch", "deploy", n, "--type", "merge", "-p", '{"metadata":{"labels":{"x":"1"}}}']);
    await twin((n) => [
      "patch",
      "deploy",
      n,
      "-p",
      '{"spec":{"template":{"spec":{"containers":[{"name":"app","env":[{"name":"NEW","value":"2"}]}]}}}}',
    ]);
    await twin((n) => [
      "patch",
      "deploy",
      n,
      "--type",
      "json",
      "-p",
      '[{"op":"replace","path":"/spec/replicas","value":2}]',
    ]);
    await twin((n) => ["patch", "deploy", n, "--type", "bogus", "-p", "{}"]);
    await same(["patch", "cm", "missing", "-p", "{}"]);
  });

  it("set env: updated, nothing to change, a removal, from a ConfigMap", async () => {
    const s = await twin((n) => ["set", "env", `deploy/${n}`, "MODE=off"]);
    expect(s.stdout).toBe("deployment.apps/app-host env updated");
    await twin((n) => ["set", "env", `deploy/${n}`, "MODE=off"]);
    await twin((n) => ["set", "env", `deploy/${n}`, "MODE=on", "EXTRA=1"]);
    await twin((n) => ["set", "env", `deploy/${n}`, "EXTRA-", "KEEP-"]);
    await twin((n) => ["set", "env", `deploy/${n}`, "--from=configmap/settings", "--prefix=CFG_"]);
    await twin((n) => ["set", "env", `deploy/${n}`, "MODE=x", "--overwrite=false"]);
    await twin((n) => ["set", "env", `deploy/${n}`, "1BAD=x"]);
    await twin((n) => ["rollout", "restart", `deploy/${n}`]);
  });

  it("create configmap --dry-run=client -o yaml, and unknown commands and flags", async () => {
    await same([
      "create",
      "configmap",
      "x",
      "--from-literal=a=1",
      "--from-literal=b=two",
      "--dry-run=client",
      "-o",
      "yaml",
    ]);
    await same(["create", "configmap", "x", "--from-literal=a=1", "--dry-run=client"]);
    await same(["get", "pods", "--bogus"]);
    await same(["get", "-x"]);
    const foo = await t.kubectl(["exec", "-n", NS, pod, "--", "kubectl", "foo"]);
    expect(foo.stderr).toBe(
      'Error: unknown command "foo" for "kubectl"\n\nDid you mean this?\n\ttop\n\ncommand terminated with exit code 1',
    );
    await same(["rollout", "foo"]);
    await same(["scale", "deploy/web"]);
  });

  it("apply -f -: created, unchanged, configured, with the last-applied annotation kubectl writes", async () => {
    const cm = (name: string, v: string) =>
      `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n  labels: {app: demo}\ndata:\n  k: "${v}"\n  gone: "x"\n`;
    const host = await t.kubectl(["apply", "-n", NS, "-f", "-"], cm("applied-host", "1"));
    const inPod = await t.kubectl(
      ["exec", "-i", "-n", NS, pod, "--", "kubectl", "apply", "-f", "-"],
      cm("applied-pod", "1"),
    );
    expect(host.stdout).toBe("configmap/applied-host created");
    expect(inPod.stdout).toBe("configmap/applied-pod created");
    const ann = (n: string) =>
      t.c.ctx.registry.tryGet(R("ConfigMap"), NS, n)?.metadata.annotations?.[
        "kubectl.kubernetes.io/last-applied-configuration"
      ];
    expect(ann("applied-pod")).toBe(ann("applied-host")?.replace("applied-host", "applied-pod"));
    const again = await t.kubectl(
      ["exec", "-i", "-n", NS, pod, "--", "kubectl", "apply", "-f", "-"],
      cm("applied-pod", "1"),
    );
    expect(again.stdout).toBe("configmap/applied-pod unchanged");
    const changed = cm("applied-pod", "2").replace('  gone: "x"\n', "");
    const conf = await t.kubectl(["exec", "-i", "-n", NS, pod, "--", "kubectl", "apply", "-f", "-"], changed);
    expect(conf.stdout).toBe("configmap/applied-pod configured");
    const data = (
      t.c.ctx.registry.tryGet(R("ConfigMap"), NS, "applied-pod") as { data?: Record<string, string> }
    ).data;
    expect(data).toEqual({ k: "2" });
    const ssa = await t.kubectl(
      ["exec", "-i", "-n", NS, pod, "--", "kubectl", "apply", "--server-side", "-f", "-"],
      cm("applied-ssa", "1"),
    );
    expect(ssa.stdout).toBe("configmap/applied-ssa serverside-applied");
    const fields = t.c.ctx.registry.tryGet(R("ConfigMap"), NS, "applied-ssa")?.metadata.managedFields ?? [];
    expect(
      fields.map((f) => [(f as { manager?: string }).manager, (f as { operation?: string }).operation]),
    ).toEqual([["kubectl", "Apply"]]);
  });

  it("rollout restart and status, then undo to the previous template", async () => {
    const r = await t.kubectl([
      "exec",
      "-n",
      NS,
      pod,
      "--",
      "kubectl",
      "rollout",
      "restart",
      "deployment/web",
    ]);
    expect(r.stdout).toBe("deployment.apps/web restarted");
    const tpl = () =>
      (
        t.c.ctx.registry.tryGet(R("Deployment"), NS, "web") as unknown as {
          spec: { template: { metadata: { annotations?: Record<string, string> } } };
        }
      ).spec.template.metadata.annotations ?? {};
    expect(tpl()["kubectl.kubernetes.io/restartedAt"]).toBe(
      new Date(clock.toWall(clock.now())).toISOString().replace(/\.\d{3}Z$/, "Z"),
    );
    let done = false;
    const status = t
      .kubectl([
        "exec",
        "-n",
        NS,
        pod,
        "--",
        "kubectl",
        "rollout",
        "status",
        "deployment/web",
        "--timeout=5m",
      ])
      .finally(() => {
        done = true;
      });
    while (!done) {
      clock.advance(500);
      await new Promise((res) => setTimeout(res, 5));
    }
    const st = await status;
    expect(st.exitCode).toBe(0);
    expect(st.stdout.split("\n").at(-1)).toBe('deployment "web" successfully rolled out');
    const undo = await t.kubectl([
      "exec",
      "-n",
      NS,
      pod,
      "--",
      "kubectl",
      "rollout",
      "undo",
      "deployment/web",
    ]);
    expect(undo.stdout).toBe("deployment.apps/web rolled back");
    expect(tpl()["kubectl.kubernetes.io/restartedAt"]).toBeUndefined();
  });

  it("delete, and delete of what is gone", async () => {
    await t.kubectl(["create", "cm", "-n", NS, "doomed-host"]);
    await t.kubectl(["create", "cm", "-n", NS, "doomed-pod"]);
    const h = await t.kubectl(["delete", "-n", NS, "cm", "doomed-host"]);
    const p = await t.kubectl(["exec", "-n", NS, pod, "--", "kubectl", "delete", "cm", "doomed-pod"]);
    expect(h.stdout).toBe('configmap "doomed-host" deleted');
    expect(p.stdout).toBe('configmap "doomed-pod" deleted');
    await same(["delete", "cm", "doomed-host"]);
    await same(["delete", "cm", "doomed-host", "--ignore-not-found"]);
  });

  it("version and auth can-i", async () => {
    const v = await t.kubectl(["exec", "-n", NS, pod, "--", "kubectl", "version"]);
    const server = (await t.kubectl(["version", "-o", "json"])).stdout;
    expect(v.stdout).toBe(
      `Client Version: v1.32.4\nKustomize Version: v5.5.0\nServer Version: ${JSON.parse(server).serverVersion.gitVersion}`,
    );
    const yes = await t.kubectl(["exec", "-n", NS, pod, "--", "kubectl", "auth", "can-i", "delete", "pods"]);
    expect(yes.stdout).toBe("yes");
  });
});
