// Discovery documents: /version, /api, /apis and each group-version's resource list.
import type { ResourceType } from "../core/types.js";
import { apiVersionOf, groupVersions, RESOURCES } from "./resources.js";

export const KUBE_VERSION = { major: "1", minor: "31", gitVersion: "v1.31.6+k3s1" };

/**
 * /version as k3s answers it; to the cluster's admin (the harness), also how fast the clock runs
 * and where it is, which no other identity sees.
 */
export function versionInfo(speed: number, nowMs: number, admin = true, shiftMs = 0) {
  const info = {
    ...KUBE_VERSION,
    // k3s v1.31.6+k3s1's commit
    gitCommit: "6a225571a8a3ac4c6edbde8a8ca0a97ba9ee5b6a",
    gitTreeState: "clean",
    buildDate: "2026-01-01T00:00:00Z",
    goVersion: "go1.22.12",
    compiler: "gc",
    platform: "linux/amd64",
  };
  if (!admin) return info;
  return {
    ...info,
    // The embedded cluster says how fast its clock runs, so the runner need not be told twice.
    clockSpeed: String(speed),
    // ...and where its clock is: the runner measures cluster time by it (the clock may fall
    // behind the wall clock's pace when the engine is busy; it never runs ahead)
    clockMillis: String(Math.round(nowMs)),
    // ...and how far its shown time has moved in all, re-based between cases (docs/clock.md), so
    // the runner can move what it noted of shown time before a re-base
    clockShiftMillis: String(Math.round(shiftMs)),
  };
}

export function coreVersions() {
  return {
    kind: "APIVersions",
    versions: ["v1"],
    serverAddressByClientCIDRs: [{ clientCIDR: "0.0.0.0/0", serverAddress: "127.0.0.1:6443" }],
  };
}

/** `extra`: the custom resources CRDs have registered, served beside the built-in ones. */
export function apiGroupList(extra: ResourceType[] = []) {
  const groups = new Map<string, string[]>();
  for (const gv of groupVersions(extra)) {
    if (!gv.group) continue;
    groups.set(gv.group, [...(groups.get(gv.group) ?? []), gv.version]);
  }
  return {
    kind: "APIGroupList",
    apiVersion: "v1",
    groups: [...groups].map(([name, versions]) => ({
      name,
      versions: versions.map((v) => ({ groupVersion: `${name}/${v}`, version: v })),
      preferredVersion: { groupVersion: `${name}/${versions[0]}`, version: versions[0] },
    })),
  };
}

export function apiGroup(group: string, extra: ResourceType[] = []) {
  const list = apiGroupList(extra).groups.find((g) => g.name === group);
  return list ? { kind: "APIGroup", apiVersion: "v1", ...list } : undefined;
}

export function resourceList(group: string, version: string, extra: ResourceType[] = []) {
  const rs = [...RESOURCES, ...extra].filter((r) => r.group === group && r.version === version);
  if (!rs.length) return undefined;
  const resources = rs.flatMap((r) => [
    {
      name: r.resource,
      singularName: r.singular,
      namespaced: r.namespaced,
      kind: r.kind,
      verbs: r.verbs,
      ...(r.shortNames ? { shortNames: r.shortNames } : {}),
      ...(r.categories ? { categories: r.categories } : {}),
    },
    ...(r.subresources ?? []).map((s) => ({
      name: `${r.resource}/${s}`,
      singularName: "",
      namespaced: r.namespaced,
      kind: SUBRESOURCE_KINDS[s] ?? r.kind,
      // kubectl drain evicts only when pods/eviction names policy/v1 (CheckEvictionSupport)
      ...(s === "scale" ? { group: "autoscaling", version: "v1" } : {}),
      ...(s === "eviction" ? { group: "policy", version: "v1" } : {}),
      ...(s === "token" ? { group: "authentication.k8s.io", version: "v1" } : {}),
      verbs:
        s === "exec"
          ? ["create", "get"]
          : s === "log"
            ? ["get"]
            : CREATE_ONLY.has(s)
              ? ["create"]
              : ["get", "patch", "update"],
    })),
  ]);
  return { kind: "APIResourceList", apiVersion: "v1", groupVersion: apiVersionOf(rs[0]), resources };
}

const SUBRESOURCE_KINDS: Record<string, string> = {
  scale: "Scale",
  log: "Pod",
  exec: "PodExecOptions",
  eviction: "Eviction",
  binding: "Binding",
  token: "TokenRequest",
};
const CREATE_ONLY = new Set(["eviction", "binding", "token"]);
