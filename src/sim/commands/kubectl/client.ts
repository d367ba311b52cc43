// kubectl's REST client inside a container: each request goes to the address the config names;
// the cluster's `kubernetes` Service (10.43.0.1:443, kubernetes.default.svc) reaches the API
// server (context/apiserver.ts), anything else does not answer. A failure is a typed error that
// main.ts prints as kubectl's cmdutil.CheckErr does.
import { KUBERNETES_SERVICE_IP } from "../../userland/env.js";
import type { Proc } from "../../userland/process.js";
import type { KubeConfig } from "./config.js";

/** A kubectl error already worded: printed as is (with its `error: ` prefix when it has one). */
export class KubectlError extends Error {
  readonly code = "KUBECTL";
}

export interface Status {
  kind?: string;
  status?: string;
  message?: string;
  reason?: string;
  code?: number;
  details?: { name?: string; kind?: string; group?: string; causes?: { field?: string; message?: string }[] };
}

/** The API server answered with a failure Status. */
export class StatusError extends Error {
  readonly code = "KUBECTL_STATUS";
  constructor(
    readonly status: Status,
    readonly http: number,
  ) {
    super(status.message ?? `the server responded with the status code ${http}`);
  }
}

const API_HOSTS = new Set([
  KUBERNETES_SERVICE_IP,
  "kubernetes",
  "kubernetes.default",
  "kubernetes.default.svc",
  "kubernetes.default.svc.cluster.local",
]);

/** The kubectl release of an image's tag (bitnami/kubectl:1.29.3), else the one `latest` was. */
export function kubectlVersion(image: string): { version: string; commit: string } {
  const tag = /:([^:/@]+)(@.*)?$/.exec(image)?.[1] ?? "latest";
  const m = /^(\d+)\.(\d+)(?:\.(\d+))?/.exec(tag);
  if (!m) return { version: "v1.31.4", commit: "a78aa47129b8539636eb86a9d00e31b2720fe06b" };
  const version = `v${m[1]}.${m[2]}.${m[3] ?? "0"}`;
  let h = 0x811c9dc5;
  for (const c of version) h = Math.imul(h ^ c.charCodeAt(0), 0x01000193) >>> 0;
  const commit = (h.toString(16).padStart(8, "0") + "9c5a1e7f3b2d48a0c6e1f4b7d9a2c5e8f1b3d6a9").slice(0, 40);
  return { version, commit };
}

export interface Answer {
  status: number;
  body: string;
  json: () => Record<string, unknown>;
}

export class Client {
  readonly userAgent: string;

  constructor(
    private readonly p: Proc,
    readonly config: KubeConfig,
  ) {
    const v = kubectlVersion(String(p.container.image ?? ""));
    this.userAgent = `kubectl/${v.version} (linux/amd64) kubernetes/${v.commit.slice(0, 7)}`;
  }

  private target(): { host: string; port: string; api: boolean } {
    let u: URL;
    try {
      u = new URL(this.config.server);
    } catch {
      throw new KubectlError(`error: couldn't parse server address "${this.config.server}"`);
    }
    const host = u.hostname.replace(/^\[|\]$/g, "");
    const port = u.port || (u.protocol === "https:" ? "443" : "80");
    return { host, port, api: u.protocol === "https:" && port === "443" && API_HOSTS.has(host) };
  }

  /** One request; throws a StatusError for a failure Status, a KubectlError when nothing answers. */
  async request(
    method: string,
    path: string,
    opts: { body?: unknown; contentType?: string; accept?: string } = {},
  ): Promise<Answer> {
    const t = this.target();
    const api = this.p.ctx.apiserver;
    if (!t.api || !api) {
      if (t.host === "localhost" || t.host === "127.0.0.1")
        throw new KubectlError(
          `The connection to the server ${t.host}:${t.port} was refused - did you specify the right host or port?`,
        );
      throw new KubectlError(`Unable to connect to the server: dial tcp ${t.host}:${t.port}: i/o timeout`);
    }
    const headers: Record<string, string> = {
      "User-Agent": this.userAgent,
      Accept: opts.accept ?? "application/json",
    };
    if (this.config.token) headers.Authorization = `Bearer ${this.config.token}`;
    let body: string | undefined;
    if (opts.body !== undefined) {
      body = typeof opts.body === "string" ? opts.body : JSON.stringify(opts.body);
      headers["Content-Type"] = opts.contentType ?? "application/json";
    }
    let res: Awaited<ReturnType<typeof api.request>>;
    try {
      res = await api.request({ method, path, headers, body });
    } catch {
      throw new KubectlError(
        `The connection to the server ${t.host}:${t.port} was refused - did you specify the right host or port?`,
      );
    }
    const json = () => JSON.parse(res.body || "{}") as Record<string, unknown>;
    if (res.status === 401)
      throw new KubectlError("error: You must be logged in to the server (Unauthorized)");
    if (res.status >= 400) {
      let st: Status;
      try {
        st = json() as Status;
      } catch {
        st = { message: res.body.trim() };
      }
      throw new StatusError(st, res.status);
    }
    return { status: res.status, body: res.body, json };
  }

  get(path: string) {
    return this.request("GET", path).then((a) => a.json());
  }
}
