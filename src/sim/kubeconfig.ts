// A kubeconfig for the embedded cluster that kubectl, the Python client (ansible) and
// client-node all accept: plain HTTP on loopback with insecure-skip-tls-verify.
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { stringify } from "yaml";

export const CONTEXT_NAME = "microremed-embedded";

export function kubeconfigYaml(url: string, namespace = "default"): string {
  return stringify({
    apiVersion: "v1",
    kind: "Config",
    clusters: [{ name: CONTEXT_NAME, cluster: { server: url, "insecure-skip-tls-verify": true } }],
    users: [{ name: CONTEXT_NAME, user: { token: "microremed-embedded" } }],
    contexts: [{ name: CONTEXT_NAME, context: { cluster: CONTEXT_NAME, user: CONTEXT_NAME, namespace } }],
    "current-context": CONTEXT_NAME,
    preferences: {},
  });
}

export function writeKubeconfig(path: string, url: string): string {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, kubeconfigYaml(url), { mode: 0o600 });
  return path;
}
