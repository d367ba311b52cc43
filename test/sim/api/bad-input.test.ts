// Bad input answers with a Status error and never crashes the server or
// corrupts its store.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { simData } from "../../../src/cli/sim-data.js";
import { EmbeddedCluster } from "../../../src/sim/cluster/cluster.js";
import { rawRequest } from "../../helpers/https.js";

let c: EmbeddedCluster;

async function call(method: string, path: string, body?: string, type = "application/json") {
  // as the admin, over HTTPS (test/helpers/https.ts)
  const res = await rawRequest(c, path, {
    method,
    body,
    headers: body === undefined ? {} : { "Content-Type": type },
  });
  const text = res.text;
  let json: Record<string, unknown> = {};
  try {
    json = JSON.parse(text);
  } catch {
    // watch streams are several lines
  }
  return { code: res.status, json, text };
}

const cm = (name: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name, ...extra }, data: { a: "1" } });

beforeAll(async () => {
  c = new EmbeddedCluster({ ...simData(), speed: 10, watchHistory: 50 });
  await c.listen();
  await call(
    "POST",
    "/api/v1/namespaces",
    JSON.stringify({ apiVersion: "v1", kind: "Namespace", metadata: { name: "bad" } }),
  );
  await call("POST", "/api/v1/namespaces/bad/configmaps", cm("keep"));
});
afterAll(() => c?.stop());

describe("bad input", () => {
  it("malformed JSON is a 400 Status", async () => {
    const r = await call("POST", "/api/v1/namespaces/bad/configmaps", "{not json");
    expect(r.code).toBe(400);
    expect(r.json).toMatchObject({ kind: "Status", status: "Failure", reason: "BadRequest", code: 400 });
  });

  it("malformed YAML in an apply patch is a 400", async () => {
    const r = await call(
      "PATCH",
      "/api/v1/namespaces/bad/configmaps/keep?fieldManager=t",
      "a: [b",
      "application/apply-patch+yaml",
    );
    expect(r.code).toBe(400);
  });

  it("unknown kinds and groups are 404 NotFound", async () => {
    expect((await call("GET", "/api/v1/namespaces/bad/widgets")).code).toBe(404);
    expect((await call("GET", "/apis/nosuch.io/v1/things")).json).toMatchObject({
      kind: "Status",
      code: 404,
    });
    expect((await call("GET", "/apis/nosuch.io")).code).toBe(404);
  });

  it("a kind that does not match the URL is a 400", async () => {
    const r = await call(
      "POST",
      "/api/v1/namespaces/bad/configmaps",
      JSON.stringify({ apiVersion: "v1", kind: "Secret", metadata: { name: "x" } }),
    );
    expect(r.code).toBe(400);
  });

  it("invalid names are 422 Invalid with causes", async () => {
    const r = await call("POST", "/api/v1/namespaces/bad/configmaps", cm("Not_Valid"));
    expect(r.code).toBe(422);
    expect(r.json).toMatchObject({ reason: "Invalid", details: { causes: [{ field: "metadata.name" }] } });
  });

  it("a JSON patch that is not an array is a 400; a strategic patch of a custom resource is a 415", async () => {
    expect(
      (
        await call(
          "PATCH",
          "/api/v1/namespaces/bad/configmaps/keep",
          '{"op":"add"}',
          "application/json-patch+json",
        )
      ).code,
    ).toBe(400);
    await call(
      "POST",
      "/apis/chaos-mesh.org/v1alpha1/namespaces/bad/podchaos",
      JSON.stringify({
        apiVersion: "chaos-mesh.org/v1alpha1",
        kind: "PodChaos",
        metadata: { name: "p" },
        spec: { action: "pod-kill", mode: "one", selector: { namespaces: ["nowhere"] } },
      }),
    );
    expect(
      (
        await call(
          "PATCH",
          "/apis/chaos-mesh.org/v1alpha1/namespaces/bad/podchaos/p",
          "{}",
          "application/strategic-merge-patch+json",
        )
      ).code,
    ).toBe(415);
  });

  it("an update with a stale resourceVersion is a 409 Conflict", async () => {
    const live = (await call("GET", "/api/v1/namespaces/bad/configmaps/keep")).json as {
      metadata: { resourceVersion: string };
    };
    const changed = JSON.parse(cm("keep", { resourceVersion: live.metadata.resourceVersion }));
    const ok = await call(
      "PUT",
      "/api/v1/namespaces/bad/configmaps/keep",
      JSON.stringify({ ...changed, data: { a: "2" } }),
    );
    expect(ok.code).toBe(200);
    const stale = await call(
      "PUT",
      "/api/v1/namespaces/bad/configmaps/keep",
      cm("keep", { resourceVersion: live.metadata.resourceVersion }),
    );
    expect(stale.code).toBe(409);
    expect(stale.json).toMatchObject({ reason: "Conflict" });
  });

  it("a watch from a resourceVersion older than the history is a 410 in an ERROR event", async () => {
    for (let i = 0; i < 60; i++)
      await call(
        "POST",
        "/api/v1/namespaces/bad/secrets",
        JSON.stringify({ apiVersion: "v1", kind: "Secret", metadata: { name: `s${i}` } }),
      );
    const r = await call(
      "GET",
      "/api/v1/namespaces/bad/configmaps?watch=true&resourceVersion=1&timeoutSeconds=1",
    );
    const first = JSON.parse(r.text.split("\n")[0]);
    expect(first.type).toBe("ERROR");
    expect(first.object).toMatchObject({ kind: "Status", code: 410, reason: "Expired" });
  });

  it("the server still answers and the store is intact", async () => {
    const r = await call("GET", "/api/v1/namespaces/bad/configmaps/keep");
    expect(r.code).toBe(200);
    expect((r.json as { data: Record<string, string> }).data).toEqual({ a: "2" });
    const list = await call("GET", "/api/v1/namespaces/bad/configmaps");
    expect(
      (list.json as { items: { metadata: { name: string } }[] }).items.map((i) => i.metadata.name).sort(),
    ).toEqual(["keep", "kube-root-ca.crt"]);
  });
});
