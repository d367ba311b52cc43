// The fixes of failures.md work for the agent's identity. The runner's
// own code (src/identity) makes the ServiceAccount, Role and token kubeconfig on the embedded
// cluster; then real kubectl and ansible-playbook, holding only that kubeconfig, apply every kind
// of fix the remediation table lists — and are refused (403, as RBAC answers:
// https://kubernetes.io/docs/reference/access-authn-authz/rbac/) outside the namespace (Chaos
// Mesh's, where the harness's chaos lives, among them) and on changing chaos-mesh.org's kinds.
// Removing the identity revokes the token.
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AgentIdentity, createAgentIdentity } from "../../src/identity/agent.js";
import { KubeClient } from "../../src/kube/client.js";
import { loadKubeConfig } from "../../src/kube/connect.js";
import { startTestCluster, type TestCluster } from "../helpers/cluster.js";
import { deploySystem } from "../sim/helpers/failures.js";

const NS = "shop";
let t: TestCluster;
let id: AgentIdentity;

const asAgent = (args: string[], input?: string) =>
  execa("kubectl", args, { env: { KUBECONFIG: id.kubeconfigPath }, reject: false, input, timeout: 120_000 });

beforeAll(async () => {
  t = await startTestCluster(30, 11);
  await deploySystem(t, "simple-micro", NS);
  await t.kubectl(["create", "namespace", "elsewhere"]);
  const client = new KubeClient(loadKubeConfig({ kubeconfig: t.kubeconfig }).kc);
  id = await createAgentIdentity(client, NS, "namespace");
}, 180_000);
afterAll(() => t?.stop());

describe("the agent's identity", () => {
  it("is a ServiceAccount token in a private kubeconfig, and nothing else", () => {
    expect(id.user).toBe(`system:serviceaccount:${NS}:oncall`);
    expect(statSync(id.kubeconfigPath).mode & 0o777).toBe(0o600);
    const text = readFileSync(id.kubeconfigPath, "utf8");
    expect(text).toMatch(/token: /);
    expect(text).not.toMatch(/client-key-data|client-certificate-data/);
  });

  it("applies the fixes of failures.md in its namespace", async () => {
    const ok = async (args: string[]) => {
      const r = await asAgent(args);
      expect(r.exitCode, `kubectl ${args.join(" ")}: ${r.stderr}`).toBe(0);
      return String(r.stdout);
    };
    await ok(["-n", NS, "set", "resources", "deployment/time-service", "--limits=cpu=600m"]);
    await ok(["-n", NS, "rollout", "status", "deployment/time-service", "--timeout=300s"]);
    await ok(["-n", NS, "rollout", "undo", "deployment/time-service"]);
    await ok(["-n", NS, "rollout", "restart", "deployment/hello-service"]);
    await ok(["-n", NS, "rollout", "status", "deployment/hello-service", "--timeout=300s"]);
    await ok(["-n", NS, "scale", "deployment/hello-service", "--replicas=1"]);
    const pod = (await ok(["-n", NS, "get", "pods", "-l", "app=time-service", "-o", "name"]))
      .trim()
      .split("\n")[0];
    await ok(["-n", NS, "exec", pod.replace("pod/", ""), "--", "cat", "/etc/hostname"]);
    await ok(["-n", NS, "logs", pod]);
    await ok(["-n", NS, "delete", pod, "--wait=false"]);
    await ok(["get", "nodes"]);
    await ok(["-n", NS, "auth", "can-i", "patch", "deployments"]);
    await ok(["-n", NS, "auth", "can-i", "patch", "horizontalpodautoscalers.autoscaling"]);
  }, 300_000);

  it("patches with kubernetes.core as the identity", async () => {
    const playbook = join(t.dir, "patch.yml");
    const { writeFileSync } = await import("node:fs");
    writeFileSync(
      playbook,
      `- hosts: localhost\n  gather_facts: false\n  tasks:\n    - kubernetes.core.k8s:\n        state: patched\n        kind: Deployment\n        name: time-service\n        namespace: ${NS}\n        definition:\n          spec:\n            template:\n              metadata:\n                annotations: {fixed-by: agent}\n`,
    );
    const r = await execa("ansible-playbook", ["-i", "localhost,", "-c", "local", playbook], {
      env: { K8S_AUTH_KUBECONFIG: id.kubeconfigPath, ANSIBLE_NOCOLOR: "1" },
      reject: false,
      timeout: 180_000,
    });
    expect(r.exitCode, String(r.stdout)).toBe(0);
  }, 200_000);

  it("is refused outside its namespace and on changing chaos-mesh.org, with Kubernetes' wording", async () => {
    const no = async (args: string[], re: RegExp, input?: string) => {
      const r = await asAgent(args, input);
      expect(r.exitCode, `kubectl ${args.join(" ")}`).not.toBe(0);
      expect(String(r.stderr)).toMatch(re);
    };
    await no(
      ["-n", "kube-system", "get", "pods"],
      /pods is forbidden: User "system:serviceaccount:shop:oncall" cannot list resource "pods" in API group "" in the namespace "kube-system"/,
    );
    await no(["delete", "namespace", "elsewhere"], /cannot delete resource "namespaces"/);
    // reading Chaos Mesh's kinds in its namespace finds nothing there; Chaos Mesh's own is not its
    expect(String((await asAgent(["-n", NS, "get", "podchaos"])).stderr)).toMatch(/No resources found/);
    await no(
      ["-n", NS, "create", "-f", "-"],
      /cannot create resource "podchaos" in API group "chaos-mesh.org"/,
      "apiVersion: chaos-mesh.org/v1alpha1\nkind: PodChaos\nmetadata: {name: x}\nspec: {action: pod-kill, mode: one, selector: {namespaces: [shop]}}\n",
    );
    await no(
      ["-n", "chaos-mesh", "get", "podchaos"],
      /cannot list resource "podchaos" in API group "chaos-mesh.org" in the namespace "chaos-mesh"/,
    );
    await no(["-n", NS, "create", "rolebinding", "x", "--clusterrole=admin", "--user=me"], /forbidden/);
  });

  it("is made for parallel cases at once (their namespaces share one ClusterRole)", async () => {
    const client = new KubeClient(loadKubeConfig({ kubeconfig: t.kubeconfig }).kc);
    for (const ns of ["par-1", "par-2", "par-3"]) await t.kubectl(["create", "namespace", ns]);
    // the shared ClusterRole is absent, as before the first case of a run
    await t.kubectl(["delete", "clusterrole", "oncall", "--ignore-not-found"]);
    const ids = await Promise.all(
      ["par-1", "par-2", "par-3"].map((ns) => createAgentIdentity(client, ns, "namespace")),
    );
    expect(ids.map((x) => x.user)).toEqual(
      ["par-1", "par-2", "par-3"].map((ns) => `system:serviceaccount:${ns}:oncall`),
    );
    await Promise.all(ids.map((x) => x.remove()));
  });

  it("stops working once removed", async () => {
    const path = id.kubeconfigPath;
    const token = /token: (\S+)/.exec(readFileSync(path, "utf8"))?.[1];
    await id.remove();
    const r = await execa(
      "kubectl",
      [
        "--server",
        t.cluster.url,
        "--insecure-skip-tls-verify",
        "--token",
        token ?? "",
        "-n",
        NS,
        "get",
        "pods",
      ],
      {
        reject: false,
        env: { KUBECONFIG: "/dev/null" },
      },
    );
    expect(r.exitCode).not.toBe(0);
    expect(String(r.stderr)).toMatch(/Unauthorized|must be logged in/);
  });
});
