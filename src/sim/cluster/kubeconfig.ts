// A kubeconfig for the embedded cluster that kubectl, the Python client (ansible) and
// client-node all accept: HTTPS verified against the cluster's own CA, and either the admin's
// client certificate or a bearer token (a ServiceAccount's), as k3s and kind write theirs.
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { stringify } from "yaml";

/** What k3s names the cluster, the user and the context of the kubeconfig it writes. */
export const CONTEXT_NAME = "default";

export interface ClusterCredentials {
  /** PEM of the CA that signed the serving certificate. */
  ca: string;
  user: { clientCertificate: string; clientKey: string } | { token: string };
}

const b64 = (pem: string) => Buffer.from(pem).toString("base64");

export function kubeconfigYaml(url: string, creds: ClusterCredentials, namespace = "default"): string {
  const user =
    "token" in creds.user
      ? { token: creds.user.token }
      : {
          "client-certificate-data": b64(creds.user.clientCertificate),
          "client-key-data": b64(creds.user.clientKey),
        };
  return stringify({
    apiVersion: "v1",
    kind: "Config",
    clusters: [{ name: CONTEXT_NAME, cluster: { server: url, "certificate-authority-data": b64(creds.ca) } }],
    users: [{ name: CONTEXT_NAME, user }],
    contexts: [{ name: CONTEXT_NAME, context: { cluster: CONTEXT_NAME, user: CONTEXT_NAME, namespace } }],
    "current-context": CONTEXT_NAME,
    preferences: {},
  });
}

export function writeKubeconfig(
  path: string,
  url: string,
  creds: ClusterCredentials,
  namespace?: string,
): string {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, kubeconfigYaml(url, creds, namespace), { mode: 0o600 });
  return path;
}
