// What the agent changed, read from the API proxy's audit log of the case (api-audit.jsonl, one
// line per request its playbooks, probes and external agent made): each write that the API
// accepted, as verb, resource and name. Reads (GET, watches) and a pod's exec, attach, log or
// port-forward change nothing and are left out; a refused write changed nothing either.
import { existsSync, readFileSync } from "node:fs";

/** One change the agent made to an object of the cluster. */
export interface Change {
  verb: "create" | "update" | "patch" | "delete";
  /** The API's plural resource: deployments, pods, services, networkpolicies, ... */
  resource: string;
  /** Absent for a create (its name is in the body) and a delete of a collection. */
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

/** A request path as a change: /api/v1/namespaces/ns/pods/x, /apis/apps/v1/namespaces/ns/deployments/x/scale. */
export function changeOf(method: string, path: string): Change | undefined {
  const verb = VERBS[method];
  if (!verb) return undefined;
  const parts = path.split("/").filter(Boolean);
  const at = parts[0] === "api" ? 2 : parts[0] === "apis" ? 3 : -1;
  if (at < 0) return undefined;
  const rest = parts.slice(at);
  const namespace = rest[0] === "namespaces" && rest.length > 2 ? rest[1] : undefined;
  const [resource, name, subresource] = namespace ? rest.slice(2) : rest;
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
    let e: { method?: string; path?: string; status?: number };
    try {
      e = JSON.parse(line);
    } catch {
      continue;
    }
    if (!e.method || !e.path || (e.status ?? 0) >= 400) continue;
    const c = changeOf(e.method, e.path);
    if (c) out.push(c);
  }
  return out;
}

/** "patch deployments/hello-service", "create services", "create pods/x/eviction". */
export const changeLabel = (c: Change) =>
  `${c.verb} ${c.resource}${c.name ? `/${c.name}` : ""}${c.subresource ? `/${c.subresource}` : ""}`;
