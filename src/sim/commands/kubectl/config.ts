// Where kubectl sends its requests and as whom, as clientcmd decides it: --kubeconfig, else
// $KUBECONFIG, else $HOME/.kube/config; with none of them, the in-cluster config when it is
// possible (client-go rest.InClusterConfig: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT
// set and the ServiceAccount token file present; https://host:port, the token as bearer, ca.crt
// as the CA; the namespace from POD_NAMESPACE, else the namespace file), else the default
// http://localhost:8080, which no one serves in a pod (clientcmd merged_client_builder.go,
// client_config.go inClusterClientConfig).
import { parse } from "yaml";
import type { Proc } from "../../userland/process.js";

export const SA_DIR = "/var/run/secrets/kubernetes.io/serviceaccount";

export interface KubeConfig {
  /** https://host:port or http://localhost:8080 */
  server: string;
  token?: string;
  namespace: string;
  /** Whether the namespace came from the config (not defaulted). */
  explicitNamespace: boolean;
}

function readFile(p: Proc, path: string): string | undefined {
  const st = p.fs.stat(p.path(path));
  if (!st || st.dir) return undefined;
  return p.fs.read(p.path(path)).toString();
}

type J = Record<string, unknown>;
const obj = (v: unknown): J => (v && typeof v === "object" && !Array.isArray(v) ? (v as J) : {});
const named = (list: unknown, name: string | undefined): J =>
  obj(obj((Array.isArray(list) ? list : []).find((e) => obj(e).name === name)));

/** A kubeconfig file's current context (or the one --context names). */
function fromFile(text: string, context: string | undefined): KubeConfig {
  const doc = obj(parse(text));
  const ctxName = context ?? (doc["current-context"] as string | undefined);
  const ctx = obj(named(doc.contexts, ctxName).context);
  const cluster = obj(named(doc.clusters, ctx.cluster as string).cluster);
  const user = obj(named(doc.users, ctx.user as string).user);
  const ns = typeof ctx.namespace === "string" && ctx.namespace ? ctx.namespace : undefined;
  return {
    server: typeof cluster.server === "string" && cluster.server ? cluster.server : "http://localhost:8080",
    token: typeof user.token === "string" ? user.token : undefined,
    namespace: ns ?? "default",
    explicitNamespace: ns !== undefined,
  };
}

export class ConfigError extends Error {
  readonly code = "KUBECTL_CONFIG";
}

export function loadConfig(
  p: Proc,
  flags: { kubeconfig?: string; context?: string; server?: string; token?: string },
): KubeConfig {
  const files = flags.kubeconfig
    ? [flags.kubeconfig]
    : p.env.get("KUBECONFIG")
      ? (p.env.get("KUBECONFIG") ?? "").split(":").filter(Boolean)
      : [`${(p.env.get("HOME") ?? "/root").replace(/\/$/, "")}/.kube/config`];
  let cfg: KubeConfig | undefined;
  for (const f of files) {
    const text = readFile(p, f);
    if (text === undefined) {
      if (flags.kubeconfig) throw new ConfigError(`stat ${f}: no such file or directory`);
      continue;
    }
    cfg = fromFile(text, flags.context);
    break;
  }
  if (!cfg) cfg = inCluster(p);
  if (flags.server) cfg = { ...cfg, server: flags.server };
  if (flags.token) cfg = { ...cfg, token: flags.token };
  return cfg;
}

function inCluster(p: Proc): KubeConfig {
  const host = p.env.get("KUBERNETES_SERVICE_HOST") ?? "";
  const port = p.env.get("KUBERNETES_SERVICE_PORT") ?? "";
  const token = readFile(p, `${SA_DIR}/token`);
  if (!host || !port || token === undefined)
    return { server: "http://localhost:8080", namespace: "default", explicitNamespace: false };
  const ns = p.env.get("POD_NAMESPACE") || readFile(p, `${SA_DIR}/namespace`)?.trim() || "default";
  const h = host.includes(":") ? `[${host}]` : host;
  return { server: `https://${h}:${port}`, token: token.trim(), namespace: ns, explicitNamespace: true };
}
