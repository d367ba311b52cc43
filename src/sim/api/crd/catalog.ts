// The custom resources CRDs have registered: what discovery lists beside the built-in kinds and
// what the router accepts, per cluster. A CRD's served versions each become a ResourceType; the
// version's schema and printer columns stay with it.

import type { CrdNames, CrdSpec, CrdVersion } from "../../core/objects.js";
import type { KObject, ResourceType } from "../../core/types.js";
import { resourceByPath } from "../resources.js";
import type { PrinterColumn } from "../table/index.js";
import type { Schema } from "./schema.js";

const RW = ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"];

export interface ServedVersion {
  rt: ResourceType;
  crd: string;
  schema?: Schema;
  columns?: PrinterColumn[];
}

export class CustomCatalog {
  private readonly byCrd = new Map<string, ServedVersion[]>();
  private readonly byPathKey = new Map<string, ServedVersion>();

  /** Serve (or re-serve, after an update) the versions a CRD declares. */
  register(crd: KObject): void {
    this.unregister(crd.metadata.name!);
    // admission (admission/crd.ts) has checked the names, group and versions it reads
    const spec = (crd.spec ?? {}) as CrdSpec;
    const names: CrdNames = spec.names ?? {};
    const served: ServedVersion[] = [];
    const versions = [...(spec.versions ?? [])]
      .filter((v: CrdVersion) => v?.served)
      .sort((a: CrdVersion, b: CrdVersion) => compareVersions(a.name, b.name));
    for (const v of versions) {
      // A built-in (the Chaos Mesh kinds) keeps serving its own resource.
      if (resourceByPath(spec.group, v.name, names.plural)) continue;
      const sub = v.subresources ?? {};
      const subresources = [
        ...(sub.status ? ["status"] : []),
        ...(sub.scale?.specReplicasPath === ".spec.replicas" ? ["scale"] : []),
      ];
      const rt: ResourceType = {
        group: spec.group,
        version: v.name,
        resource: names.plural,
        kind: names.kind,
        singular: names.singular ?? String(names.kind).toLowerCase(),
        namespaced: spec.scope !== "Cluster",
        verbs: RW,
        custom: true,
        ...(names.shortNames?.length ? { shortNames: names.shortNames } : {}),
        ...(names.categories?.length ? { categories: names.categories } : {}),
        ...(subresources.length ? { subresources } : {}),
      };
      const sv: ServedVersion = {
        rt,
        crd: crd.metadata.name!,
        schema: v.schema?.openAPIV3Schema,
        columns: v.additionalPrinterColumns,
      };
      served.push(sv);
      this.byPathKey.set(pathKey(rt.group, rt.version, rt.resource), sv);
    }
    this.byCrd.set(crd.metadata.name!, served);
  }

  unregister(crdName: string): void {
    for (const sv of this.byCrd.get(crdName) ?? [])
      this.byPathKey.delete(pathKey(sv.rt.group, sv.rt.version, sv.rt.resource));
    this.byCrd.delete(crdName);
  }

  byPath(group: string, version: string, resource: string): ResourceType | undefined {
    return this.byPathKey.get(pathKey(group, version, resource))?.rt;
  }

  served(rt: ResourceType): ServedVersion | undefined {
    return rt.custom ? this.byPathKey.get(pathKey(rt.group, rt.version, rt.resource)) : undefined;
  }

  /** Every served custom resource, in registration order. */
  resources(): ResourceType[] {
    return [...this.byCrd.values()].flat().map((sv) => sv.rt);
  }

  /** One ResourceType per CRD (its preferred version): what namespace and CRD cleanup walk. */
  preferred(): ResourceType[] {
    return [...this.byCrd.values()].filter((vs) => vs.length > 0).map((vs) => vs[0].rt);
  }

  /** The resource of a CRD by name (its preferred version). */
  ofCrd(crdName: string): ResourceType | undefined {
    return this.byCrd.get(crdName)?.[0]?.rt;
  }
}

const pathKey = (g: string, v: string, r: string) => `${g}/${v}/${r}`;

/**
 * Kube-aware version order (apimachinery's version.CompareKubeAwareVersionStrings): GA before
 * beta before alpha, higher numbers first, anything else after, alphabetically.
 */
export function compareVersions(a: string, b: string): number {
  const rank = (v: string) => {
    const m = /^v(\d+)(?:(alpha|beta)(\d+))?$/.exec(v);
    if (!m) return undefined;
    const level = m[2] === undefined ? 2 : m[2] === "beta" ? 1 : 0;
    return [level, Number(m[1]), Number(m[3] ?? 0)];
  };
  const ra = rank(a);
  const rb = rank(b);
  if (!ra || !rb) return ra ? -1 : rb ? 1 : a.localeCompare(b);
  for (let i = 0; i < 3; i++) if (ra[i] !== rb[i]) return rb[i] - ra[i];
  return 0;
}
