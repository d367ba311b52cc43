// What kubernetes.core 2.4.0's integration targets k8s_waiter, k8s_rollback and k8s_apply
// (tests/integration/targets/ of the ansible-collections/kubernetes.core repository, tag 2.4.0;
// Debian's package leaves the tests out) check of a cluster, run through ansible-playbook against
// the embedded cluster. The playbooks are written here after those targets' steps, with their
// images and assertions; the waits that must fail get shorter wall-clock timeouts than the
// targets' 30-400 s (the cluster runs 60 times faster, so 3 s span 3 minutes of its time).
// The steps that once failed here: a pod of a made-up image and a DaemonSet of a tag never
// published waited successfully (every unknown image pulled); a Deployment whose new template
// names a deleted ServiceAccount lost its old pod (the rolling update read kubectl's
// `strategy: {}` as maxUnavailable 1); a DaemonSet had no deprecated.daemonset.template.generation
// for k8s_rollback to read; NetworkPolicies were not served. Then: server-side apply recorded no
// managedFields and had no conflicts (k8s_apply's ConfigMap steps with three field managers).
// Then: k8s_waiter's short_wait_remove_pod (its last step) waited out the deletion of a pod whose
// PID 1 is busybox `sleep`, which has no SIGTERM handler and so lasts the 30 s grace period; that
// step runs on a cluster of its own at speed 4, where the target's 5 s timeout is 20 s of cluster
// time, short of the grace period as on a real cluster.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { playbook } from "../../helpers/ansible.js";
import { startTestCluster, type TestCluster } from "../../helpers/cluster.js";

type Open = Record<string, unknown>;

/** The targets' pod spec (defaults/main.yml): an exec readiness probe after 15 s. */
const podSpec = (image: string, command: string[] = [], extra: Open = {}): Open => ({
  ...extra,
  containers: [
    {
      name: "app",
      image,
      imagePullPolicy: "Always",
      command,
      readinessProbe: { initialDelaySeconds: 15, exec: { command: ["/bin/true"] } },
      resources: { limits: { cpu: "100m", memory: "100Mi" } },
    },
  ],
});

const workload = (kind: string, ns: string, name: string, spec: Open, template: Open): Open => ({
  apiVersion: "apps/v1",
  kind,
  metadata: { name, namespace: ns },
  spec: {
    ...spec,
    selector: { matchLabels: { app: name } },
    template: { metadata: { labels: { app: name } }, spec: template },
  },
});

/** A k8s task; a wait checks every second of wall time (the module's default is 5 s: 5 minutes of the cluster's). */
const k8s = (args: Open, extra: Open = {}): Open => ({
  "kubernetes.core.k8s": args.wait ? { wait_sleep: 1, ...args } : args,
  ...extra,
});
const info = (kind: string, name: string, ns: string, register: string): Open => ({
  "kubernetes.core.k8s_info": { kind, name, namespace: ns },
  register,
});
const rollback = (kind: string, name: string, ns: string, extra: Open = {}): Open => ({
  "kubernetes.core.k8s_rollback": { api_version: "apps/v1", kind, name, namespace: ns },
  ...extra,
});
const namespace = (name: string) =>
  k8s({ definition: { apiVersion: "v1", kind: "Namespace", metadata: { name } } });
const assert = (...that: string[]): Open => ({ assert: { that } });
const play = (tasks: Open[]) => stringify([{ hosts: "localhost", gather_facts: false, tasks }]);

const WAITER = play([
  namespace("wait"),
  k8s(
    {
      wait: true,
      wait_timeout: 120,
      definition: {
        apiVersion: "v1",
        kind: "Pod",
        metadata: { name: "wait-pod", namespace: "wait" },
        spec: podSpec("alpine:3.8", ["sleep", "10000"]),
      },
    },
    { name: "a simple pod" },
  ),
  k8s(
    {
      wait: true,
      wait_sleep: 3,
      wait_timeout: 120,
      definition: workload(
        "DaemonSet",
        "wait",
        "wait-ds",
        { updateStrategy: { type: "RollingUpdate" } },
        podSpec("gcr.io/kuar-demo/kuard-amd64:{{ item }}", ["sleep", "600"]),
      ),
    },
    { name: "a DaemonSet, updated to a new image", loop: ["1", "3"], register: "ds" },
  ),
  {
    name: "the DaemonSet's pods run the new image",
    "kubernetes.core.k8s_info": {
      kind: "Pod",
      namespace: "wait",
      label_selectors: ["app=wait-ds"],
      field_selectors: ["status.phase=Running"],
    },
    register: "ds_pods",
  },
  assert(
    "ds.results[1].result.status.currentNumberScheduled == ds.results[1].result.status.desiredNumberScheduled",
    'ds_pods.resources[0].spec.containers[0].image.endswith(":3")',
  ),
  k8s(
    {
      wait: true,
      wait_sleep: 1,
      wait_timeout: 3,
      definition: {
        apiVersion: "v1",
        kind: "Pod",
        metadata: { name: "wait-crash-pod", namespace: "wait" },
        spec: podSpec("alpine:3.8", ["/bin/false"]),
      },
    },
    { name: "a crashing pod", register: "crash_pod", ignore_errors: true },
  ),
  k8s(
    {
      wait: true,
      wait_sleep: 1,
      wait_timeout: 3,
      definition: {
        apiVersion: "v1",
        kind: "Pod",
        metadata: { name: "wait-no-image-pod", namespace: "wait" },
        spec: podSpec("i_made_this_up:and_this_too"),
      },
    },
    { name: "a pod of an image no registry has", register: "no_image_pod", ignore_errors: true },
  ),
  assert("crash_pod is failed", "no_image_pod is failed"),
  k8s(
    {
      wait: true,
      wait_timeout: 180,
      definition: workload(
        "Deployment",
        "wait",
        "wait-deploy",
        { replicas: 3 },
        podSpec("gcr.io/kuar-demo/kuard-amd64:{{ item }}"),
      ),
    },
    { name: "a Deployment, then updated", loop: ["1", "2"], register: "deploy" },
  ),
  assert("deploy.results[1].result.status.availableReplicas == deploy.results[1].result.status.replicas"),
  k8s(
    {
      apply: false,
      wait: true,
      wait_timeout: 60,
      wait_condition: { type: "Progressing", status: "Unknown", reason: "DeploymentPaused" },
      definition: {
        apiVersion: "apps/v1",
        kind: "Deployment",
        metadata: { name: "wait-deploy", namespace: "wait" },
        spec: { paused: true },
      },
    },
    { name: "pause it, waiting for Progressing Unknown DeploymentPaused", register: "pause_deploy" },
  ),
  assert(
    'pause_deploy.result.status.conditions[1].reason == "DeploymentPaused"',
    'pause_deploy.result.status.conditions[1].status == "Unknown"',
  ),
  k8s(
    {
      wait: true,
      wait_timeout: 3,
      definition: workload(
        "Deployment",
        "wait",
        "wait-crash-deploy",
        { replicas: 3 },
        podSpec("alpine:3.8", ["/bin/false"]),
      ),
    },
    { name: "a crashing Deployment", register: "crash_deploy", ignore_errors: true },
  ),
  assert("crash_deploy is failed"),
]);

const nginx = (image: string): Open => ({
  apiVersion: "apps/v1",
  kind: "Deployment",
  metadata: { name: "nginx-deploy", namespace: "testingrollback", labels: { app: "nginx" } },
  spec: {
    replicas: 3,
    selector: { matchLabels: { app: "nginx" } },
    template: {
      metadata: { labels: { app: "nginx" } },
      spec: { containers: [{ name: "nginx", image, ports: [{ containerPort: 80 }] }] },
    },
  },
});

const fluentd = (tag: string): Open => ({
  apiVersion: "apps/v1",
  kind: "DaemonSet",
  metadata: {
    name: "fluentd-elasticsearch",
    namespace: "testingrollback",
    labels: { "k8s-app": "fluentd-logging" },
  },
  spec: {
    selector: { matchLabels: { name: "fluentd-elasticsearch" } },
    template: {
      metadata: { labels: { name: "fluentd-elasticsearch" } },
      spec: {
        tolerations: [{ key: "node-role.kubernetes.io/master", effect: "NoSchedule" }],
        terminationGracePeriodSeconds: 30,
        containers: [
          {
            name: "fluentd-elasticsearch",
            image: `quay.io/fluentd_elasticsearch/fluentd:${tag}`,
            resources: { limits: { memory: "200Mi" }, requests: { cpu: "100m", memory: "200Mi" } },
            volumeMounts: [{ name: "varlog", mountPath: "/var/log" }],
          },
        ],
        volumes: [{ name: "varlog", hostPath: { path: "/var/log" } }],
      },
    },
  },
});

const REV = "metadata.annotations['deployment.kubernetes.io/revision']";
const GEN = "metadata.annotations['deprecated.daemonset.template.generation']";
const ROLLBACK = play([
  namespace("testingrollback"),
  k8s({ wait: true, wait_timeout: 120, definition: nginx("nginx:1.17") }),
  k8s(
    { wait: true, wait_timeout: 3, definition: nginx("nginx:1.0.23449928384992872784") },
    { name: "crash the Deployment with a tag never published", register: "crash", ignore_errors: true },
  ),
  assert("crash is failed"),
  info("Deployment", "nginx-deploy", "testingrollback", "crashed"),
  rollback("Deployment", "nginx-deploy", "testingrollback", { check_mode: true, register: "dry" }),
  info("Deployment", "nginx-deploy", "testingrollback", "after_dry"),
  rollback("Deployment", "nginx-deploy", "testingrollback", { register: "rolled" }),
  info("Deployment", "nginx-deploy", "testingrollback", "after"),
  assert(
    "dry is changed",
    "rolled is changed",
    `crashed.resources[0].${REV} == after_dry.resources[0].${REV}`,
    `crashed.resources[0].${REV} | int + 1 == after.resources[0].${REV} | int`,
  ),
  k8s(
    { wait: true, wait_timeout: 60, definition: fluentd("v2.5.2") },
    { name: "a DaemonSet of fluentd v2.5.2" },
  ),
  k8s(
    { wait: true, wait_timeout: 3, definition: fluentd("v2734894949") },
    { name: "crash the DaemonSet with a tag never published", register: "crash_ds", ignore_errors: true },
  ),
  assert("crash_ds is failed"),
  info("DaemonSet", "fluentd-elasticsearch", "testingrollback", "crashed_ds"),
  rollback("DaemonSet", "fluentd-elasticsearch", "testingrollback", { check_mode: true }),
  info("DaemonSet", "fluentd-elasticsearch", "testingrollback", "after_dry_ds"),
  rollback("DaemonSet", "fluentd-elasticsearch", "testingrollback", { register: "rolled_ds" }),
  info("DaemonSet", "fluentd-elasticsearch", "testingrollback", "after_ds"),
  assert(
    "rolled_ds is changed",
    `crashed_ds.resources[0].${GEN} == after_dry_ds.resources[0].${GEN}`,
    `crashed_ds.resources[0].${GEN} | int + 1 == after_ds.resources[0].${GEN} | int`,
  ),
]);

const applyDeploy = (image: string) =>
  workload(
    "Deployment",
    "apply",
    "apply-deploy",
    { replicas: 1 },
    podSpec(image, [], { serviceAccount: "apply-deploy" }),
  );
const SA = {
  apiVersion: "v1",
  kind: "ServiceAccount",
  metadata: { name: "apply-deploy", namespace: "apply" },
};
const NETPOL = {
  kind: "NetworkPolicy",
  apiVersion: "networking.k8s.io/v1",
  metadata: { name: "apply-netpolicy", labels: { app: "apply-netpolicy" }, annotations: {} },
  spec: {
    podSelector: { matchLabels: { app: "apply-netpolicy" } },
    policyTypes: ["Ingress", "Egress"],
    ingress: [{ ports: [{ port: 9093, protocol: "TCP" }] }],
    egress: [{}],
  },
};
const APPLY = play([
  namespace("apply"),
  k8s({ definition: SA }),
  k8s(
    {
      apply: true,
      wait: true,
      wait_timeout: 120,
      definition: applyDeploy("gcr.io/kuar-demo/kuard-amd64:{{ item }}"),
    },
    {
      name: "a Deployment under its own ServiceAccount, then updated",
      loop: ["v0.10.0-green", "v0.10.0-purple"],
    },
  ),
  k8s({ state: "absent", definition: SA }, { name: "the ServiceAccount goes" }),
  k8s(
    {
      apply: true,
      wait: true,
      wait_timeout: 3,
      definition: applyDeploy("gcr.io/kuar-demo/kuard-amd64:v0.10.0-green"),
    },
    {
      name: "a new template cannot create its pods, so the wait fails (and the old pod stays)",
      register: "after_sa_removal",
      ignore_errors: true,
    },
  ),
  assert("after_sa_removal is failed"),
  k8s(
    { namespace: "apply", apply: true, definition: NETPOL },
    { name: "a NetworkPolicy with an empty egress rule, applied twice", loop: [1, 2], register: "netpol" },
  ),
  assert("netpol.results[0] is changed", "netpol.results[1] is not changed"),
  ...serverSideApply(),
]);

/** k8s_apply's server-side apply steps: who owns the ConfigMap's key, and conflicts over it. */
function serverSideApply(): Open[] {
  const cm = (value: string, ssa: Open, extra: Open = {}) =>
    k8s(
      {
        namespace: "apply",
        apply: true,
        server_side_apply: ssa,
        definition: {
          apiVersion: "v1",
          kind: "ConfigMap",
          metadata: { name: "server-side-cm" },
          data: { key: value },
        },
      },
      { register: "result", ...extra },
    );
  const MF = "result.result.metadata.managedFields";
  return [
    cm(
      "value-0",
      { force_conflicts: false },
      { name: "server-side apply without field_manager", ignore_errors: true },
    ),
    assert("result is failed", '"field_manager" in result.msg'),
    cm("value-0", { field_manager: "manager-00" }, { name: "server-side apply creates it" }),
    assert("result is changed", `${MF} | length == 1`, `${MF}[0].manager == 'manager-00'`),
    cm("value-0", { field_manager: "manager-00" }, { name: "the same apply again" }),
    assert("result is not changed"),
    cm("value-0", { field_manager: "manager-01" }, { name: "a second manager applies the same value" }),
    assert("result is changed", `${MF} | length == 2`),
    cm("value-1", { field_manager: "manager-02" }, { name: "a third changes it", ignore_errors: true }),
    assert("result is failed", "result.reason == 'Conflict'"),
    cm("value-1", { field_manager: "manager-02", force_conflicts: true }, { name: "and forces it" }),
    assert(
      "result is changed",
      `${MF} | length == 1`,
      `${MF}[0].manager == 'manager-02'`,
      "result.result.data.key == 'value-1'",
    ),
  ];
}

/** k8s_waiter's "Remove Pod with very short timeout": wait-pod runs `sleep 10000` as PID 1. */
const SHORT_WAIT_REMOVE = play([
  namespace("wait"),
  k8s({
    definition: {
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "wait-pod", namespace: "wait" },
      spec: podSpec("alpine:3.8", ["sleep", "10000"]),
    },
  }),
  {
    name: "wait-pod runs",
    "kubernetes.core.k8s_info": { kind: "Pod", name: "wait-pod", namespace: "wait" },
    register: "pod",
    until: "pod.resources and pod.resources[0].status.phase == 'Running'",
    retries: 30,
    delay: 1,
  },
  k8s(
    {
      api_version: "v1",
      kind: "Pod",
      name: "wait-pod",
      namespace: "wait",
      state: "absent",
      wait: true,
      wait_sleep: 2,
      wait_timeout: 5,
    },
    { name: "Remove Pod with very short timeout", ignore_errors: true, register: "short_wait_remove_pod" },
  ),
  assert("short_wait_remove_pod is failed"),
  info("Pod", "wait-pod", "wait", "terminating"),
  assert(
    "terminating.resources | length == 1",
    "terminating.resources[0].metadata.deletionTimestamp is defined",
  ),
  {
    name: "wait-pod goes when its grace period is over",
    "kubernetes.core.k8s_info": { kind: "Pod", name: "wait-pod", namespace: "wait" },
    register: "gone",
    until: "gone.resources | length == 0",
    retries: 30,
    delay: 1,
  },
]);

let t: TestCluster;
const failed = (out: string) => /failed=(\d+)/.exec(out)?.[1];

beforeAll(async () => {
  t = await startTestCluster(60);
});
afterAll(() => t?.stop());

describe("kubernetes.core 2.4.0's integration targets, through ansible-playbook", () => {
  it("k8s_waiter: waits succeed for what becomes ready and fail for crashes and made-up images", async () => {
    const r = await playbook(t, t.file("waiter.yml", WAITER));
    expect(r.code, r.out).toBe(0);
    expect(failed(r.out)).toBe("0");
    // the failing waits failed as waits do, not for another reason
    expect(r.out).toMatch(
      /TASK \[a pod of an image no registry has\][\s\S]*?Timed out|Resource creation timed out/,
    );
  }, 400_000);

  it("k8s_rollback: a crashed Deployment and DaemonSet roll back one revision", async () => {
    const r = await playbook(t, t.file("rollback.yml", ROLLBACK));
    expect(r.code, r.out).toBe(0);
    expect(failed(r.out)).toBe("0");
    const events = (
      await t.kubectl(["-n", "testingrollback", "get", "events", "-o", "jsonpath={.items[*].message}"])
    ).stdout;
    expect(events).toContain(
      'Failed to pull image "quay.io/fluentd_elasticsearch/fluentd:v2734894949": rpc error: code = NotFound desc = failed to pull and unpack image "quay.io/fluentd_elasticsearch/fluentd:v2734894949": failed to resolve reference "quay.io/fluentd_elasticsearch/fluentd:v2734894949": quay.io/fluentd_elasticsearch/fluentd:v2734894949: not found',
    );
  }, 400_000);

  it("k8s_apply: a template whose ServiceAccount is gone fails its wait, the old pod serving; NetworkPolicy apply is idempotent", async () => {
    const r = await playbook(t, t.file("apply.yml", APPLY));
    expect(r.code, r.out).toBe(0);
    expect(failed(r.out)).toBe("0");
    const pods = await t.kubectl(["-n", "apply", "get", "pods", "-l", "app=apply-deploy", "--no-headers"]);
    expect(pods.stdout).toMatch(/^apply-deploy-\S+\s+1\/1\s+Running\s/);
    expect(
      (
        await t.kubectl([
          "-n",
          "apply",
          "get",
          "deploy",
          "apply-deploy",
          "-o",
          "jsonpath={.status.availableReplicas}",
        ])
      ).stdout,
    ).toBe("1");
  }, 400_000);
});

describe("k8s_waiter's short_wait_remove_pod, on a cluster at speed 4", () => {
  let slow: TestCluster;
  beforeAll(async () => {
    slow = await startTestCluster(4);
  });
  afterAll(() => slow?.stop());

  it("a delete waited on for less than the grace period of a pod running sleep fails; the pod goes when the grace period is over", async () => {
    const r = await playbook(slow, slow.file("short-wait.yml", SHORT_WAIT_REMOVE));
    expect(r.code, r.out).toBe(0);
    expect(failed(r.out)).toBe("0");
    expect(r.out).toMatch(
      /TASK \[Remove Pod with very short timeout\][\s\S]*?wait-pod\W{0,3}: Timed out waiting on resource/,
    );
  }, 120_000);
});
