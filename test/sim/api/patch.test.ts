import { describe, expect, it } from "vitest";
import { applyPatch, type PatchType, parsePatchBody, patchTypeOf } from "../../../src/sim/api/patch/index.js";
import { ApiError } from "../../../src/sim/api/status.js";
import type { Chaos, Deployment, PodStatus, Service } from "../../../src/sim/core/objects.js";
import type { KObject, ResourceType } from "../../../src/sim/core/types.js";

const DEPLOYMENTS: ResourceType = {
  group: "apps",
  version: "v1",
  resource: "deployments",
  kind: "Deployment",
  singular: "deployment",
  namespaced: true,
  verbs: ["get", "patch"],
};
const SERVICES: ResourceType = {
  ...DEPLOYMENTS,
  group: "",
  resource: "services",
  kind: "Service",
  singular: "service",
};
const PODS: ResourceType = { ...DEPLOYMENTS, group: "", resource: "pods", kind: "Pod", singular: "pod" };
const STRESS: ResourceType = {
  ...DEPLOYMENTS,
  group: "chaos-mesh.org",
  version: "v1alpha1",
  resource: "stresschaos",
  kind: "StressChaos",
  singular: "stresschaos",
  custom: true,
};

function deployment(): Deployment {
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: {
      name: "web",
      namespace: "shop",
      uid: "u-1",
      resourceVersion: "7",
      generation: 2,
      labels: { app: "web", tier: "front" },
      finalizers: ["a.example/x", "b.example/y"],
    },
    spec: {
      replicas: 2,
      selector: { matchLabels: { app: "web" } },
      strategy: { type: "RollingUpdate", rollingUpdate: { maxSurge: "25%", maxUnavailable: "25%" } },
      template: {
        metadata: { labels: { app: "web" } },
        spec: {
          containers: [
            {
              name: "web",
              image: "nginx:1.25",
              args: ["--port", "8080"],
              ports: [{ containerPort: 8080, protocol: "TCP" }],
              env: [
                { name: "A", value: "1" },
                { name: "B", value: "2" },
              ],
              resources: { limits: { cpu: "500m", memory: "256Mi" }, requests: { cpu: "100m" } },
              volumeMounts: [{ name: "conf", mountPath: "/etc/conf" }],
            },
            { name: "sidecar", image: "envoy:1.30" },
          ],
          volumes: [{ name: "conf", configMap: { name: "web-conf" } }],
          tolerations: [{ key: "k", operator: "Exists" }],
        },
      },
    },
    status: {
      conditions: [
        { type: "Available", status: "True" },
        { type: "Progressing", status: "True" },
      ],
    },
  };
}

function service(): Service {
  return {
    apiVersion: "v1",
    kind: "Service",
    metadata: { name: "web", namespace: "shop", uid: "u-2" },
    spec: {
      selector: { app: "web" },
      ports: [
        { name: "http", port: 80, targetPort: 8080, protocol: "TCP" },
        { name: "metrics", port: 9090, targetPort: 9090, protocol: "TCP" },
      ],
    },
  };
}

function stressChaos(): Chaos {
  return {
    apiVersion: "chaos-mesh.org/v1alpha1",
    kind: "StressChaos",
    metadata: { name: "cpu-hog", namespace: "shop", uid: "u-3", finalizers: ["chaos-mesh/records"] },
    spec: {
      mode: "one",
      duration: "10m",
      selector: { namespaces: ["shop"], labelSelectors: { app: "web" } },
      stressors: { cpu: { workers: 2, load: 80 } },
    },
  };
}

/** Applies and also checks that the live object was left alone; the result is read as the same kind. */
function patch<T extends KObject>(live: T, type: PatchType, body: unknown, rt = DEPLOYMENTS): T {
  const before = structuredClone(live);
  const out = applyPatch(live, type, body, rt) as T;
  expect(live).toEqual(before);
  return out;
}

function apiError(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (err) {
    if (err instanceof ApiError) return err;
    throw err;
  }
  throw new Error("expected an ApiError");
}

const containersOf = (o: Deployment) => o.spec.template.spec!.containers;
const podSpec = (spec: unknown) => ({ spec: { template: { spec } } });

describe("patchTypeOf", () => {
  it("maps the four patch media types and ignores parameters", () => {
    expect(patchTypeOf("application/strategic-merge-patch+json")).toBe("strategic");
    expect(patchTypeOf("application/merge-patch+json; charset=utf-8")).toBe("merge");
    expect(patchTypeOf("application/json-patch+json")).toBe("json");
    expect(patchTypeOf("application/apply-patch+yaml")).toBe("apply");
    expect(patchTypeOf("application/json")).toBeUndefined();
    expect(patchTypeOf(undefined)).toBeUndefined();
  });
});

describe("parsePatchBody", () => {
  it("answers 400 for malformed JSON", () => {
    for (const type of ["strategic", "merge", "json"] as const) {
      const err = apiError(() => parsePatchBody(type, '{"spec": '));
      expect(err.code).toBe(400);
      expect(err.reason).toBe("BadRequest");
      expect(err.message).toMatch(/^error decoding patch: /);
    }
  });

  it("reads YAML or JSON for apply", () => {
    expect(parsePatchBody("apply", "spec:\n  replicas: 3\n")).toEqual({ spec: { replicas: 3 } });
    expect(parsePatchBody("apply", '{"spec":{"replicas":3}}')).toEqual({ spec: { replicas: 3 } });
    expect(apiError(() => parsePatchBody("apply", "spec: [unclosed")).code).toBe(400);
  });
});

describe("strategic merge patch", () => {
  it("sets one container's image as `kubectl set image` does, keeping the rest", () => {
    const out = patch(
      deployment(),
      "strategic",
      podSpec({
        "$setElementOrder/containers": [{ name: "web" }, { name: "sidecar" }],
        containers: [{ name: "web", image: "nginx:1.26" }],
      }),
    );
    const expected = deployment();
    expected.spec.template.spec!.containers[0].image = "nginx:1.26";
    expect(out).toEqual(expected);
  });

  it("merges `kubectl set resources` into the named container only", () => {
    const out = patch(
      deployment(),
      "strategic",
      podSpec({ containers: [{ name: "web", resources: { limits: { memory: "512Mi" } } }] }),
    );
    const [web, sidecar] = containersOf(out);
    expect(web.resources).toEqual({ limits: { cpu: "500m", memory: "512Mi" }, requests: { cpu: "100m" } });
    expect(web.image).toBe("nginx:1.25");
    expect(web.env).toHaveLength(2);
    expect(sidecar).toEqual({ name: "sidecar", image: "envoy:1.30" });
  });

  it("adds, updates and deletes env vars by name", () => {
    const out = patch(
      deployment(),
      "strategic",
      podSpec({
        containers: [
          {
            name: "web",
            "$setElementOrder/env": [{ name: "A" }, { name: "C" }],
            env: [
              { name: "A", value: "10" },
              { name: "C", value: "3" },
              { name: "B", $patch: "delete" },
            ],
          },
        ],
      }),
    );
    expect(containersOf(out)[0].env).toEqual([
      { name: "A", value: "10" },
      { name: "C", value: "3" },
    ]);
  });

  it("puts a new element first when the patch gives no order, as kube does", () => {
    const out = patch(
      deployment(),
      "strategic",
      podSpec({ containers: [{ name: "web", env: [{ name: "Z", value: "0" }] }] }),
    );
    expect(containersOf(out)[0].env!.map((e) => e.name)).toEqual(["Z", "A", "B"]);
  });

  it("deletes a container with $patch: delete", () => {
    const out = patch(
      deployment(),
      "strategic",
      podSpec({ containers: [{ name: "sidecar", $patch: "delete" }] }),
    );
    expect(containersOf(out).map((c) => c.name)).toEqual(["web"]);
  });

  it("orders a merged list by $setElementOrder", () => {
    const out = patch(
      deployment(),
      "strategic",
      podSpec({
        "$setElementOrder/containers": [{ name: "sidecar" }, { name: "logger" }, { name: "web" }],
        containers: [{ name: "logger", image: "fluentbit:3" }],
      }),
    );
    expect(containersOf(out).map((c) => c.name)).toEqual(["sidecar", "logger", "web"]);
    expect(containersOf(out)[2].image).toBe("nginx:1.25");
  });

  it("rejects a patch list whose order contradicts $setElementOrder", () => {
    const body = podSpec({
      "$setElementOrder/containers": [{ name: "web" }, { name: "sidecar" }],
      containers: [
        { name: "sidecar", image: "x" },
        { name: "web", image: "y" },
      ],
    });
    expect(apiError(() => applyPatch(deployment(), "strategic", body, DEPLOYMENTS)).code).toBe(400);
  });

  it("drops live keys missing from $retainKeys", () => {
    const out = patch(deployment(), "strategic", {
      spec: { strategy: { $retainKeys: ["type"], type: "Recreate", rollingUpdate: null } },
    });
    expect(out.spec.strategy).toEqual({ type: "Recreate" });

    const volumes = patch(
      deployment(),
      "strategic",
      podSpec({ volumes: [{ name: "conf", $retainKeys: ["name", "secret"], secret: { secretName: "s" } }] }),
    );
    expect(volumes.spec.template.spec!.volumes).toEqual([{ name: "conf", secret: { secretName: "s" } }]);
  });

  it("answers 422 when the patch sets a key $retainKeys does not list", () => {
    const err = apiError(() =>
      applyPatch(
        deployment(),
        "strategic",
        { spec: { strategy: { $retainKeys: ["type"], foo: 1 } } },
        DEPLOYMENTS,
      ),
    );
    expect([err.code, err.reason]).toEqual([422, "Invalid"]);
  });

  it("removes fields set to null", () => {
    const out = patch(deployment(), "strategic", {
      metadata: { labels: { tier: null } },
      ...podSpec({ containers: [{ name: "web", resources: null }] }),
    });
    expect(out.metadata.labels).toEqual({ app: "web" });
    expect(containersOf(out)[0]).not.toHaveProperty("resources");
  });

  it("merges finalizers as a set and honours $deleteFromPrimitiveList", () => {
    const added = patch(deployment(), "strategic", {
      metadata: { finalizers: ["b.example/y", "c.example/z"] },
    });
    expect(added.metadata.finalizers).toEqual(["a.example/x", "b.example/y", "c.example/z"]);

    const removed = patch(deployment(), "strategic", {
      metadata: { "$deleteFromPrimitiveList/finalizers": ["a.example/x"] },
    });
    expect(removed.metadata.finalizers).toEqual(["b.example/y"]);

    // What kubectl apply sends for [a, b] -> [b, c].
    const applied = patch(deployment(), "strategic", {
      metadata: {
        "$setElementOrder/finalizers": ["b.example/y", "c.example/z"],
        "$deleteFromPrimitiveList/finalizers": ["a.example/x"],
        finalizers: ["c.example/z"],
      },
    });
    expect(applied.metadata.finalizers).toEqual(["b.example/y", "c.example/z"]);
  });

  it("replaces lists without a merge key (args, tolerations)", () => {
    const out = patch(deployment(), "strategic", {
      ...podSpec({
        containers: [{ name: "web", args: ["--debug"] }],
        tolerations: [{ key: "other", operator: "Exists" }],
      }),
    });
    expect(containersOf(out)[0].args).toEqual(["--debug"]);
    expect(out.spec.template.spec!.tolerations).toEqual([{ key: "other", operator: "Exists" }]);
  });

  it("merges container ports by containerPort and service ports by port", () => {
    const dep = patch(
      deployment(),
      "strategic",
      podSpec({ containers: [{ name: "web", ports: [{ containerPort: 9090 }] }] }),
    );
    expect(containersOf(dep)[0].ports).toEqual([
      { containerPort: 9090 },
      { containerPort: 8080, protocol: "TCP" },
    ]);

    const svc = patch(
      service(),
      "strategic",
      { spec: { ports: [{ port: 80, targetPort: 8081 }] } },
      SERVICES,
    );
    expect(svc.spec.ports).toEqual([
      { name: "http", port: 80, targetPort: 8081, protocol: "TCP" },
      { name: "metrics", port: 9090, targetPort: 9090, protocol: "TCP" },
    ]);
  });

  it("merges status conditions by type", () => {
    const out = patch(deployment(), "strategic", {
      status: { conditions: [{ type: "Progressing", status: "False" }] },
    });
    expect(out.status!.conditions).toEqual([
      { type: "Available", status: "True" },
      { type: "Progressing", status: "False" },
    ]);
    const pod: KObject & { status: PodStatus } = {
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "p" },
      status: { conditions: [{ type: "Ready", status: "True" }] },
    };
    const readied = patch(
      pod,
      "strategic",
      { status: { conditions: [{ type: "PodScheduled", status: "True" }] } },
      PODS,
    );
    expect(readied.status.conditions).toHaveLength(2);
  });

  it("replaces a map or a whole list with $patch: replace", () => {
    const out = patch(deployment(), "strategic", {
      metadata: { labels: { $patch: "replace", app: "shop" } },
      ...podSpec({ containers: [{ name: "only", image: "busybox" }, { $patch: "replace" }] }),
    });
    expect(out.metadata.labels).toEqual({ app: "shop" });
    expect(containersOf(out)).toEqual([{ name: "only", image: "busybox" }]);
  });

  it("answers 415 for a custom resource", () => {
    const err = apiError(() => applyPatch(stressChaos(), "strategic", { spec: { duration: "1m" } }, STRESS));
    expect([err.code, err.reason]).toEqual([415, "UnsupportedMediaType"]);
  });
});

describe("JSON merge patch", () => {
  it("merges objects, replaces arrays and deletes nulls on a custom resource", () => {
    const out = patch(
      stressChaos(),
      "merge",
      {
        spec: {
          duration: "5m",
          selector: { namespaces: ["shop", "ops"], labelSelectors: null },
          stressors: { cpu: { load: 50 } },
        },
      },
      STRESS,
    );
    expect(out.spec).toEqual({
      mode: "one",
      duration: "5m",
      selector: { namespaces: ["shop", "ops"] },
      stressors: { cpu: { workers: 2, load: 50 } },
    });
    expect(out.metadata.finalizers).toEqual(["chaos-mesh/records"]);
  });

  it("replaces keyed lists too, unlike strategic merge", () => {
    const out = patch(deployment(), "merge", podSpec({ containers: [{ name: "web", image: "nginx:1.26" }] }));
    expect(containersOf(out)).toEqual([{ name: "web", image: "nginx:1.26" }]);
  });

  it("answers 400 for a body that is not an object", () => {
    expect(apiError(() => applyPatch(deployment(), "merge", [1], DEPLOYMENTS)).code).toBe(400);
  });
});

describe("JSON patch", () => {
  it("applies add, replace and remove", () => {
    const out = patch(deployment(), "json", [
      { op: "replace", path: "/spec/replicas", value: 5 },
      { op: "add", path: "/metadata/labels/canary", value: "yes" },
      { op: "remove", path: "/spec/template/spec/containers/1" },
      { op: "test", path: "/spec/replicas", value: 5 },
    ]);
    expect(out.spec.replicas).toBe(5);
    expect(out.metadata.labels?.canary).toBe("yes");
    expect(containersOf(out)).toHaveLength(1);
  });

  it("answers 422 when an operation cannot apply", () => {
    const failed = apiError(() =>
      applyPatch(deployment(), "json", [{ op: "test", path: "/spec/replicas", value: 9 }], DEPLOYMENTS),
    );
    expect([failed.code, failed.reason]).toEqual([422, "Invalid"]);
    expect(failed.details?.causes?.[0].message).toBe("testing value /spec/replicas failed: test failed");

    const missing = apiError(() =>
      applyPatch(deployment(), "json", [{ op: "remove", path: "/spec/nope" }], DEPLOYMENTS),
    );
    expect(missing.code).toBe(422);
  });

  it("answers 400 for a body that is not an array", () => {
    const err = apiError(() =>
      applyPatch(deployment(), "json", { op: "add", path: "/x", value: 1 }, DEPLOYMENTS),
    );
    expect([err.code, err.reason]).toEqual([400, "BadRequest"]);
  });
});

describe("server-side apply (approximated)", () => {
  it("merges the applied object like a strategic patch on built-in kinds", () => {
    const applied = {
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name: "web", managedFields: [{ manager: "kubectl" }] },
      spec: { replicas: 3, template: { spec: { containers: [{ name: "web", image: "nginx:1.27" }] } } },
    };
    const out = patch(deployment(), "apply", applied);
    expect(out.spec.replicas).toBe(3);
    expect(containersOf(out).map((c) => c.image)).toEqual(["nginx:1.27", "envoy:1.30"]);
    expect(out.metadata.managedFields).toBeUndefined();
  });

  it("JSON-merges custom resources", () => {
    const out = patch(stressChaos(), "apply", { spec: { selector: { namespaces: ["ops"] } } }, STRESS);
    expect(out.spec.selector).toEqual({ namespaces: ["ops"], labelSelectors: { app: "web" } });
  });
});

describe("identity", () => {
  it("keeps apiVersion, kind and identity fields the patch drops or rewrites", () => {
    const out = patch(
      stressChaos(),
      "merge",
      { apiVersion: "v9", kind: "Other", metadata: { uid: null, namespace: null } },
      STRESS,
    );
    expect(out.apiVersion).toBe("chaos-mesh.org/v1alpha1");
    expect(out.kind).toBe("StressChaos");
    expect(out.metadata).toMatchObject({ name: "cpu-hog", namespace: "shop", uid: "u-3" });
  });

  it("leaves a cluster-scoped object without a namespace", () => {
    const node: KObject = { apiVersion: "v1", kind: "Node", metadata: { name: "n1", uid: "u-4" } };
    const nodes: ResourceType = {
      ...PODS,
      resource: "nodes",
      kind: "Node",
      singular: "node",
      namespaced: false,
    };
    const out = patch(node, "merge", { metadata: { namespace: "shop", labels: { zone: "a" } } }, nodes);
    expect(out.metadata).toEqual({ name: "n1", uid: "u-4", labels: { zone: "a" } });
  });

  it("answers 400 for a new name or namespace and 422 for a new uid", () => {
    const rename = apiError(() =>
      applyPatch(deployment(), "merge", { metadata: { name: "other" } }, DEPLOYMENTS),
    );
    expect(rename.code).toBe(400);
    expect(rename.message).toContain("does not match the name on the URL");
    const move = apiError(() =>
      applyPatch(deployment(), "strategic", { metadata: { namespace: "x" } }, DEPLOYMENTS),
    );
    expect(move.code).toBe(400);
    const uid = apiError(() =>
      applyPatch(deployment(), "json", [{ op: "replace", path: "/metadata/uid", value: "u-9" }], DEPLOYMENTS),
    );
    expect([uid.code, uid.reason]).toEqual([422, "Invalid"]);
    expect(uid.message).toContain('Deployment.apps "web" is invalid: metadata.uid');
  });
});

describe("a patch that changes nothing", () => {
  it("returns an object deep-equal to the live one, for every patch type", () => {
    const live = deployment();
    const same = {
      spec: { replicas: 2, template: { spec: { containers: [{ name: "web", image: "nginx:1.25" }] } } },
    };
    expect(patch(live, "strategic", same)).toEqual(live);
    expect(patch(live, "merge", { spec: { replicas: 2 } })).toEqual(live);
    expect(patch(live, "json", [{ op: "test", path: "/spec/replicas", value: 2 }])).toEqual(live);
    expect(
      patch(live, "apply", { apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "web" }, ...same }),
    ).toEqual(live);
    expect(patch(live, "strategic", {})).toEqual(live);
  });
});
