// apiextensions.k8s.io/v1 CustomResourceDefinitions through real kubectl and
// the HTTP API. Modelled on apiextensions-apiserver: discovery (pkg/apiserver/customresource_discovery_controller.go),
// structural pruning and defaulting (pkg/apiserver/schema/pruning, schema/defaulting; defaults
// apply on write and on read), the status subresource (pkg/registry/customresource/strategy.go:
// the main endpoint keeps the stored status, /status keeps the stored spec), the CRD conditions
// (pkg/controller/status/naming_controller.go "NoConflicts"/"no conflicts found",
// pkg/controller/establish/establishing_controller.go "InitialNamesAccepted"), and printer columns
// (pkg/registry/customresource/tableconvertor). Deleting a CRD deletes its objects
// (pkg/controller/finalizer/crd_finalizer.go).
import * as k8s from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestCluster, type TestCluster } from "../../helpers/cluster.js";

const CRD = `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  scope: Namespaced
  names: {plural: widgets, singular: widget, kind: Widget, shortNames: [wg], categories: [gadgets]}
  versions:
  - name: v1
    served: true
    storage: true
    subresources: {status: {}}
    additionalPrinterColumns:
    - {name: Size, type: integer, jsonPath: .spec.size}
    - {name: Color, type: string, jsonPath: .spec.color}
    - {name: Phase, type: string, jsonPath: .status.phase}
    - {name: Age, type: date, jsonPath: .metadata.creationTimestamp}
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              size: {type: integer, default: 3}
              color: {type: string, default: blue}
              parts:
                type: array
                items:
                  type: object
                  properties:
                    name: {type: string}
                    count: {type: integer, default: 1}
          status:
            type: object
            properties:
              phase: {type: string}
`;

const CLUSTER_CRD = `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: regions.geo.example.com}
spec:
  group: geo.example.com
  scope: Cluster
  names: {plural: regions, kind: Region}
  versions:
  - name: v1alpha1
    served: true
    storage: true
    schema:
      openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}
  - name: v1
    served: true
    storage: false
    schema:
      openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}
`;

let t: TestCluster;
const k = (...args: string[]) => t.kubectl(args).then((r) => r.stdout);
const kn = (...args: string[]) => k("-n", "crd", ...args);
const raw = async (path: string) => JSON.parse(await k("get", "--raw", path));

beforeAll(async () => {
  t = await startTestCluster(30);
  await k("create", "namespace", "crd");
  await k("apply", "-f", t.file("crd.yaml", CRD));
  await k("wait", "--for", "condition=established", "crd/widgets.example.com", "--timeout=30s");
}, 60_000);
afterAll(() => t?.stop());

describe("CustomResourceDefinitions", () => {
  it("reports NamesAccepted and Established with the accepted names", async () => {
    const crd = JSON.parse(await k("get", "crd", "widgets.example.com", "-o", "json"));
    const conds = Object.fromEntries(crd.status.conditions.map((c: { type: string }) => [c.type, c]));
    expect(conds.NamesAccepted).toMatchObject({
      status: "True",
      reason: "NoConflicts",
      message: "no conflicts found",
    });
    expect(conds.Established).toMatchObject({
      status: "True",
      reason: "InitialNamesAccepted",
      message: "the initial names have been accepted",
    });
    expect(crd.status.acceptedNames).toMatchObject({
      plural: "widgets",
      kind: "Widget",
      listKind: "WidgetList",
      shortNames: ["wg"],
    });
    expect(crd.status.storedVersions).toEqual(["v1"]);
    // among k3s's own CRDs (addons.k3s.cattle.io, helmcharts.helm.cattle.io, Traefik's)
    expect(await k("get", "crd")).toMatch(/NAME\s+CREATED AT\n(.*\n)*widgets\.example\.com\s+\d{4}-/);
  });

  it("is in discovery: api-resources, /apis and the group-version's resource list", async () => {
    expect(await k("api-resources", "--api-group=example.com")).toMatch(
      /widgets\s+wg\s+example\.com\/v1\s+true\s+Widget/,
    );
    const groups = await raw("/apis");
    expect(groups.groups.find((g: { name: string }) => g.name === "example.com")).toMatchObject({
      preferredVersion: { groupVersion: "example.com/v1", version: "v1" },
    });
    const list = await raw("/apis/example.com/v1");
    expect(list.resources.map((r: { name: string }) => r.name)).toEqual(["widgets", "widgets/status"]);
    expect(list.resources[0]).toMatchObject({
      singularName: "widget",
      namespaced: true,
      categories: ["gadgets"],
    });
  });

  it("serves the objects with the schema's defaults, pruning unknown fields, in Table form", async () => {
    await kn(
      "apply",
      "-f",
      t.file(
        "w.yaml",
        `
apiVersion: example.com/v1
kind: Widget
metadata: {name: small}
spec: {size: 1, bogus: dropped, parts: [{name: bolt}]}
`,
      ),
    );
    const w = JSON.parse(await kn("get", "widget", "small", "-o", "json"));
    expect(w.spec).toEqual({ size: 1, color: "blue", parts: [{ name: "bolt", count: 1 }] });
    expect(w.metadata.generation).toBe(1);
    expect(await kn("get", "widgets")).toMatch(/NAME\s+SIZE\s+COLOR\s+PHASE\s+AGE\nsmall\s+1\s+blue\s+\d+s/);
    expect(await kn("get", "wg", "-o", "name")).toBe("widget.example.com/small");
    expect(await kn("get", "gadgets", "-o", "name")).toBe("widget.example.com/small");
  });

  it("keeps status on the main endpoint and spec on /status", async () => {
    await kn(
      "patch",
      "widget",
      "small",
      "--type=merge",
      "-p",
      '{"spec":{"size":5},"status":{"phase":"Main"}}',
    );
    let w = JSON.parse(await kn("get", "widget", "small", "-o", "json"));
    expect(w.spec.size).toBe(5);
    expect(w.status).toBeUndefined();
    expect(w.metadata.generation).toBe(2);
    await kn(
      "patch",
      "widget",
      "small",
      "--subresource=status",
      "--type=merge",
      "-p",
      '{"spec":{"size":9},"status":{"phase":"Ready"}}',
    );
    w = JSON.parse(await kn("get", "widget", "small", "-o", "json"));
    expect(w.spec.size).toBe(5);
    expect(w.status).toEqual({ phase: "Ready" });
    expect(w.metadata.generation).toBe(2);
  });

  it("applies a default added to the schema later when the object is read", async () => {
    const crd = CRD.replace(
      "color: {type: string, default: blue}",
      "color: {type: string, default: blue}\n              shape: {type: string, default: round}",
    );
    await k("apply", "-f", t.file("crd2.yaml", crd));
    const w = JSON.parse(await kn("get", "widget", "small", "-o", "json"));
    expect(w.spec.shape).toBe("round");
  });

  it("lists, watches and deletes custom resources through client-node", async () => {
    const kc = new k8s.KubeConfig();
    kc.loadFromFile(t.kubeconfig);
    const custom = kc.makeApiClient(k8s.CustomObjectsApi);
    const group = { group: "example.com", version: "v1", namespace: "crd", plural: "widgets" };
    await custom.createNamespacedCustomObject({
      ...group,
      body: { apiVersion: "example.com/v1", kind: "Widget", metadata: { name: "big" }, spec: { size: 8 } },
    });
    const list = await custom.listNamespacedCustomObject(group);
    expect(list.items.map((w: { metadata: { name: string } }) => w.metadata.name)).toEqual(["big", "small"]);
    const seen: string[] = [];
    const done = new Promise<void>((resolve) => {
      void new k8s.Watch(kc)
        .watch(
          "/apis/example.com/v1/namespaces/crd/widgets",
          {},
          (type, obj) => {
            seen.push(`${type} ${obj.metadata.name}`);
            if (type === "DELETED") resolve();
          },
          () => resolve(),
        )
        .then((ac) => done.then(() => ac.abort()));
    });
    await new Promise((r) => setTimeout(r, 300));
    await custom.deleteNamespacedCustomObject({ ...group, name: "big" });
    await done;
    expect(seen.slice(0, 2).sort()).toEqual(["ADDED big", "ADDED small"]);
    expect(seen.slice(2)).toEqual(["DELETED big"]);
  });

  it("collects a custom resource whose owner is deleted (owner references)", async () => {
    await kn("create", "configmap", "parent");
    const uid = await kn("get", "cm", "parent", "-o", "jsonpath={.metadata.uid}");
    const child = `apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: child\n  ownerReferences: [{apiVersion: v1, kind: ConfigMap, name: parent, uid: ${uid}}]\n`;
    await kn("apply", "-f", t.file("child.yaml", child));
    await kn("delete", "cm", "parent");
    for (let i = 0; i < 50; i++) {
      if ((await t.kubectl(["-n", "crd", "get", "widget", "child"], { reject: false })).exitCode !== 0)
        return;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error("the Widget owned by the deleted ConfigMap was not collected");
  });

  it("serves cluster-scoped custom resources", async () => {
    await k("apply", "-f", t.file("rcrd.yaml", CLUSTER_CRD));
    await k("wait", "--for", "condition=established", "crd/regions.geo.example.com", "--timeout=30s");
    await k(
      "apply",
      "-f",
      t.file(
        "r.yaml",
        "apiVersion: geo.example.com/v1alpha1\nkind: Region\nmetadata: {name: eu}\nspec: {zones: 3}\n",
      ),
    );
    expect(await k("get", "regions")).toMatch(/NAME\s+AGE\neu\s+\d+s/);
    const r = await raw("/apis/geo.example.com/v1alpha1/regions/eu");
    expect(r.spec).toEqual({ zones: 3 });
    expect(r.metadata.namespace).toBeUndefined();
    // both versions serve the one stored object; discovery prefers GA over alpha
    expect((await raw("/apis/geo.example.com/v1/regions/eu")).apiVersion).toBe("geo.example.com/v1");
    const group = (await raw("/apis")).groups.find((g: { name: string }) => g.name === "geo.example.com");
    expect(group.preferredVersion.version).toBe("v1");
    expect(group.versions.map((v: { version: string }) => v.version)).toEqual(["v1", "v1alpha1"]);
  });

  it("refuses a custom resource its schema does not admit, with the field error", async () => {
    const bad = "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: bad}\nspec: {size: big}\n";
    const r = await t.kubectl(["-n", "crd", "apply", "-f", t.file("bad-w.yaml", bad)], { reject: false });
    expect(r.exitCode).not.toBe(0);
    expect(r.stderr).toContain('The Widget "bad" is invalid:');
    expect(r.stderr).toContain(
      'spec.size: Invalid value: "string": spec.size in body must be of type integer: "string"',
    );
  });

  it("keeps serving the built-in Chaos Mesh kinds when a playbook applies their CRD", async () => {
    const chaosCrd = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: podchaos.chaos-mesh.org}
spec:
  group: chaos-mesh.org
  scope: Namespaced
  names: {plural: podchaos, kind: PodChaos}
  versions:
  - {name: v1alpha1, served: true, storage: true, schema: {openAPIV3Schema: {type: object}}}
`;
    await k("apply", "-f", t.file("podchaos-crd.yaml", chaosCrd));
    await k("wait", "--for", "condition=established", "crd/podchaos.chaos-mesh.org", "--timeout=30s");
    const pc =
      "apiVersion: chaos-mesh.org/v1alpha1\nkind: PodChaos\nmetadata: {name: kill}\nspec: {action: pod-kill, mode: one, selector: {namespaces: [crd]}}\n";
    await kn("apply", "-f", t.file("pc.yaml", pc));
    // the built-in kind keeps its fields (the CRD's empty schema would prune them)
    expect(await kn("get", "podchaos", "kill", "-o", "jsonpath={.spec.action}")).toBe("pod-kill");
    await k("delete", "crd", "podchaos.chaos-mesh.org");
    expect(await kn("get", "podchaos", "-o", "name")).toBe("podchaos.chaos-mesh.org/kill");
    await kn("delete", "podchaos", "kill");
  });

  it("refuses a CRD whose name is not plural.group", async () => {
    const bad = CRD.replace("name: widgets.example.com", "name: gizmos.example.com");
    const r = await t.kubectl(["apply", "-f", t.file("bad.yaml", bad)], { reject: false });
    expect(r.exitCode).not.toBe(0);
    expect(r.stderr).toContain(
      'metadata.name: Invalid value: "gizmos.example.com": must be spec.names.plural+"."+spec.group',
    );
  });

  it("deletes a CRD's objects with it and stops serving its resource", async () => {
    await k("delete", "crd", "widgets.example.com");
    const r = await t.kubectl(["-n", "crd", "get", "widgets"], { reject: false });
    expect(r.exitCode).not.toBe(0);
    // kubectl's cached discovery still names the resource, so the list itself answers 404
    expect(r.stderr).toMatch(
      /Error from server \(NotFound\).*the server could not find the requested resource/,
    );
    const gone = await t.kubectl(["get", "--raw", "/apis/example.com/v1/namespaces/crd/widgets/small"], {
      reject: false,
    });
    expect(gone.stderr).toContain("NotFound");
    // re-created, the kind starts empty
    await k("apply", "-f", t.file("crd3.yaml", CRD));
    await k("wait", "--for", "condition=established", "crd/widgets.example.com", "--timeout=30s");
    expect((await t.kubectl(["-n", "crd", "get", "widgets"])).stderr).toContain("No resources found");
  });
});
