// Through the real kubectl: a ServiceAccount bound to
// `edit` in one namespace gets 403 exactly where Kubernetes would, with the Status message
// kube-apiserver writes. Modelled on:
//  - k8s.io/apiserver/pkg/endpoints/handlers/responsewriters/errors.go (forbiddenMessage)
//  - k8s.io/apiserver/pkg/endpoints/request/requestinfo.go (verbs: list, deletecollection, ...)
//  - plugin/pkg/auth/authorizer/rbac/bootstrappolicy/policy.go (edit, view, system:basic-user)
//  - k8s.io/apiserver/pkg/endpoints/filters/impersonation.go (the `impersonate` verb)
//  - pkg/registry/core/serviceaccount/storage/token.go (TokenRequest, `kubectl create token`)
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestCluster, type TestCluster } from "../../helpers/cluster.js";
import { AGENT, agentKubeconfig, forbiddenLine, NS, SA } from "./rbac-helpers.js";

let t: TestCluster;
let agent: string;
let token: string;

const as = (kubeconfig: string, args: string[], input?: string) =>
  execa("kubectl", args, { env: { KUBECONFIG: kubeconfig }, input, reject: false, timeout: 60_000 });

const CHAOS = `
apiVersion: chaos-mesh.org/v1alpha1
kind: StressChaos
metadata: {name: burn, namespace: ${NS}}
spec: {mode: one, selector: {namespaces: [${NS}]}, stressors: {cpu: {workers: 1}}}
`;

beforeAll(async () => {
  t = await startTestCluster(30);
  ({ path: agent, token } = await agentKubeconfig(t));
  await t.kubectl(["create", "namespace", "other"]);
});
afterAll(() => t?.stop());

describe("a ServiceAccount with edit in one namespace, through kubectl", () => {
  it("lists pods in its namespace and is refused in kube-system with Kubernetes' message", async () => {
    const ok = await as(agent, ["get", "pods"]);
    expect(ok.exitCode, ok.stderr).toBe(0);
    expect(ok.stderr).toContain(`No resources found in ${NS} namespace.`);
    const no = await as(agent, ["get", "pods", "-n", "kube-system"]);
    expect(no.exitCode).toBe(1);
    expect(no.stderr.trim()).toBe(
      `Error from server (Forbidden): pods is forbidden: ${forbiddenLine("list", "pods", "", 'in the namespace "kube-system"')}`,
    );
  });

  it("may not delete a Namespace, list nodes or create chaos", async () => {
    const del = await as(agent, ["delete", "namespace", "other"]);
    expect(del.stderr.trim()).toBe(
      `Error from server (Forbidden): namespaces "other" is forbidden: ${forbiddenLine("delete", "namespaces", "", 'in the namespace "other"')}`,
    );
    const nodes = await as(agent, ["get", "nodes"]);
    expect(nodes.stderr.trim()).toBe(
      `Error from server (Forbidden): nodes is forbidden: ${forbiddenLine("list", "nodes", "", "at the cluster scope")}`,
    );
    const chaos = await as(agent, ["apply", "-f", "-"], CHAOS);
    expect(chaos.exitCode).toBe(1);
    expect(chaos.stderr).toContain(
      `stresschaos.chaos-mesh.org "burn" is forbidden: ${forbiddenLine("get", "stresschaos", "chaos-mesh.org", `in the namespace "${NS}"`)}`,
    );
    const created = await as(agent, ["create", "-f", "-"], CHAOS);
    expect(created.stderr).toContain(
      `stresschaos.chaos-mesh.org is forbidden: ${forbiddenLine("create", "stresschaos", "chaos-mesh.org", `in the namespace "${NS}"`)}`,
    );
    expect((await t.kubectl(["get", "ns", "other", "-o", "name"])).stdout).toBe("namespace/other");
  });

  it("changes workloads in its namespace and scales them", async () => {
    const r = await as(agent, ["create", "deployment", "web", "--image=nginx:1.25", "--replicas=1"]);
    expect(r.exitCode, r.stderr).toBe(0);
    const s = await as(agent, ["scale", "deployment", "web", "--replicas=2"]);
    expect(s.exitCode, s.stderr).toBe(0);
    expect(s.stdout).toBe("deployment.apps/web scaled");
    const roles = await as(agent, ["create", "role", "x", "--verb=get", "--resource=pods"]);
    expect(roles.stderr).toContain(
      `roles.rbac.authorization.k8s.io is forbidden: ${forbiddenLine("create", "roles", "rbac.authorization.k8s.io", `in the namespace "${NS}"`)}`,
    );
  });

  it("answers kubectl auth can-i and can-i --list", async () => {
    const can = async (...args: string[]) => (await as(agent, ["auth", "can-i", ...args])).stdout.trim();
    expect(await can("list", "pods")).toBe("yes");
    expect(await can("create", "pods/exec")).toBe("yes");
    expect(await can("create", "pods", "--subresource=eviction")).toBe("yes");
    expect(await can("patch", "deployments/scale")).toBe("yes");
    expect(await can("list", "pods", "-n", "kube-system")).toBe("no");
    expect(await can("delete", "namespaces")).toBe("no");
    expect(await can("create", "stresschaos.chaos-mesh.org")).toBe("no");
    expect(await can("get", "pods.metrics.k8s.io")).toBe("yes");
    const list = (await as(agent, ["auth", "can-i", "--list"])).stdout;
    expect(list).toMatch(/^Resources\s+Non-Resource URLs\s+Resource Names\s+Verbs$/m);
    expect(list).toMatch(
      /^pods\/exec\s+\[\]\s+\[\]\s+\[get list watch create delete deletecollection patch update\]$/m,
    );
    expect(list).toMatch(/^selfsubjectaccessreviews\.authorization\.k8s\.io\s+\[\]\s+\[\]\s+\[create\]$/m);
    expect(list).toMatch(/^\s+\[\/version\]\s+\[\]\s+\[get\]$/m);
    expect(list).not.toContain("chaos-mesh.org");
    // the admin is in system:masters: everything
    expect((await t.kubectl(["auth", "can-i", "delete", "namespaces"])).stdout.trim()).toBe("yes");
  });

  it("says who it is", async () => {
    const who = await as(agent, [
      "auth",
      "whoami",
      "-o",
      "jsonpath={.status.userInfo.username} {.status.userInfo.groups}",
    ]);
    expect(who.stdout).toBe(
      `${AGENT} ["system:serviceaccounts","system:serviceaccounts:${NS}","system:authenticated"]`,
    );
    const admin = await t.kubectl([
      "auth",
      "whoami",
      "-o",
      "jsonpath={.status.userInfo.username} {.status.userInfo.groups}",
    ]);
    expect(admin.stdout).toBe('system:admin ["system:masters","system:authenticated"]');
  });

  it("lets the admin impersonate with --as and refuses the ServiceAccount", async () => {
    const viaAdmin = await t.kubectl(["--as", AGENT, "get", "pods", "-n", "kube-system"], { reject: false });
    expect(viaAdmin.stderr.trim()).toBe(
      `Error from server (Forbidden): pods is forbidden: ${forbiddenLine("list", "pods", "", 'in the namespace "kube-system"')}`,
    );
    const asJane = await t.kubectl([
      "--as",
      "jane",
      "--as-group",
      "devs",
      "auth",
      "whoami",
      "-o",
      "jsonpath={.status.userInfo}",
    ]);
    expect(JSON.parse(asJane.stdout)).toEqual({ username: "jane", groups: ["devs", "system:authenticated"] });
    const bySa = await as(agent, ["--as", "system:admin", "get", "pods"]);
    expect(bySa.stderr.trim()).toBe(
      `Error from server (Forbidden): users "system:admin" is forbidden: ${forbiddenLine("impersonate", "users", "", "at the cluster scope")}`,
    );
    const group = await as(agent, ["--as", AGENT, "--as-group", "system:masters", "get", "pods"]);
    expect(group.stderr.trim()).toBe(
      `Error from server (Forbidden): groups "system:masters" is forbidden: ${forbiddenLine("impersonate", "groups", "", "at the cluster scope")}`,
    );
  });

  it("creates tokens that stop working when the ServiceAccount is deleted", async () => {
    await t.kubectl(["create", "serviceaccount", "short-lived", "-n", NS]);
    await t.kubectl([
      "create",
      "rolebinding",
      "short-view",
      "-n",
      NS,
      "--clusterrole=view",
      `--serviceaccount=${NS}:short-lived`,
    ]);
    const out = await t.kubectl(["create", "token", "short-lived", "-n", NS, "-o", "json"]);
    const tr = JSON.parse(out.stdout);
    expect(tr).toMatchObject({
      kind: "TokenRequest",
      apiVersion: "authentication.k8s.io/v1",
      spec: { expirationSeconds: 3600 },
    });
    expect(tr.status.expirationTimestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    const short = t.file(
      "short.kubeconfig",
      (await import("node:fs")).readFileSync(agent, "utf8").replace(token, tr.status.token),
    );
    expect((await as(short, ["get", "pods"])).exitCode).toBe(0);
    const denied = await as(short, ["delete", "pods", "--all"]);
    // kubectl deletes --all one by one; view allows the list, not the deletes
    expect(denied.stderr).toMatch(
      new RegExp(
        `pods "web-\\S+" is forbidden: User "system:serviceaccount:${NS}:short-lived" cannot delete resource "pods"`,
      ),
    );
    await t.kubectl(["delete", "serviceaccount", "short-lived", "-n", NS]);
    const gone = await as(short, ["get", "pods"]);
    expect(gone.exitCode).toBe(1);
    expect(gone.stderr.trim()).toBe("error: You must be logged in to the server (Unauthorized)");
    // too short a token is refused as the API server refuses it
    const tiny = await t.kubectl(["create", "token", SA, "-n", NS, "--duration=1m"], { reject: false });
    expect(tiny.stderr).toContain("may not specify a duration less than 10 minutes");
  });

  it("refuses a namespace admin a binding that grants more than it holds (no escalation)", async () => {
    // pkg/registry/rbac/validation/rule.go ConfirmNoEscalation
    await t.kubectl(["create", "serviceaccount", "ns-admin", "-n", NS]);
    await t.kubectl([
      "create",
      "rolebinding",
      "ns-admin",
      "-n",
      NS,
      "--clusterrole=admin",
      `--serviceaccount=${NS}:ns-admin`,
    ]);
    const tok = (await t.kubectl(["create", "token", "ns-admin", "-n", NS])).stdout.trim();
    const adminKc = t.file(
      "ns-admin.kubeconfig",
      (await import("node:fs")).readFileSync(agent, "utf8").replace(token, tok),
    );
    const view = await as(adminKc, [
      "create",
      "rolebinding",
      "also-view",
      "--clusterrole=view",
      `--serviceaccount=${NS}:default`,
    ]);
    expect(view.exitCode, view.stderr).toBe(0);
    const up = await as(adminKc, [
      "create",
      "rolebinding",
      "up",
      "--clusterrole=cluster-admin",
      `--serviceaccount=${NS}:ns-admin`,
    ]);
    expect(up.exitCode).toBe(1);
    expect(up.stderr).toContain(
      `rolebindings.rbac.authorization.k8s.io "up" is forbidden: user "system:serviceaccount:${NS}:ns-admin" (groups=["system:serviceaccounts" "system:serviceaccounts:${NS}" "system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n{APIGroups:["*"], Resources:["*"], Verbs:["*"]}`,
    );
    const role = await as(adminKc, [
      "create",
      "role",
      "chaos",
      "--verb=create",
      "--resource=stresschaos.chaos-mesh.org",
    ]);
    expect(role.stderr).toContain(
      'is attempting to grant RBAC permissions not currently held:\n{APIGroups:["chaos-mesh.org"], Resources:["stresschaos"], Verbs:["create"]}',
    );
  });

  it("lists RoleBindings with their role and subjects", async () => {
    const rb = await t.kubectl(["get", "rolebindings", "-n", NS, "-o", "wide"]);
    expect(rb.stdout).toMatch(/^NAME\s+ROLE\s+AGE\s+USERS\s+GROUPS\s+SERVICEACCOUNTS$/m);
    expect(rb.stdout).toMatch(new RegExp(`^agent-edit\\s+ClusterRole/edit\\s+\\S+\\s+${NS}/${SA}$`, "m"));
    const roles = await t.kubectl(["get", "clusterroles", "view", "edit", "admin", "cluster-admin"]);
    expect(roles.stdout).toMatch(/^NAME\s+CREATED AT$/m);
    expect(roles.stdout.split("\n")).toHaveLength(5);
    // view aggregates metrics-server's reader, edit aggregates view, admin aggregates edit
    const view = JSON.parse((await t.kubectl(["get", "clusterrole", "admin", "-o", "json"])).stdout);
    const groups = new Set(view.rules.flatMap((r: { apiGroups: string[] }) => r.apiGroups));
    expect([...groups].sort()).toEqual(
      [
        "",
        "apps",
        "authorization.k8s.io",
        "autoscaling",
        "batch",
        "coordination.k8s.io",
        "discovery.k8s.io",
        "extensions",
        "metrics.k8s.io",
        "networking.k8s.io",
        "policy",
        "rbac.authorization.k8s.io",
      ].sort(),
    );
  });
});
