// kubectl's RESTMapper: a resource as a user names it (deploy, deployment, deployments,
// deployments.apps, Deployment) to what the API serves, the first group-version discovery lists
// winning (core before the rest, as kubectl's priority order puts it), and the forms kubectl
// prints an object under (`deployment.apps/x` for -o name and the verbs' messages, `deployments.apps
// "x"` in the server's errors).
import { isMetrics, RESOURCES } from "../../api/resources.js";
import type { KObject, ResourceType } from "../../core/types.js";
import { KubectlError } from "./client.js";

export function resolveResource(name: string): ResourceType | undefined {
  const lower = name.toLowerCase();
  const dot = lower.indexOf(".");
  const [base, group] = dot > 0 ? [lower.slice(0, dot), lower.slice(dot + 1)] : [lower, undefined];
  return RESOURCES.find(
    (r) =>
      !isMetrics(r) &&
      (group === undefined || r.group === group || `${r.version}.${r.group}` === group) &&
      (r.resource === base ||
        r.singular === base ||
        r.kind.toLowerCase() === base ||
        r.shortNames?.includes(base)),
  );
}

/** A category (`all`): its resources in discovery's order, one version each. */
function category(name: string): ResourceType[] {
  const seen = new Set<string>();
  const found = RESOURCES.filter((r) => {
    if (!r.categories?.includes(name.toLowerCase()) || seen.has(`${r.group}/${r.resource}`)) return false;
    seen.add(`${r.group}/${r.resource}`);
    return true;
  });
  if (!found.length) mustResolve(name);
  return found;
}

export function mustResolve(name: string): ResourceType {
  const rt = resolveResource(name);
  if (!rt) throw new KubectlError(`error: the server doesn't have a resource type "${name.split(".")[0]}"`);
  return rt;
}

/** The URL path of a collection or an object. */
export function pathOf(rt: ResourceType, ns: string | undefined, name?: string, sub?: string): string {
  const base = rt.group ? `/apis/${rt.group}/${rt.version}` : `/api/${rt.version}`;
  const where = rt.namespaced && ns ? `/namespaces/${encodeURIComponent(ns)}` : "";
  const tail = name ? `/${encodeURIComponent(name)}${sub ? `/${sub}` : ""}` : "";
  return `${base}${where}/${rt.resource}${tail}`;
}

/** `deployment.apps/x`, `pod/x`: kubectl's name printer. */
export function nameOf(rt: ResourceType, name: string | undefined): string {
  const kind = rt.kind.toLowerCase();
  return `${rt.group ? `${kind}.${rt.group}` : kind}/${name ?? ""}`;
}

/** `deployments.apps`: the qualified resource, as in the server's messages. */
export const qualified = (rt: ResourceType) => (rt.group ? `${rt.resource}.${rt.group}` : rt.resource);

export interface Target {
  rt: ResourceType;
  name?: string;
}

/**
 * ResourceTypeOrNameArgs: `TYPE NAME...`, `TYPE/NAME...`, `TYPE` alone (all of them) when
 * `allowAll`. Mixed forms fail as kubectl says.
 */
export function targets(args: string[], allowAll = false): Target[] {
  if (!args.length)
    throw new KubectlError(
      "error: You must provide one or more resources by argument or filename.\nExample resource specifications include:\n   '-f rsrc.yaml'\n   '--filename=rsrc.json'\n   '<resource> <name>'\n   '<resource>'",
    );
  if (args.some((a) => a.includes("/"))) {
    return args.map((a) => {
      const i = a.indexOf("/");
      if (i < 0)
        throw new KubectlError(
          `error: there is no need to specify a resource type as a separate argument when passing arguments in resource/name form (e.g. 'kubectl get resource/<resource_name>' instead of 'kubectl get resource resource/<resource_name>'`,
        );
      return { rt: mustResolve(a.slice(0, i)), name: a.slice(i + 1) };
    });
  }
  const types = args[0].split(",").flatMap((n) => {
    const rt = resolveResource(n);
    return rt ? [rt] : category(n);
  });
  const names = args.slice(1);
  if (!names.length) {
    if (!allowAll) throw new KubectlError(`error: resource(s) were provided, but no name was specified`);
    return types.map((rt) => ({ rt }));
  }
  return types.flatMap((rt) => names.map((name) => ({ rt, name })));
}

export function kindOf(o: KObject): string {
  return String(o.kind ?? "");
}
