// The rest of the real-client matrix: @kubernetes/client-node and ansible's
// kubernetes.core (the Python kubernetes client) with a ServiceAccount's kubeconfig get 403
// exactly where kube-apiserver answers it, and exec over WebSocket is authorised as Kubernetes
// authorises it: `get` from the GET method plus `create` on pods/exec (KEP-4006, the
// AuthorizePodWebsocketUpgradeCreatePermission gate, kubernetes PR #134577). Modelled on
// k8s.io/apiserver/pkg/endpoints/handlers/responsewriters/errors.go and
// plugin/pkg/auth/authorizer/rbac/bootstrappolicy/policy.go (edit, view).
import { Writable } from "node:stream";
import * as k8s from "@kubernetes/client-node";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { kubeconfigYaml } from "../../../src/sim/cluster/kubeconfig.js";
import { startTestCluster, type TestCluster } from "../../helpers/cluster.js";
import { podManifest, runningPod } from "../helpers/exec.js";
import { AGENT, agentKubeconfig, forbiddenLine, NS } from "./rbac-helpers.js";

let t: TestCluster;
let agent: string;
let viewer: string;

class Sink extends Writable {
  text = "";
  override _write(chunk: Buffer, _enc: string, cb: () => void) {
    this.text += chunk.toString("utf8");
    cb();
  }
}

const load = (path: string) => {
  const kc = new k8s.KubeConfig();
  kc.loadFromFile(path);
  return kc;
};

beforeAll(async () => {
  t = await startTestCluster(30);
  ({ path: agent } = await agentKubeconfig(t));
  await t.kubectl(["create", "serviceaccount", "viewer", "-n", NS]);
  await t.kubectl([
    "create",
    "rolebinding",
    "viewer",
    "-n",
    NS,
    "--clusterrole=view",
    `--serviceaccount=${NS}:viewer`,
  ]);
  const token = (await t.kubectl(["create", "token", "viewer", "-n", NS])).stdout.trim();
  viewer = t.file(
    "viewer.kubeconfig",
    kubeconfigYaml(t.cluster.url, { ca: t.cluster.auth.pki.ca, user: { token } }, NS),
  );
  await runningPod(
    t.cluster,
    podManifest(NS, "api", [
      { name: "app", image: "python:3.12", command: ["python3", "-m", "http.server", "8000"] },
    ]),
  );
}, 120_000);
afterAll(() => t?.stop());

describe("@kubernetes/client-node with a ServiceAccount's kubeconfig", () => {
  it("lists in its namespace and gets a 403 Status elsewhere", async () => {
    const core = load(agent).makeApiClient(k8s.CoreV1Api);
    const pods = await core.listNamespacedPod({ namespace: NS });
    expect(pods.items.map((p) => p.metadata?.name)).toEqual(["api"]);
    const err = await core.listNamespacedPod({ namespace: "kube-system" }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(k8s.ApiException);
    const e = err as k8s.ApiException<string>;
    expect(e.code).toBe(403);
    expect(JSON.parse(e.body)).toMatchObject({
      kind: "Status",
      status: "Failure",
      reason: "Forbidden",
      code: 403,
      details: { kind: "pods" },
      message: `pods is forbidden: ${forbiddenLine("list", "pods", "", 'in the namespace "kube-system"')}`,
    });
    const del = await core.deleteNamespace({ name: "default" }).catch((x: k8s.ApiException<string>) => x);
    expect((del as k8s.ApiException<string>).code).toBe(403);
  });

  it("execs as edit allows, and not as view", async () => {
    const run = async (path: string) => {
      const out = new Sink();
      const errOut = new Sink();
      let status: k8s.V1Status | undefined;
      const done = new Promise<void>((resolve, reject) => {
        new k8s.Exec(load(path))
          .exec(NS, "api", "app", ["echo", "hi"], out, errOut, null, false, (s) => {
            status = s;
            resolve();
          })
          .then((ws) => ws.on("close", () => resolve()), reject);
      });
      await done;
      return { out: out.text, status };
    };
    const ok = await run(agent);
    expect(ok.out).toBe("hi\n");
    expect(ok.status?.status).toBe("Success");
    const refused = await run(viewer).then(
      () => "opened",
      (e: unknown) => String((e as Error)?.message ?? e),
    );
    expect(refused).not.toBe("opened");
    // kubectl shows the Status the upgrade was refused with
    const k = await execa("kubectl", ["exec", "api", "--", "echo", "hi"], {
      env: { KUBECONFIG: viewer },
      reject: false,
    });
    expect(k.stderr).toContain(
      `pods "api" is forbidden: User "system:serviceaccount:${NS}:viewer" cannot create resource "pods/exec" in API group "" in the namespace "${NS}"`,
    );
  });

  it("fails against a server whose CA it does not trust", async () => {
    const { cluster } = t;
    const other = kubeconfigYaml(cluster.url, {
      ca: new (await import("../../../src/sim/auth/pki.js")).ClusterPki().ca,
      user: { token: "x" },
    });
    const kc = new k8s.KubeConfig();
    kc.loadFromString(other);
    const err = await kc
      .makeApiClient(k8s.CoreV1Api)
      .listNamespace()
      .then(
        () => undefined,
        (e: unknown) => e as { code?: string; cause?: { code?: string } },
      );
    expect(JSON.stringify(err)).toMatch(/SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_VERIFY_LEAF_SIGNATURE/);
  });
});

const PLAYBOOK = `
- hosts: localhost
  gather_facts: false
  tasks:
    - name: own namespace
      kubernetes.core.k8s_info: {kind: Pod, namespace: ${NS}}
      register: own
    - ansible.builtin.assert: {that: [own.resources | length == 1]}
    - name: kube-system
      kubernetes.core.k8s_info: {kind: Pod, namespace: kube-system}
      register: system
      ignore_errors: true
    - name: delete a namespace
      kubernetes.core.k8s: {state: absent, api_version: v1, kind: Namespace, name: default}
      register: ns
      ignore_errors: true
    - name: chaos
      kubernetes.core.k8s:
        state: present
        definition:
          apiVersion: chaos-mesh.org/v1alpha1
          kind: StressChaos
          metadata: {name: burn, namespace: ${NS}}
          spec: {mode: one, selector: {namespaces: [${NS}]}, stressors: {cpu: {workers: 1}}}
      register: chaos
      ignore_errors: true
    - name: scale in its namespace
      kubernetes.core.k8s:
        state: present
        definition:
          apiVersion: v1
          kind: ConfigMap
          metadata: {name: fixed, namespace: ${NS}}
          data: {a: "1"}
    - ansible.builtin.debug: {msg: "{{ [system.msg | default(''), ns.msg | default(''), chaos.msg | default('')] | to_json }}"}
`;

describe("ansible's kubernetes.core with a ServiceAccount's kubeconfig", () => {
  it("is refused where Kubernetes refuses it, and writes in its namespace", async () => {
    const inventory = t.file(
      "inventory.ini",
      "[local]\nlocalhost ansible_connection=local ansible_python_interpreter=/usr/bin/python3\n",
    );
    const r = await execa("ansible-playbook", ["-i", inventory, t.file("rbac.yml", PLAYBOOK)], {
      env: {
        K8S_AUTH_KUBECONFIG: agent,
        KUBECONFIG: agent,
        ANSIBLE_NOCOLOR: "1",
        ANSIBLE_LOCALHOST_WARNING: "0",
      },
      reject: false,
      timeout: 240_000,
    });
    const out = String(r.stdout);
    expect(r.exitCode, out).toBe(0);
    expect(out).toMatch(
      /localhost\s+:\s+ok=\d+\s+changed=1\s+unreachable=0\s+failed=0\s+skipped=0\s+rescued=0\s+ignored=3/,
    );
    const unq = out.replace(/\\+"/g, '"');
    expect(unq).toContain(
      `pods is forbidden: ${forbiddenLine("list", "pods", "", 'in the namespace "kube-system"')}`,
    );
    expect(unq).toContain(`namespaces "default" is forbidden: User "${AGENT}" cannot`);
    expect(unq).toContain(
      `stresschaos.chaos-mesh.org "burn" is forbidden: User "${AGENT}" cannot get resource "stresschaos"`,
    );
    expect((await t.kubectl(["get", "cm", "fixed", "-n", NS, "-o", "jsonpath={.data.a}"])).stdout).toBe("1");
  }, 300_000);
});
