// The API server as a container reaches it (context/apiserver.ts): requests go over HTTPS to the
// server on loopback, so a pod's kubectl passes the same authentication, RBAC, admission and
// managedFields bookkeeping as any client; and the token the kubelet projects into a pod, a bound
// token the TokenRequest API issues for the pod's ServiceAccount (kubelet token manager: 3607 s,
// renewed once 80% of its life has passed; pkg/kubelet/token/token_manager.go).
import { Agent, request as httpsRequest } from "node:https";
import { R } from "../api/resources.js";
import type { ClusterAuth } from "../auth/index.js";
import { API_AUDIENCES } from "../auth/tokens.js";
import type { ApiRequest, ApiResponse, InClusterApi } from "../context/apiserver.js";
import type { Pod } from "../core/objects.js";
import type { KObject } from "../core/types.js";
import type { Store } from "../store/store.js";

const TOKEN_SECONDS = 3607;

export function inClusterApi(store: Store, auth: ClusterAuth, port: () => number | undefined): InClusterApi {
  const cache = new Map<string, { token: string; renewAt: number; sa: string }>();
  // one kept-alive connection pool, as a client's transport keeps its connections (no TLS
  // handshake per kubectl call); idle sockets do not hold the process open
  let pool: Agent | undefined;
  const agent = () => {
    pool ??= new Agent({ keepAlive: true, ca: auth.pki.ca, maxFreeSockets: 4 });
    return pool;
  };
  store.subscribe((e) => {
    if (e.type === "DELETED" && e.rt.kind === "Pod" && e.object.metadata.uid)
      cache.delete(e.object.metadata.uid);
  });
  return {
    request(r: ApiRequest): Promise<ApiResponse> {
      const p = port();
      if (p === undefined) {
        const e = Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" });
        return Promise.reject(e);
      }
      return new Promise((resolve, reject) => {
        const req = httpsRequest(
          {
            host: "127.0.0.1",
            port: p,
            method: r.method,
            path: r.path,
            headers: {
              ...r.headers,
              ...(r.body !== undefined ? { "Content-Length": Buffer.byteLength(r.body) } : {}),
            },
            agent: agent(),
          },
          (res) => {
            const chunks: Buffer[] = [];
            res.on("data", (c: Buffer) => chunks.push(c));
            res.on("end", () =>
              resolve({
                status: res.statusCode ?? 0,
                headers: res.headers,
                body: Buffer.concat(chunks).toString(),
              }),
            );
            res.on("error", reject);
          },
        );
        req.on("error", reject);
        if (r.body !== undefined) req.write(r.body);
        req.end();
      });
    },
    projectedToken(obj: KObject) {
      const pod = obj as Pod;
      const ns = pod.metadata.namespace ?? "default";
      const saName = pod.spec?.serviceAccountName || "default";
      const sa = store.get(R("ServiceAccount"), ns, saName);
      if (!sa) return undefined;
      const key = pod.metadata.uid ?? `${ns}/${pod.metadata.name}`;
      const now = auth.tokens.nowSeconds();
      let t = cache.get(key);
      // a new token when the old one is 80% through its life, or the ServiceAccount was replaced
      if (!t || now >= t.renewAt || t.sa !== sa.metadata.uid) {
        const bound = auth.tokens.bound(sa, API_AUDIENCES, TOKEN_SECONDS, {
          kind: "Pod",
          name: pod.metadata.name!,
          uid: pod.metadata.uid,
        });
        t = {
          token: bound.token,
          renewAt: now + Math.floor(TOKEN_SECONDS * 0.8),
          sa: String(sa.metadata.uid),
        };
        cache.set(key, t);
      }
      return { token: t.token, ca: auth.pki.ca };
    },
  };
}
