// Every write records its field manager in metadata.managedFields, as kube-apiserver's field
// manager does (k8s.io/apimachinery/pkg/util/managedfields, over sigs.k8s.io/structured-merge-diff's
// merge.Updater): kubectl's writes under their fieldManager (kubectl-create, kubectl-client-side-apply,
// kubectl for server-side apply), the cluster's own components as k3s, a status write with its
// subresource. Server-side apply owns exactly what it applies, shares a field applied with the same
// value, and a change to a field another manager owns is a 409 conflict unless forced, when the
// field changes hands. kubectl hides managedFields unless --show-managed-fields.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { startTestCluster, type TestCluster } from "../../helpers/cluster.js";

let t: TestCluster;
const k = (...args: string[]) => t.kubectl(args);

beforeAll(async () => {
  t = await startTestCluster(30);
});
afterAll(() => t?.stop());

interface Entry {
  manager: string;
  operation: string;
  apiVersion: string;
  time: string;
  fieldsType: string;
  fieldsV1: Record<string, unknown>;
  subresource?: string;
}
const managed = async (...what: string[]): Promise<Entry[]> =>
  parse((await k("get", ...what, "-o", "yaml", "--show-managed-fields")).stdout).metadata.managedFields;

describe("managedFields", () => {
  it("records kubectl create as an Update by kubectl-create, hidden from kubectl get -o yaml", async () => {
    await k("create", "configmap", "cm1", "--from-literal=key=v0");
    const [entry, ...more] = await managed("cm", "cm1");
    expect(more).toEqual([]);
    expect(entry).toMatchObject({
      manager: "kubectl-create",
      operation: "Update",
      apiVersion: "v1",
      fieldsType: "FieldsV1",
      fieldsV1: { "f:data": { ".": {}, "f:key": {} } },
    });
    expect(entry.time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect((await k("get", "cm", "cm1", "-o", "yaml")).stdout).not.toContain("managedFields");
  });

  it("gives a Deployment's status to k3s under the status subresource, its spec to the client", async () => {
    await k("create", "deployment", "web", "--image=nginx:1.27");
    await k("rollout", "status", "deployment/web", "--timeout=60s");
    const entries = await managed("deploy", "web");
    const create = entries.find((e) => e.manager === "kubectl-create" && !e.subresource);
    expect(entries.filter((e) => e.manager === "kubectl-create")).toHaveLength(1);
    expect(create?.fieldsV1).toMatchObject({
      "f:spec": {
        "f:template": { "f:spec": { "f:containers": { 'k:{"name":"nginx"}': { ".": {}, "f:image": {} } } } },
      },
    });
    expect(create?.fieldsV1).not.toHaveProperty("f:status");
    const status = entries.find((e) => e.manager === "k3s" && e.subresource === "status");
    expect(status?.fieldsV1).toHaveProperty("f:status");
  });

  it("server-side apply: owns what it applies, conflicts over another manager's field, takes it when forced", async () => {
    const cm = (value: string) =>
      t.file("cm.yaml", `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm1}\ndata: {key: ${value}}\n`);
    const conflict = await t.kubectl(["apply", "--server-side", "-f", cm("v1")], { reject: false });
    expect(conflict.exitCode).toBe(1);
    expect(conflict.stderr).toContain(
      'Apply failed with 1 conflict: conflict with "kubectl-create" using v1: .data.key',
    );
    // the same value is shared, not a conflict
    await k("apply", "--server-side", "-f", cm("v0"));
    expect((await managed("cm", "cm1")).map((e) => `${e.manager}/${e.operation}`)).toEqual([
      "kubectl-create/Update",
      "kubectl/Apply",
    ]);
    const rv = (await k("get", "cm", "cm1", "-o", "jsonpath={.metadata.resourceVersion}")).stdout;
    await k("apply", "--server-side", "-f", cm("v0"));
    expect((await k("get", "cm", "cm1", "-o", "jsonpath={.metadata.resourceVersion}")).stdout).toBe(rv);

    await k("apply", "--server-side", "--force-conflicts", "-f", cm("v1"));
    const after = await managed("cm", "cm1");
    // kubectl-create keeps the map it created; the key is kubectl's alone
    expect(after.map((e) => [e.manager, e.fieldsV1])).toEqual([
      ["kubectl-create", { "f:data": {} }],
      ["kubectl", { "f:data": { "f:key": {} } }],
    ]);
    expect((await k("get", "cm", "cm1", "-o", "jsonpath={.data.key}")).stdout).toBe("v1");
  });

  it("names two managers in one conflict as the apiserver lists them", async () => {
    const cm = (value: string) =>
      t.file("cm2.yaml", `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm2}\ndata: {key: ${value}}\n`);
    await k("apply", "--server-side", "--field-manager=manager-00", "-f", cm("a"));
    await k("apply", "--server-side", "--field-manager=manager-01", "-f", cm("a"));
    const r = await t.kubectl(["apply", "--server-side", "--field-manager=manager-02", "-f", cm("b")], {
      reject: false,
    });
    expect(r.stderr).toContain(
      'Apply failed with 2 conflicts: conflicts with "manager-00":\n- .data.key\nconflicts with "manager-01":\n- .data.key',
    );
  });
});
