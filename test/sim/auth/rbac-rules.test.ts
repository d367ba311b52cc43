// How one RBAC rule matches a request, through kubectl: resourceNames (a named get passes, a
// list does not), subresources (pods/log without pods/exec), "*/scale", and the verbs kubectl's
// requests map to. Modelled on kubernetes pkg/apis/rbac/v1/evaluation_helpers.go
// (ResourceMatches, ResourceNameMatches) and k8s.io/apiserver/pkg/endpoints/request/requestinfo.go.
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { kubeconfigYaml } from "../../../src/sim/cluster/kubeconfig.js";
import { startTestCluster, type TestCluster } from "../../helpers/cluster.js";
import { podManifest, runningPod } from "../helpers/exec.js";

const NS = "rules";
const USER = `system:serviceaccount:${NS}:narrow`;
let t: TestCluster;
let kc: string;

const ROLE = `
apiVersion: v1
kind: ServiceAccount
metadata: {name: narrow, namespace: ${NS}}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: a, namespace: ${NS}}
data: {k: v}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: b, namespace: ${NS}}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: narrow, namespace: ${NS}}
rules:
  - {apiGroups: [""], resources: [configmaps], resourceNames: [a], verbs: [get]}
  - {apiGroups: [""], resources: [pods, pods/log], verbs: [get, list]}
  - {apiGroups: [apps], resources: [deployments], verbs: [get, list]}
  - {apiGroups: [apps], resources: ["*/scale"], verbs: [get, patch, update]}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: narrow, namespace: ${NS}}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: narrow}
subjects: [{kind: ServiceAccount, name: narrow}]
`;

const as = (args: string[]) =>
  execa("kubectl", args, { env: { KUBECONFIG: kc }, reject: false, timeout: 60_000 });
const denied = (verb: string, resource: string, group = "") =>
  `User "${USER}" cannot ${verb} resource "${resource}" in API group "${group}" in the namespace "${NS}"`;

beforeAll(async () => {
  t = await startTestCluster(30);
  await t.kubectl(["create", "namespace", NS]);
  await t.kubectl(["apply", "-f", "-"], { input: ROLE });
  await t.kubectl(["create", "deployment", "web", "-n", NS, "--image=nginx:1.25"]);
  await runningPod(
    t.cluster,
    podManifest(NS, "api", [
      { name: "app", image: "python:3.12", command: ["python3", "-m", "http.server", "8000"] },
    ]),
  );
  const token = (await t.kubectl(["create", "token", "narrow", "-n", NS])).stdout.trim();
  kc = t.file(
    "narrow.kubeconfig",
    kubeconfigYaml(t.cluster.url, { ca: t.cluster.auth.pki.ca, user: { token } }, NS),
  );
}, 120_000);
afterAll(() => t?.stop());

describe("RBAC rule matching through kubectl", () => {
  it("resourceNames allow the named object and nothing else", async () => {
    expect((await as(["get", "cm", "a", "-o", "jsonpath={.data.k}"])).stdout).toBe("v");
    expect((await as(["get", "cm", "b"])).stderr.trim()).toBe(
      `Error from server (Forbidden): configmaps "b" is forbidden: ${denied("get", "configmaps")}`,
    );
    expect((await as(["get", "cm"])).stderr.trim()).toBe(
      `Error from server (Forbidden): configmaps is forbidden: ${denied("list", "configmaps")}`,
    );
  });

  it("pods/log is its own resource: logs yes, exec no", async () => {
    expect((await as(["logs", "api"])).exitCode).toBe(0);
    const exec = await as(["exec", "api", "--", "true"]);
    expect(exec.exitCode).toBe(1);
    expect(exec.stderr).toMatch(
      new RegExp(`pods "api" is forbidden: User "${USER}" cannot \\w+ resource "pods/exec"`),
    );
    const del = await as(["delete", "pod", "api"]);
    expect(del.stderr.trim()).toBe(
      `Error from server (Forbidden): pods "api" is forbidden: ${denied("delete", "pods")}`,
    );
  });

  it('"*/scale" covers deployments/scale but not the deployment itself', async () => {
    const s = await as(["scale", "deployment", "web", "--replicas=3"]);
    expect(s.exitCode, s.stderr).toBe(0);
    expect(
      (await t.kubectl(["get", "deploy", "web", "-n", NS, "-o", "jsonpath={.spec.replicas}"])).stdout,
    ).toBe("3");
    const img = await as(["set", "image", "deployment/web", "nginx=nginx:1.26"]);
    expect(img.stderr).toContain(
      `deployments.apps "web" is forbidden: ${denied("patch", "deployments", "apps")}`,
    );
  });
});
