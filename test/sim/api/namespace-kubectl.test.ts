// A namespace is Active from its creation. kube-apiserver's namespace strategy
// (pkg/registry/core/namespace/strategy.go, PrepareForCreate) sets status.phase Active on every
// create, whatever the client sent (kubectl create ns sends `status: {}`), and requires the
// kubernetes finalizer; PrepareForUpdate keeps the finalizers, which change only via /finalize.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestCluster, type TestCluster } from "../../helpers/cluster.js";

let t: TestCluster;
const k = (...args: string[]) => t.kubectl(args).then((r) => r.stdout);

beforeAll(async () => {
  t = await startTestCluster(30);
});
afterAll(() => t?.stop());

describe("namespace phase", () => {
  it("kubectl create ns gives an Active namespace with the kubernetes finalizer", async () => {
    await k("create", "ns", "x");
    expect(await k("get", "ns", "x", "-o", "jsonpath={.status.phase} {.spec.finalizers}")).toBe(
      'Active ["kubernetes"]',
    );
    expect(await k("get", "ns", "x", "--no-headers")).toMatch(/^x\s+Active\s+(?:\d+[smhd])+$/);
  });

  it("ignores a phase the client sends, and appends the kubernetes finalizer to others", async () => {
    const yaml =
      "apiVersion: v1\nkind: Namespace\nmetadata: {name: yy}\nspec: {finalizers: [example.com/keep]}\nstatus: {phase: Terminating}\n";
    await k("create", "-f", t.file("yy.yaml", yaml));
    expect(await k("get", "ns", "yy", "-o", "jsonpath={.status.phase} {.spec.finalizers}")).toBe(
      'Active ["example.com/keep","kubernetes"]',
    );
  });

  it("keeps the finalizers on an update that drops them", async () => {
    await k("label", "ns", "x", "team=a");
    const json = JSON.parse(await k("get", "ns", "x", "-o", "json"));
    delete json.spec;
    await k("replace", "-f", t.file("x.json", JSON.stringify(json)));
    expect(await k("get", "ns", "x", "-o", "jsonpath={.spec.finalizers} {.metadata.labels.team}")).toBe(
      '["kubernetes"] a',
    );
  });
});
