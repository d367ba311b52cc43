// What the agent changed, read from the API proxy's audit log of the case (api-audit.jsonl, one
// line per request its playbooks, probes and external agent made): each write that the API
// accepted, as verb, resource and name. Reads (GET, watches) and a pod's exec, attach, log or
// port-forward change nothing and are left out; a refused write changed nothing either. A
// create's path ends at the collection: its name is the one the proxy read from the request's
// body (api-proxy.ts, created-name.ts).
import { existsSync, readFileSync } from "node:fs";

/** One change the agent made to an object of the cluster. */
export interface Change {
  verb: "create" | "update" | "patch" | "delete";
  /** The API's plural resource: deployments, pods, services, networkpolicies, ... */
  resource: string;
  /** Absent for a delete of a collection, and a create whose name the log does not hold. */
  name?: string;
  /** A subresource written through (scale, status, eviction). */
  subresource?: string;
  namespace?: string;
}

const VERBS: Record<string, Change["verb"]> = {
  POST: "create",
  PUT: "update",
  PATCH: "patch",
  DELETE: "delete",
};
const READS = new Set(["exec", "attach", "log", "portforward", "proxy"]);

/**
 * A request path as a change: /api/v1/namespaces/ns/pods/x, /apis/apps/v1/namespaces/ns/deployments/x/scale;
 * `created` names the object a create (a POST to a collection) made.
 */
export function changeOf(method: string, path: string, created?: string): Change | undefined {
  const verb = VERBS[method];
  if (!verb) return undefined;
  const parts = path.split("/").filter(Boolean);
  const at = parts[0] === "api" ? 2 : parts[0] === "apis" ? 3 : -1;
  if (at < 0) return undefined;
  const rest = parts.slice(at);
  const namespace = rest[0] === "namespaces" && rest.length > 2 ? rest[1] : undefined;
  const [resource, named, subresource] = namespace ? rest.slice(2) : rest;
  const name = named ?? (verb === "create" ? created : undefined);
  // access reviews and token requests are questions, not changes
  if (!resource || /reviews$/.test(resource) || READS.has(subresource ?? "")) return undefined;
  return {
    verb,
    resource,
    ...(name ? { name } : {}),
    ...(subresource ? { subresource } : {}),
    ...(namespace ? { namespace } : {}),
  };
}

/** Every accepted write of the log, in order. */
export function changesIn(auditLog: string): Change[] {
  if (!existsSync(auditLog)) return [];
  const out: Change[] = [];
  for (const line of readFileSync(auditLog, "utf8").split("\n")) {
    if (!line.trim()) continue;
    let e: { method?: string; path?: string; status?: number; name?: string };
    try {
      e = JSON.parse(line);
    } catch {
      continue;
    }
    if (!e.method || !e.path || (e.status ?? 0) >= 400) continue;
    const c = changeOf(e.method, e.path, e.name);
    if (c) out.push(c);
  }
  return out;
}

/** "patch deployments/hello-service", "create services/hello-service", "create pods/x/eviction". */
export const changeLabel = (c: Change) =>
  `${c.verb} ${c.resource}${c.name ? `/${c.name}` : ""}${c.subresource ? `/${c.subresource}` : ""}`;
