// TLS and identities as kind and k3s have them. The embedded cluster serves
// HTTPS with its own CA; its admin is a client certificate in system:masters; no credentials is
// system:anonymous, who may read /version and /healthz only (system:public-info-viewer); a bad
// token is a 401 "Unauthorized"; Secrets of type kubernetes.io/service-account-token are filled by
// the tokens controller. Modelled on:
//  - k8s.io/apiserver/pkg/authentication/request/x509 (CN is the user, each O a group)
//  - pkg/kubeapiserver/authenticator/config.go (anonymous after a failing credential is 401)
//  - plugin/pkg/auth/authorizer/rbac/bootstrappolicy/policy.go (system:public-info-viewer, system:discovery)
//  - pkg/controller/serviceaccount/tokens_controller.go (token, ca.crt, namespace)
import { X509Certificate } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { simData } from "../../../src/cli/sim-data.js";
import { EmbeddedCluster } from "../../../src/sim/cluster/cluster.js";
import { kubeconfigYaml } from "../../../src/sim/cluster/kubeconfig.js";
import { startTestCluster, type TestCluster } from "../../helpers/cluster.js";
import { rawRequest } from "../../helpers/https.js";
import { AGENT, agentKubeconfig, NS, SA } from "./rbac-helpers.js";

let t: TestCluster;
let other: EmbeddedCluster;

const kubectl = (kubeconfig: string, args: string[]) =>
  execa("kubectl", args, { env: { KUBECONFIG: kubeconfig }, reject: false, timeout: 60_000 });

beforeAll(async () => {
  t = await startTestCluster(30);
  other = new EmbeddedCluster({ ...simData(), speed: 1 }); // another cluster, another CA
});
afterAll(async () => {
  await t?.stop();
  await other?.stop();
});

describe("TLS", () => {
  it("serves a certificate for loopback and the kubernetes Service, signed by the cluster CA", async () => {
    const { ca, serving, admin } = t.cluster.auth.pki;
    const caCert = new X509Certificate(ca);
    const leaf = new X509Certificate(serving.cert);
    expect(caCert.ca).toBe(true);
    expect(leaf.verify(caCert.publicKey)).toBe(true);
    expect(leaf.checkIP("127.0.0.1")).toBe("127.0.0.1");
    expect(leaf.checkHost("kubernetes.default.svc.cluster.local")).toBe(
      "kubernetes.default.svc.cluster.local",
    );
    expect(new X509Certificate(admin.cert).subject).toBe("O=system:masters\nCN=system:admin");
    // OpenSSL's own strict chain check accepts both leaves
    writeFileSync(join(t.dir, "ca.pem"), ca);
    writeFileSync(join(t.dir, "serving.pem"), serving.cert);
    writeFileSync(join(t.dir, "admin.pem"), admin.cert);
    const v = await execa("openssl", [
      "verify",
      "-x509_strict",
      "-CAfile",
      join(t.dir, "ca.pem"),
      join(t.dir, "serving.pem"),
      join(t.dir, "admin.pem"),
    ]);
    expect(v.stdout).toContain("serving.pem: OK");
    expect(v.stdout).toContain("admin.pem: OK");
    const kc = (await import("node:fs")).readFileSync(t.kubeconfig, "utf8");
    expect(kc).toContain("certificate-authority-data:");
    expect(kc).toContain("client-certificate-data:");
    expect(kc).not.toContain("insecure-skip-tls-verify");
    expect(t.cluster.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
  });

  it("fails a client that does not trust the CA, as a real server does", async () => {
    await other.listen();
    // this cluster's address and admin certificate, the other cluster's CA
    const wrong = kubeconfigYaml(t.cluster.url, { ...t.cluster.credentials(), ca: other.auth.pki.ca });
    const r = await kubectl(t.file("wrong-ca.kubeconfig", wrong), ["get", "ns"]);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain("x509: certificate signed by unknown authority");
    // and plain HTTP is not served
    const plain = await fetch(t.cluster.url.replace("https:", "http:") + "/version").then(
      (res) => res.status,
      () => "refused",
    );
    expect(plain).not.toBe(200);
  });

  it("answers 401 to a client certificate of another CA and to a bad token", async () => {
    const foreign = other.auth.pki.admin;
    const wrongCert = kubeconfigYaml(t.cluster.url, {
      ca: t.cluster.auth.pki.ca,
      user: { clientCertificate: foreign.cert, clientKey: foreign.key },
    });
    // a raw GET skips discovery, so kubectl prints the 401 itself
    const r = await kubectl(t.file("wrong-cert.kubeconfig", wrongCert), [
      "get",
      "--raw",
      "/api/v1/namespaces",
    ]);
    expect(r.stderr.trim()).toBe("error: You must be logged in to the server (Unauthorized)");
    const bad = await rawRequest(t.cluster, "/api/v1/namespaces", { token: "not-a-token" });
    expect(bad.status).toBe(401);
    expect(JSON.parse(bad.text)).toEqual({
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message: "Unauthorized",
      reason: "Unauthorized",
      code: 401,
    });
  });

  it("lets system:anonymous read /version and /healthz and nothing else", async () => {
    expect((await rawRequest(t.cluster, "/version", { anonymous: true })).status).toBe(200);
    expect((await rawRequest(t.cluster, "/healthz", { anonymous: true })).text).toBe("ok");
    const api = await rawRequest(t.cluster, "/api", { anonymous: true });
    expect(api.status).toBe(403);
    expect(JSON.parse(api.text)).toMatchObject({
      reason: "Forbidden",
      message: 'forbidden: User "system:anonymous" cannot get path "/api"',
      details: {},
      code: 403,
    });
    const ns = await rawRequest(t.cluster, "/api/v1/namespaces/default", { anonymous: true });
    expect(JSON.parse(ns.text)).toMatchObject({
      message:
        'namespaces "default" is forbidden: User "system:anonymous" cannot get resource "namespaces" in API group "" in the namespace "default"',
      details: { name: "default", kind: "namespaces" },
    });
  });
});

describe("the tokens controller", () => {
  it("fills a service-account-token Secret, whose token works until the ServiceAccount goes", async () => {
    await agentKubeconfig(t);
    await t.kubectl(["apply", "-f", "-"], {
      input: `
apiVersion: v1
kind: Secret
metadata:
  name: agent-token
  namespace: ${NS}
  annotations: {kubernetes.io/service-account.name: ${SA}}
type: kubernetes.io/service-account-token
`,
    });
    let data: Record<string, string> = {};
    for (let i = 0; i < 50 && !data.token; i++) {
      data =
        JSON.parse((await t.kubectl(["get", "secret", "agent-token", "-n", NS, "-o", "json"])).stdout).data ??
        {};
      if (!data.token) await new Promise((r) => setTimeout(r, 100));
    }
    const decode = (k: string) => Buffer.from(data[k], "base64").toString("utf8");
    expect(decode("namespace")).toBe(NS);
    expect(decode("ca.crt")).toBe(t.cluster.auth.pki.ca);
    const token = decode("token");
    const kc = t.file(
      "secret.kubeconfig",
      kubeconfigYaml(t.cluster.url, { ca: decode("ca.crt"), user: { token } }, NS),
    );
    const who = await kubectl(kc, ["auth", "whoami", "-o", "jsonpath={.status.userInfo.username}"]);
    expect(who.stdout).toBe(AGENT);
    const desc = await t.kubectl(["describe", "secret", "agent-token", "-n", NS]);
    expect(desc.stdout).toMatch(/Type:\s+kubernetes\.io\/service-account-token/);
    expect(desc.stdout).toMatch(/kubernetes\.io\/service-account\.uid: [0-9a-f-]{36}/);
    await t.kubectl(["delete", "serviceaccount", SA, "-n", NS]);
    const gone = await kubectl(kc, ["get", "pods"]);
    expect(gone.stderr.trim()).toBe("error: You must be logged in to the server (Unauthorized)");
    // the controller deletes the tokens of a deleted ServiceAccount
    let left = "secret/agent-token";
    for (let i = 0; i < 50 && left; i++) {
      left = (await t.kubectl(["get", "secret", "agent-token", "-n", NS, "-o", "name", "--ignore-not-found"]))
        .stdout;
      if (left) await new Promise((r) => setTimeout(r, 100));
    }
    expect(left).toBe("");
  });
});
