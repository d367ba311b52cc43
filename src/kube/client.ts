// A small JSON client for the Kubernetes API over any kubeconfig (certificates, tokens and exec
// plugins are applied by client-node). Resource paths come from discovery, as kubectl finds them.
import http from "node:http";
import https from "node:https";
import type { KubeConfig } from "@kubernetes/client-node";
import { MicroRemedError } from "../errors.js";
import { keepAliveAgent } from "../util/https-agent.js";
import type { KObj, Service } from "./objects.js";

/** An API answer other than 2xx: the Status the server sent. */
export class KubeApiError extends Error {
  constructor(
    readonly status: number,
    readonly reason: string,
    message: string,
  ) {
    super(message);
    this.name = "KubeApiError";
  }
}

export const isNotFound = (e: unknown) => e instanceof KubeApiError && e.status === 404;

interface ResourceInfo {
  plural: string;
  namespaced: boolean;
}

/** A meta.k8s.io/v1 Table, the parts kubectl's printer reads. */
export interface ServerTable {
  columnDefinitions: { name: string; priority?: number }[];
  rows: { cells: unknown[] }[];
}

export interface RequestOptions {
  query?: Record<string, string | number | boolean | undefined>;
  body?: unknown;
  contentType?: string;
  /** Return the raw text instead of parsing JSON (pod logs). */
  text?: boolean;
  /** The Accept header (default application/json): a Table, as kubectl asks for one. */
  accept?: string;
  timeoutMs?: number;
}

/** The annotation `kubectl apply` keeps the applied configuration in. */
export const LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration";

/** The annotation's value as kubectl writes it: the object as applied, without the annotation, as JSON. */
function lastApplied(obj: KObj): string {
  const annotations = { ...obj.metadata.annotations };
  delete annotations[LAST_APPLIED];
  const meta = { ...obj.metadata, annotations };
  if (!Object.keys(annotations).length) delete (meta as { annotations?: unknown }).annotations;
  return `${JSON.stringify({ ...obj, metadata: meta })}\n`;
}

export class KubeClient {
  private readonly discovery = new Map<string, Promise<Map<string, ResourceInfo>>>();
  readonly server: string;
  private agent?: http.Agent;

  constructor(readonly kc: KubeConfig) {
    this.server = kc.getCurrentCluster()!.server.replace(/\/+$/, "");
  }

  /**
   * The kubeconfig's credentials and TLS settings for one request, over the client's one
   * keep-alive agent (util/https-agent.ts: 13% of a one-case run's CPU on the embedded cluster went to a
   * connection per request). Credentials are asked for each request, so exec plugins and
   * rotating token files keep working.
   */
  async tls(reqOpts: https.RequestOptions): Promise<void> {
    await this.kc.applyToHTTPSOptions(reqOpts);
    this.agent ??= keepAliveAgent(reqOpts.agent as http.Agent | undefined);
    reqOpts.agent = this.agent;
  }

  async request<T = unknown>(method: string, path: string, opts: RequestOptions = {}): Promise<T> {
    const url = new URL(this.server + path);
    for (const [k, v] of Object.entries(opts.query ?? {}))
      if (v !== undefined) url.searchParams.set(k, String(v));
    const body =
      opts.body === undefined
        ? undefined
        : typeof opts.body === "string"
          ? opts.body
          : JSON.stringify(opts.body);
    const reqOpts: https.RequestOptions = {
      method,
      // Content-Length always: Node sends a DELETE body unframed otherwise
      headers: {
        Accept: opts.accept ?? "application/json",
        ...(body !== undefined
          ? {
              "Content-Type": opts.contentType ?? "application/json",
              "Content-Length": Buffer.byteLength(body),
            }
          : {}),
      },
    };
    try {
      await this.tls(reqOpts);
    } catch (e) {
      // the kubeconfig's credentials or TLS settings cannot be used (client-node refuses them)
      throw new MicroRemedError(
        "E_CLUSTER_UNREACHABLE",
        `cannot connect to ${this.server} with the kubeconfig's settings: ${(e as Error).message}`,
        "check the current context's cluster and user in the kubeconfig (or pick another with --context)",
        { cause: e },
      );
    }
    const lib = url.protocol === "https:" ? https : http;
    return new Promise<T>((resolve, reject) => {
      const req = lib.request(url, reqOpts, (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8");
          const code = res.statusCode ?? 0;
          if (code >= 200 && code < 300) {
            if (opts.text) return resolve(text as T);
            try {
              resolve((text ? JSON.parse(text) : {}) as T);
            } catch {
              reject(
                new KubeApiError(
                  code,
                  "BadResponse",
                  `${method} ${path}: the server answered non-JSON: ${text.slice(0, 200)}`,
                ),
              );
            }
            return;
          }
          let status: { message?: string; reason?: string } = {};
          try {
            status = JSON.parse(text);
          } catch {
            status = { message: text.trim() };
          }
          reject(
            new KubeApiError(
              code,
              status.reason ?? String(code),
              status.message || `${method} ${path} answered HTTP ${code}`,
            ),
          );
        });
        res.on("error", reject);
      });
      req.setTimeout(opts.timeoutMs ?? 60_000, () => req.destroy(new Error(`${method} ${path} timed out`)));
      req.on("error", (e) =>
        reject(
          new MicroRemedError(
            "E_CLUSTER_UNREACHABLE",
            `the cluster at ${this.server} does not answer: ${(e as Error).message}`,
            "check the cluster is running and the kubeconfig points at it",
            {
              cause: e,
            },
          ),
        ),
      );
      if (body !== undefined) req.write(body);
      req.end();
    });
  }

  private async resources(apiVersion: string): Promise<Map<string, ResourceInfo>> {
    let p = this.discovery.get(apiVersion);
    if (!p) {
      const path = apiVersion.includes("/") ? `/apis/${apiVersion}` : `/api/${apiVersion}`;
      p = this.request<{ resources: { name: string; kind: string; namespaced: boolean }[] }>(
        "GET",
        path,
      ).then(
        (list) =>
          new Map(
            list.resources
              .filter((r) => !r.name.includes("/"))
              .map((r) => [r.kind, { plural: r.name, namespaced: r.namespaced }]),
          ),
      );
      this.discovery.set(apiVersion, p);
      p.catch(() => this.discovery.delete(apiVersion));
    }
    return p;
  }

  /** The URL path of a kind's collection (namespace given) or of one object (name given). */
  async pathOf(apiVersion: string, kind: string, namespace?: string, name?: string): Promise<string> {
    const info = (await this.resources(apiVersion)).get(kind);
    if (!info) throw new KubeApiError(404, "NotFound", `the cluster does not serve ${kind} in ${apiVersion}`);
    const base = apiVersion.includes("/") ? `/apis/${apiVersion}` : `/api/${apiVersion}`;
    const ns = info.namespaced && namespace ? `/namespaces/${encodeURIComponent(namespace)}` : "";
    return `${base}${ns}/${info.plural}${name ? `/${encodeURIComponent(name)}` : ""}`;
  }

  async serves(apiVersion: string, kind: string): Promise<boolean> {
    try {
      return (await this.resources(apiVersion)).has(kind);
    } catch {
      return false;
    }
  }

  /** One object; T names the kind's typed view (cluster/objects.ts). */
  async get<T extends KObj = KObj>(
    apiVersion: string,
    kind: string,
    namespace: string | undefined,
    name: string,
  ): Promise<T> {
    return this.request<T>("GET", await this.pathOf(apiVersion, kind, namespace, name));
  }

  async tryGet<T extends KObj = KObj>(
    apiVersion: string,
    kind: string,
    namespace: string | undefined,
    name: string,
  ): Promise<T | undefined> {
    try {
      return await this.get<T>(apiVersion, kind, namespace, name);
    } catch (e) {
      if (isNotFound(e)) return undefined;
      throw e;
    }
  }

  async list<T extends KObj = KObj>(
    apiVersion: string,
    kind: string,
    namespace?: string,
    labelSelector?: string,
  ): Promise<T[]> {
    const list = await this.request<{ items: T[] }>("GET", await this.pathOf(apiVersion, kind, namespace), {
      query: { labelSelector },
    });
    return list.items.map((i) => ({ ...i, apiVersion: i.apiVersion ?? apiVersion, kind: i.kind ?? kind }));
  }

  /**
   * A list as the API server prints it for `kubectl get` (meta.k8s.io/v1 Table: its columns and
   * each row's cells, the ages counted on the server's clock), as kubectl asks for it.
   */
  async table(apiVersion: string, kind: string, namespace?: string): Promise<ServerTable> {
    return this.request<ServerTable>("GET", await this.pathOf(apiVersion, kind, namespace), {
      accept: "application/json;as=Table;v=v1;g=meta.k8s.io,application/json",
      query: { includeObject: "None" },
    });
  }

  async create(obj: KObj, namespace?: string): Promise<KObj> {
    return this.request<KObj>(
      "POST",
      await this.pathOf(obj.apiVersion, obj.kind, namespace ?? obj.metadata.namespace),
      { body: obj },
    );
  }

  async replace(obj: KObj, namespace?: string): Promise<KObj> {
    return this.request<KObj>(
      "PUT",
      await this.pathOf(obj.apiVersion, obj.kind, namespace ?? obj.metadata.namespace, obj.metadata.name),
      { body: obj },
    );
  }

  async patch(
    apiVersion: string,
    kind: string,
    namespace: string | undefined,
    name: string,
    patch: unknown,
    type: "merge" | "strategic" | "json" = "merge",
  ): Promise<KObj> {
    const contentType = {
      merge: "application/merge-patch+json",
      strategic: "application/strategic-merge-patch+json",
      json: "application/json-patch+json",
    }[type];
    return this.request<KObj>("PATCH", await this.pathOf(apiVersion, kind, namespace, name), {
      body: patch,
      contentType,
    });
  }

  async delete(
    apiVersion: string,
    kind: string,
    namespace: string | undefined,
    name: string,
    opts: { gracePeriodSeconds?: number; propagationPolicy?: string } = {},
  ): Promise<boolean> {
    try {
      await this.request("DELETE", await this.pathOf(apiVersion, kind, namespace, name), {
        body: { kind: "DeleteOptions", apiVersion: "v1", ...opts },
      });
      return true;
    } catch (e) {
      if (isNotFound(e)) return false;
      throw e;
    }
  }

  /**
   * Create the object, or replace it (keeping its resourceVersion) when it exists. Like `kubectl
   * apply`, it records what was applied in the last-applied-configuration annotation, so that
   * anyone reading the object (an engineer, an agent, `kubectl apply view-last-applied`) can tell
   * the deployed configuration from later changes, on the embedded cluster as on k3s.
   */
  async apply(obj: KObj, namespace: string, tries = 3): Promise<KObj> {
    try {
      return await this.applyOnce(obj, namespace);
    } catch (e) {
      // a controller wrote the object's status between our read and our replace: read it again
      if (!(e instanceof KubeApiError && e.status === 409) || tries <= 1) throw e;
      return this.apply(obj, namespace, tries - 1);
    }
  }

  private async applyOnce(obj: KObj, namespace: string): Promise<KObj> {
    const live = await this.tryGet<Service>(obj.apiVersion, obj.kind, namespace, obj.metadata.name!);
    const applied = { ...obj, metadata: { ...obj.metadata, namespace } };
    const desired: KObj = {
      ...applied,
      metadata: {
        ...applied.metadata,
        annotations: { ...applied.metadata.annotations, [LAST_APPLIED]: lastApplied(applied) },
      },
    };
    if (!live) return this.create(desired, namespace);
    desired.metadata.resourceVersion = live.metadata.resourceVersion;
    // a Service keeps the address it was given (spec.clusterIP is immutable)
    if (obj.kind === "Service")
      desired.spec = {
        ...(desired as Service).spec,
        clusterIP: live.spec?.clusterIP,
        clusterIPs: live.spec?.clusterIPs,
      };
    return this.replace(desired, namespace);
  }

  async version(): Promise<{
    gitVersion: string;
    clockSpeed?: string;
    clockMillis?: string;
    clockShiftMillis?: string;
  }> {
    return this.request("GET", "/version", { timeoutMs: 10_000 });
  }
}

/** Open a watch and call onEvent for each event; returns a function that closes it. */
export async function openWatch(
  client: KubeClient,
  apiVersion: string,
  kind: string,
  namespace: string | undefined,
  onEvent: (type: string, obj: KObj) => void,
  query: Record<string, string | undefined> = {},
): Promise<() => void> {
  const url = new URL(client.server + (await client.pathOf(apiVersion, kind, namespace)));
  url.searchParams.set("watch", "true");
  for (const [k, v] of Object.entries(query)) if (v !== undefined) url.searchParams.set(k, v);
  const reqOpts: https.RequestOptions = { method: "GET", headers: { Accept: "application/json" } };
  await client.tls(reqOpts);
  const lib = url.protocol === "https:" ? https : http;
  let closed = false;
  const req = lib.request(url, reqOpts, (res) => {
    let buf = "";
    res.setEncoding("utf8");
    res.on("data", (chunk: string) => {
      buf += chunk;
      let i = buf.indexOf("\n");
      while (i >= 0) {
        const line = buf.slice(0, i).trim();
        buf = buf.slice(i + 1);
        if (line) {
          try {
            const e = JSON.parse(line) as { type: string; object: KObj };
            if (!closed) onEvent(e.type, e.object);
          } catch {
            // a partial or foreign line: the next poll catches up
          }
        }
        i = buf.indexOf("\n");
      }
    });
    res.on("error", () => {});
  });
  req.on("error", () => {}); // a broken watch only loses speed: waits also poll
  req.end();
  return () => {
    closed = true;
    req.destroy();
  };
}
