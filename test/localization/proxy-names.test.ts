// The audit log names what a create made: the API proxy reads the object's name from the
// request's body (JSON or YAML), or from the server's answer for a generated name, so localization
// can tell re-creating the deleted Service from creating any other. Real kubectl through the
// proxy, as a playbook's requests go.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { changeLabel, changesIn } from "../../src/localization/audit.js";
import { startApiProxy } from "../../src/sandbox/api-proxy.js";
import { createdName } from "../../src/sandbox/created-name.js";
import { startTestCluster, type TestCluster } from "../helpers/cluster.js";

let tc: TestCluster;
beforeAll(async () => {
  tc = await startTestCluster(30, 9);
  await tc.kubectl(["create", "namespace", "loc"]);
});
afterAll(() => tc.stop());

/** A kubeconfig with no credential, pointing at the proxy. */
function inside(url: string): string {
  const p = join(tc.dir, "inside-kubeconfig");
  writeFileSync(
    p,
    `apiVersion: v1
kind: Config
clusters: [{name: p, cluster: {server: "${url}"}}]
users: [{name: p, user: {}}]
contexts: [{name: p, context: {cluster: p, user: p, namespace: loc}}]
current-context: p
`,
  );
  return p;
}

describe("the audit log's creates", () => {
  it("name the object created, from the body or (a generated name) the answer; a refused create is not a change", async () => {
    const auditLog = join(tc.dir, "api-audit.jsonl");
    const proxy = await startApiProxy({ kubeconfig: tc.kubeconfig, auditLog });
    const k = (args: string[], input?: string) =>
      execa("kubectl", ["--kubeconfig", inside(proxy.url ?? ""), ...args], {
        reject: false,
        input,
        timeout: 60_000,
      });
    let generated = "";
    try {
      const made = await k(["create", "service", "clusterip", "cart", "--tcp=80:8080"]);
      expect(made.exitCode, made.stderr).toBe(0);
      const applied = await k(
        ["apply", "-f", "-"],
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings}\ndata: {a: '1'}\n",
      );
      expect(applied.exitCode, applied.stderr).toBe(0);
      const g = await k(
        ["create", "-f", "-", "-o", "name"],
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {generateName: job-}\n",
      );
      expect(g.exitCode, g.stderr).toBe(0);
      generated = g.stdout.trim().replace("configmap/", "");
      const again = await k(["create", "service", "clusterip", "cart", "--tcp=80:8080"]);
      expect(again.exitCode).not.toBe(0);
    } finally {
      await proxy.close();
    }
    expect(generated).toMatch(/^job-[a-z0-9]{5}$/);
    expect(changesIn(auditLog).map(changeLabel)).toEqual([
      "create services/cart",
      "create configmaps/settings",
      `create configmaps/${generated}`,
    ]);
    const refused = readFileSync(auditLog, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { method: string; status: number; name?: string })
      .filter((e) => e.method === "POST" && e.status >= 400);
    expect(refused).toEqual([expect.objectContaining({ status: 409, name: "cart" })]);
  }, 120_000);

  it("reads a name from JSON and YAML bodies, and none from a body without one", () => {
    expect(createdName('{"kind":"Service","metadata":{"name":"cart"}}')).toBe("cart");
    expect(createdName("kind: Service\nmetadata:\n  name: cart\n", "application/yaml")).toBe("cart");
    expect(createdName('{"metadata":{"generateName":"job-"}}')).toBeUndefined();
    expect(createdName("\u0000k8s\u0000protobuf")).toBeUndefined();
    expect(createdName("")).toBeUndefined();
    expect(createdName("null")).toBeUndefined();
  });
});
