// kubectl inside containers (bitnami/kubectl), driven through real kubectl on a pinned clock: a
// config-agent Deployment re-applying env every 30 s, a CronJob scaling a Deployment to 0 every
// 2 minutes, RBAC refusals as the agent's ServiceAccount, no token without automount.
// Checked against kubernetes' own sources (v1.31):
// - staging/src/k8s.io/client-go/rest/config.go InClusterConfig: KUBERNETES_SERVICE_HOST and
//   _PORT, /var/run/secrets/kubernetes.io/serviceaccount/{token,ca.crt}; clientcmd
//   merged_client_builder.go / client_config.go: in-cluster only when no kubeconfig is found,
//   else http://localhost:8080 ("The connection to the server localhost:8080 was refused - did
//   you specify the right host or port?"), the namespace from the namespace file.
// - staging/src/k8s.io/kubectl/pkg/cmd/set/set_env.go: NAME=value / NAME- after the resources,
//   updateEnv replacing in place, a two-way strategic merge patch as kubectl-set, "env updated",
//   nothing printed when nothing changes; patch/patch.go ("patched", "patched (no change)").
// - staging/src/k8s.io/kubectl/pkg/cmd/util/helpers.go: `Error from server (Forbidden): ...`;
//   k8s.io/apiserver's forbiddenMessage for the text.
// - pkg/controller/cronjob/cronjob_controllerv2.go: a Job per schedule time, none while
//   spec.suspend is true.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { R } from "../../../src/sim/api/resources.js";
import { ManualClock } from "../../../src/sim/core/clock.js";
import type { Deployment, Job, Pod } from "../../../src/sim/core/objects.js";
import { ensureNamespace, isRunning, startCluster, type TestCluster, waitFor } from "../helpers/exec.js";

const NS = "shop";
const KUBECTL_IMAGE = "docker.io/bitnami/kubectl:1.31.4";
let t: TestCluster;
const clock = new ManualClock(Date.parse("2026-03-01T00:00:30Z"));

beforeAll(async () => {
  t = await startCluster(1, clock);
  ensureNamespace(t.c, NS);
  const r = await apply(BASE);
  expect(errOf(r)).toBe("");
});
afterAll(async () => {
  await t?.stop();
});

function apply(yaml: string) {
  return t.kubectl(["apply", "-n", NS, "-f", "-"], yaml);
}

const deployment = (name: string) =>
  t.c.ctx.registry.tryGet(R("Deployment"), NS, name) as Deployment | undefined;
const envOf = (name: string) =>
  Object.fromEntries(
    (deployment(name)?.spec?.template?.spec?.containers?.[0]?.env ?? []).map((e) => [e.name, e.value]),
  );
const podsOf = (app: string) =>
  (t.c.ctx.registry.list(R("Pod"), NS, { labelSelector: `app=${app}` }) as Pod[]).filter(
    (p) => !p.metadata.deletionTimestamp,
  );
const runningPod = (app: string) => waitFor(`a running ${app} pod`, () => podsOf(app).find(isRunning), clock);

const BASE = `
apiVersion: apps/v1
kind: Deployment
metadata: { name: web }
spec:
  replicas: 1
  selector: { matchLabels: { app: web } }
  template:
    metadata: { labels: { app: web } }
    spec:
      containers:
        - name: web
          image: docker.io/library/nginx:1.25-alpine
          env: [{ name: LOG_LEVEL, value: info }]
---
apiVersion: v1
kind: ConfigMap
metadata: { name: desired-state }
data:
  web.env: LOG_LEVEL=info
---
apiVersion: v1
kind: ServiceAccount
metadata: { name: config-agent }
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: { name: config-agent }
rules:
  - { apiGroups: [apps], resources: [deployments], verbs: [get, list, patch] }
  - { apiGroups: [""], resources: [pods, configmaps], verbs: [get, list] }
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: { name: config-agent }
roleRef: { apiGroup: rbac.authorization.k8s.io, kind: Role, name: config-agent }
subjects: [{ kind: ServiceAccount, name: config-agent }]
---
apiVersion: v1
kind: ServiceAccount
metadata: { name: reader }
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: { name: reader }
rules:
  - { apiGroups: [apps], resources: [deployments], verbs: [get] }
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: { name: reader }
roleRef: { apiGroup: rbac.authorization.k8s.io, kind: Role, name: reader }
subjects: [{ kind: ServiceAccount, name: reader }]
`;

const AGENT = `
apiVersion: apps/v1
kind: Deployment
metadata: { name: config-agent }
spec:
  replicas: 1
  selector: { matchLabels: { app: config-agent } }
  template:
    metadata: { labels: { app: config-agent } }
    spec:
      serviceAccountName: config-agent
      containers:
        - name: agent
          image: ${KUBECTL_IMAGE}
          command:
            - /bin/sh
            - -c
            - |
              while true; do
                echo "reconciling deployment/web from /config/web.env"
                kubectl set env deployment/web $(cat /config/web.env)
                sleep 30
              done
          volumeMounts: [{ name: desired, mountPath: /config }]
      volumes: [{ name: desired, configMap: { name: desired-state } }]
`;

/** A pod of the kubectl image that idles, as `sa`, with or without its token. */
function toolbox(name: string, sa: string, automount = true) {
  return `
apiVersion: v1
kind: Pod
metadata: { name: ${name}, labels: { app: ${name} } }
spec:
  serviceAccountName: ${sa}
  automountServiceAccountToken: ${automount}
  containers:
    - name: shell
      image: ${KUBECTL_IMAGE}
      command: [/bin/sh, -c, "while true; do sleep 3600; done"]
`;
}

/** kubectl exec's stderr: the command's, then its own line for a non-zero exit. */
const errOf = (r: { stderr: string; exitCode: number }) =>
  r.stderr.replace(new RegExp(`\ncommand terminated with exit code ${r.exitCode}$`), "");

/** Move the pinned clock by `ms` in half-second steps, letting the agents work between them. */
async function advance(ms: number) {
  for (let done = 0; done < ms; done += 500) {
    clock.advance(500);
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe("a config-agent Deployment (bitnami/kubectl, a shell loop)", () => {
  it("re-applies the desired env every 30 s: a manual change is reverted, fixing the ConfigMap sticks", async () => {
    expect((await apply(AGENT)).stderr).toBe("");
    const agent = await runningPod("config-agent");
    await waitFor("the agent's first round", () => podLog(agent).includes("reconciling"), clock);
    const manual = await t.kubectl(["set", "env", "-n", NS, "deployment/web", "LOG_LEVEL=debug"]);
    expect(manual.stdout).toBe("deployment.apps/web env updated");
    expect(envOf("web").LOG_LEVEL).toBe("debug");
    const from = clock.now();
    await waitFor("the agent to put LOG_LEVEL back", () => envOf("web").LOG_LEVEL === "info", clock, 20_000);
    expect(clock.now() - from).toBeLessThanOrEqual(35_000);
    // the agent's write is its own, as kubectl set env sends it
    const managers = (deployment("web")?.metadata.managedFields ?? []).map(
      (m) => (m as { manager?: string }).manager,
    );
    expect(managers).toContain("kubectl-set");
    const log = await t.kubectl(["logs", "-n", NS, agent.metadata.name!]);
    expect(log.stdout).toContain(
      "reconciling deployment/web from /config/web.env\ndeployment.apps/web env updated",
    );

    // the source of truth: the ConfigMap the agent mounts
    const fix = await t.kubectl([
      "patch",
      "-n",
      NS,
      "configmap/desired-state",
      "--type",
      "merge",
      "-p",
      '{"data":{"web.env":"LOG_LEVEL=debug"}}',
    ]);
    expect(fix.exitCode).toBe(0);
    await waitFor(
      "the agent to apply the fixed ConfigMap",
      () => envOf("web").LOG_LEVEL === "debug",
      clock,
      20_000,
    );
    await advance(90_000);
    expect(envOf("web").LOG_LEVEL).toBe("debug");
    // rounds with nothing to change print nothing more (set env prints only what it updated)
    const rounds = podLog(agent)
      .split("\n")
      .filter((l) => l.startsWith("reconciling")).length;
    expect(rounds).toBeGreaterThanOrEqual(4);
  });

  it("kubectl exec into the agent runs kubectl as its ServiceAccount", async () => {
    const agent = await runningPod("config-agent");
    const r = await t.kubectl(["exec", "-n", NS, agent.metadata.name!, "--", "kubectl", "get", "pods"]);
    expect(r.exitCode).toBe(0);
    expect(r.stdout.split("\n")[0]).toMatch(/^NAME\s+READY\s+STATUS\s+RESTARTS\s+AGE$/);
    expect(r.stdout).toContain(agent.metadata.name!);
    const who = await t.kubectl([
      "exec",
      "-n",
      NS,
      agent.metadata.name!,
      "--",
      "kubectl",
      "auth",
      "can-i",
      "delete",
      "pods",
    ]);
    expect(who.stdout).toBe("no");
    expect(who.exitCode).toBe(1);
    const token = await t.kubectl([
      "exec",
      "-n",
      NS,
      agent.metadata.name!,
      "--",
      "cat",
      "/var/run/secrets/kubernetes.io/serviceaccount/namespace",
    ]);
    expect(token.stdout).toBe(NS);
    const ns = await t.kubectl([
      "exec",
      "-n",
      NS,
      agent.metadata.name!,
      "--",
      "kubectl",
      "get",
      "deploy",
      "web",
      "-o",
      "jsonpath={.spec.template.spec.containers[0].env[0].value}",
    ]);
    expect(ns.stdout).toBe("debug");
    const flag = await t.kubectl([
      "exec",
      "-n",
      NS,
      agent.metadata.name!,
      "--",
      "kubectl",
      "get",
      "pods",
      "--bogus",
    ]);
    expect(flag.exitCode).toBe(1);
    expect(errOf(flag)).toContain("error: unknown flag: --bogus");
  });
});

describe("RBAC and credentials of kubectl in a pod", () => {
  it("refuses what the ServiceAccount's Role does not grant, as kubectl prints it", async () => {
    expect((await apply(toolbox("reader-shell", "reader"))).exitCode).toBe(0);
    const pod = await runningPod("reader-shell");
    const r = await t.kubectl([
      "exec",
      "-n",
      NS,
      pod.metadata.name!,
      "--",
      "kubectl",
      "patch",
      "deployment",
      "web",
      "-p",
      '{"spec":{"replicas":2}}',
    ]);
    expect(r.exitCode).toBe(1);
    expect(errOf(r)).toBe(
      'Error from server (Forbidden): deployments.apps "web" is forbidden: User "system:serviceaccount:shop:reader" cannot patch resource "deployments" in API group "apps" in the namespace "shop"',
    );
    const pods = await t.kubectl(["exec", "-n", NS, pod.metadata.name!, "--", "kubectl", "get", "pods"]);
    expect(errOf(pods)).toBe(
      'Error from server (Forbidden): pods is forbidden: User "system:serviceaccount:shop:reader" cannot list resource "pods" in API group "" in the namespace "shop"',
    );
  });

  it("without the token mounted kubectl falls back to localhost:8080", async () => {
    expect((await apply(toolbox("no-token", "reader", false))).exitCode).toBe(0);
    const pod = await runningPod("no-token");
    const r = await t.kubectl(["exec", "-n", NS, pod.metadata.name!, "--", "kubectl", "get", "pods"]);
    expect(r.exitCode).toBe(1);
    expect(errOf(r)).toBe(
      "The connection to the server localhost:8080 was refused - did you specify the right host or port?",
    );
  });

  it("an image without kubectl says so", async () => {
    const agent = await runningPod("web");
    const r = await t.kubectl(["exec", "-n", NS, agent.metadata.name!, "--", "sh", "-c", "kubectl get pods"]);
    expect(r.exitCode).toBe(127);
    expect(errOf(r)).toBe("sh: kubectl: not found");
  });
});

describe("a CronJob that scales a Deployment to 0 every 2 minutes", () => {
  it("scales it down at each schedule time until it is suspended", async () => {
    const setup = await apply(`
apiVersion: v1
kind: ServiceAccount
metadata: { name: scaler }
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: { name: scaler }
rules:
  - { apiGroups: [apps], resources: [deployments/scale], verbs: [get, patch] }
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: { name: scaler }
roleRef: { apiGroup: rbac.authorization.k8s.io, kind: Role, name: scaler }
subjects: [{ kind: ServiceAccount, name: scaler }]
---
apiVersion: batch/v1
kind: CronJob
metadata: { name: nightly-scale-down }
spec:
  schedule: "*/2 * * * *"
  jobTemplate:
    spec:
      template:
        spec:
          serviceAccountName: scaler
          restartPolicy: OnFailure
          containers:
            - name: scale
              image: ${KUBECTL_IMAGE}
              # the image's ENTRYPOINT is kubectl: args alone, as its docs show
              args: [scale, deployment/web, --replicas=0]
`);
    expect(setup.stderr).toBe("");
    await waitFor(
      "the CronJob to scale web to 0",
      () => deployment("web")?.spec.replicas === 0,
      clock,
      30_000,
    );
    const jobs = () => t.c.ctx.registry.list(R("Job"), NS) as Job[];
    const job = await waitFor(
      "the job to complete",
      () => jobs().find((j) => (j.status?.succeeded ?? 0) > 0),
      clock,
    );
    const pod = (
      t.c.ctx.registry.list(R("Pod"), NS, {
        labelSelector: `batch.kubernetes.io/job-name=${job.metadata.name}`,
      }) as Pod[]
    )[0];
    const log = await t.kubectl(["logs", "-n", NS, pod.metadata.name!]);
    expect(log.stdout).toBe("deployment.apps/web scaled");
    const st = pod.status?.containerStatuses?.[0]?.state?.terminated;
    expect(st?.reason).toBe("Completed");

    // scaling back up does not stick: the next schedule time scales it down again
    expect((await t.kubectl(["scale", "-n", NS, "deployment/web", "--replicas=1"])).stdout).toBe(
      "deployment.apps/web scaled",
    );
    await waitFor(
      "the next run to scale web to 0",
      () => deployment("web")?.spec.replicas === 0,
      clock,
      30_000,
    );

    // the fix is the source: suspend the CronJob
    await t.kubectl(["patch", "-n", NS, "cronjob/nightly-scale-down", "-p", '{"spec":{"suspend":true}}']);
    await t.kubectl(["scale", "-n", NS, "deployment/web", "--replicas=1"]);
    await advance(300_000);
    expect(deployment("web")?.spec.replicas).toBe(1);
  });
});

function podLog(p: Pod): string {
  return t.c.ctx.logs.logs({ pod: p, container: p.spec.containers[0].name }).lines.join("\n");
}
