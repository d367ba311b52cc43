// The sandbox's one way out: the API proxy. It must speak HTTPS with the kubeconfig's CA and
// credentials (client certificate or bearer token) to the real server and plain HTTP to a plain
// one, carry upgrades (kubectl exec), authenticate every request as the kubeconfig's identity
// whatever the inside sends, and log each request. Real kubectl through the proxy throughout.
// kubectl's exec upgrade (WebSocket v5, SPDY fallback):
// https://github.com/kubernetes/kubernetes/blob/master/staging/src/k8s.io/kubectl/pkg/cmd/exec/exec.go
import { readFileSync, writeFileSync } from "node:fs";
import { createServer, get, type IncomingMessage } from "node:http";
import { join } from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApiProxy } from "../../src/sandbox/api-proxy.js";
import { startTestCluster, type TestCluster } from "../helpers/cluster.js";
import { caseDir } from "./helpers.js";

let tc: TestCluster;
beforeAll(async () => {
  tc = await startTestCluster(30, 5);
  await tc.kubectl(["create", "namespace", "px"]);
});
afterAll(() => tc.stop());

/** A kubeconfig with no credential, pointing at the proxy. */
function inside(dir: string, url: string, token?: string): string {
  const p = join(dir, "inside-kubeconfig");
  writeFileSync(
    p,
    `apiVersion: v1
kind: Config
clusters: [{name: p, cluster: {server: "${url}"}}]
users: [{name: p, user: {${token ? `token: ${token}` : ""}}}]
contexts: [{name: p, context: {cluster: p, user: p}}]
current-context: p
`,
  );
  return p;
}

const kubectl = (kubeconfig: string, args: string[], input?: string) =>
  execa("kubectl", ["--kubeconfig", kubeconfig, ...args], { reject: false, input, timeout: 60_000 });

const auditOf = (path: string) =>
  readFileSync(path, "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as Record<string, unknown>);

describe("the API proxy", () => {
  it("forwards to an HTTPS cluster with the kubeconfig's CA and credentials, and logs each request", async () => {
    const dir = caseDir();
    const auditLog = join(dir, "api-audit.jsonl");
    const proxy = await startApiProxy({ kubeconfig: tc.kubeconfig, auditLog });
    try {
      expect(tc.cluster.url).toMatch(/^https:/);
      const kc = inside(dir, proxy.url ?? "");
      const made = await kubectl(kc, ["-n", "px", "create", "configmap", "via-proxy", "--from-literal=a=1"]);
      expect(made.exitCode, made.stderr).toBe(0);
      const got = await kubectl(kc, [
        "-n",
        "px",
        "get",
        "configmap",
        "via-proxy",
        "-o",
        "jsonpath={.data.a}",
      ]);
      expect(got.stdout).toBe("1");
      const audit = auditOf(auditLog);
      expect(audit).toContainEqual(
        expect.objectContaining({ method: "POST", path: "/api/v1/namespaces/px/configmaps", status: 201 }),
      );
      expect(audit).toContainEqual(
        expect.objectContaining({
          method: "GET",
          path: "/api/v1/namespaces/px/configmaps/via-proxy",
          status: 200,
        }),
      );
    } finally {
      await proxy.close();
    }
  }, 60_000);

  it("acts as the kubeconfig's identity, whatever Authorization the inside sends", async () => {
    // a ServiceAccount that may only read configmaps in px (kubectl create token: TokenRequest)
    await tc.kubectl(["-n", "px", "create", "serviceaccount", "reader"]);
    await tc.kubectl(["-n", "px", "create", "role", "cm-reader", "--verb=get,list", "--resource=configmaps"]);
    await tc.kubectl([
      "-n",
      "px",
      "create",
      "rolebinding",
      "reader",
      "--role=cm-reader",
      "--serviceaccount=px:reader",
    ]);
    const token = (await tc.kubectl(["-n", "px", "create", "token", "reader"])).stdout.trim();
    const other = (await tc.kubectl(["-n", "px", "create", "token", "default"])).stdout.trim();
    const dir = caseDir();
    const saConfig = join(dir, "sa-kubeconfig");
    const full = readFileSync(tc.kubeconfig, "utf8");
    // the same cluster entry, the ServiceAccount's token as the user
    writeFileSync(
      saConfig,
      full.replace(
        /user:\n(\s+)client-certificate-data: .*\n\s+client-key-data: .*\n/,
        `user:\n$1token: ${token}\n`,
      ),
    );
    expect(readFileSync(saConfig, "utf8")).toContain(token);
    const auditLog = join(dir, "api-audit.jsonl");
    const proxy = await startApiProxy({ kubeconfig: saConfig, auditLog });
    try {
      // the inside claims another identity; the proxy drops it and sends the reader's token
      const kc = inside(dir, proxy.url ?? "", other);
      const list = await kubectl(kc, ["-n", "px", "get", "configmaps", "-o", "name"]);
      expect(list.exitCode, list.stderr).toBe(0);
      const del = await kubectl(kc, ["-n", "px", "delete", "configmap", "kube-root-ca.crt"]);
      expect(del.stderr).toContain(
        'User "system:serviceaccount:px:reader" cannot delete resource "configmaps" in API group "" in the namespace "px"',
      );
      expect(auditOf(auditLog)).toContainEqual(expect.objectContaining({ method: "DELETE", status: 403 }));
    } finally {
      await proxy.close();
    }
  }, 60_000);

  // only root can start a process as another user to try it
  it.skipIf(process.getuid?.() !== 0)(
    "on loopback TCP, serves only the runner's own user (another local user is turned away)",
    async () => {
      const proxy = await startApiProxy({ kubeconfig: tc.kubeconfig });
      const get = (uid?: number) =>
        execa(
          "/usr/bin/python3",
          [
            "-c",
            `import urllib.request; print(urllib.request.urlopen("${proxy.url}/version", timeout=10).status)`,
          ],
          { reject: false, ...(uid === undefined ? {} : { uid, gid: uid }) },
        );
      try {
        expect((await get()).stdout.trim()).toBe("200");
        const other = await get(65534);
        expect(other.exitCode).not.toBe(0);
        expect(String(other.stderr)).toMatch(/RemoteDisconnected|Connection reset|closed connection/);
      } finally {
        await proxy.close();
      }
    },
    60_000,
  );

  it("carries kubectl exec's upgrade to the cluster and back", async () => {
    const dir = caseDir();
    const proxy = await startApiProxy({ kubeconfig: tc.kubeconfig, auditLog: join(dir, "api-audit.jsonl") });
    try {
      const kc = inside(dir, proxy.url ?? "");
      await tc.kubectl(["-n", "px", "create", "deployment", "web", "--image=nginx:1.25"]);
      const ready = await tc.kubectl(["-n", "px", "rollout", "status", "deployment/web", "--timeout=120s"]);
      expect(ready.exitCode).toBe(0);
      const pod = (
        await tc.kubectl(["-n", "px", "get", "pods", "-l", "app=web", "-o", "name"])
      ).stdout.trim();
      const r = await kubectl(kc, ["-n", "px", "exec", pod, "--", "echo", "through-the-proxy"]);
      expect(r.stderr).toBe("");
      expect(r.stdout.trim()).toBe("through-the-proxy");
      expect(auditOf(join(dir, "api-audit.jsonl"))).toContainEqual(
        expect.objectContaining({ path: expect.stringMatching(/\/pods\/web-.*\/exec$/), status: 101 }),
      );
    } finally {
      await proxy.close();
    }
  }, 180_000);

  it("answers a watch at once even with nothing to report yet (client-go waits for the headers)", async () => {
    const proxy = await startApiProxy({ kubeconfig: tc.kubeconfig });
    try {
      const rv = JSON.parse((await tc.kubectl(["-n", "px", "get", "configmaps", "-o", "json"])).stdout)
        .metadata.resourceVersion as string;
      const url = `${proxy.url}/api/v1/namespaces/px/configmaps?watch=true&resourceVersion=${rv}`;
      const events: string[] = [];
      // without the headers passed on at once, the response only starts with the first event,
      // which this test creates only after the response has started
      const res = await new Promise<IncomingMessage>((resolve) => get(url, resolve));
      expect(res.statusCode).toBe(200);
      const got = new Promise<void>((resolve) =>
        res.on("data", (d: Buffer) => {
          events.push(...String(d).split("\n").filter(Boolean));
          if (events.some((e) => e.includes('"watched"'))) resolve();
        }),
      );
      await tc.kubectl(["-n", "px", "create", "configmap", "watched"]);
      await got;
      res.destroy();
      expect(events.map((e) => JSON.parse(e))).toContainEqual(
        expect.objectContaining({
          type: "ADDED",
          object: expect.objectContaining({ metadata: expect.objectContaining({ name: "watched" }) }),
        }),
      );
    } finally {
      await proxy.close();
    }
  }, 60_000);

  it("forwards to a plain-HTTP server as well", async () => {
    const seen: string[] = [];
    const server = createServer((req, res) => {
      seen.push(`${req.method} ${req.url} ${req.headers.authorization ?? "-"}`);
      res.setHeader("content-type", "application/json");
      res.end(JSON.stringify({ major: "1", minor: "30", gitVersion: "v1.30.0" }));
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const dir = caseDir();
    const upstream = join(dir, "upstream-kubeconfig");
    const port = (server.address() as { port: number }).port;
    writeFileSync(
      upstream,
      `apiVersion: v1
kind: Config
clusters: [{name: u, cluster: {server: "http://127.0.0.1:${port}"}}]
users: [{name: u, user: {token: plain-token}}]
contexts: [{name: u, context: {cluster: u, user: u}}]
current-context: u
`,
    );
    const proxy = await startApiProxy({ kubeconfig: upstream });
    try {
      const r = await fetch(`${proxy.url}/version?timeout=5s`, {
        headers: { authorization: "Bearer stolen" },
      });
      expect(await r.json()).toMatchObject({ gitVersion: "v1.30.0" });
      expect(seen).toEqual(["GET /version?timeout=5s Bearer plain-token"]);
    } finally {
      await proxy.close();
      server.close();
    }
  }, 30_000);
});
