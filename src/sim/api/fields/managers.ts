// The field manager (k8s.io/apimachinery/pkg/util/managedfields and structured-merge-diff's
// merge.Updater): every write records who owns which fields in metadata.managedFields. An Update
// (create, replace, patch, a controller's write) gives its manager the fields it changed and takes
// them from the others; an Apply gives its manager exactly the fields of its configuration, and a
// field it changes that another manager owns is a conflict (409) unless forced, when ownership
// moves. A manager left owning nothing drops out; an entry's time moves only when its set does.
import type { KObject } from "../../core/types.js";
import { ApiError, type StatusCause } from "../status.js";
import { type Comparison, compare, fieldSet } from "./compare.js";
import {
  type FieldTree,
  fromFieldsV1,
  hasMember,
  intersect,
  minus,
  type PathSet,
  pathString,
  toFieldsV1,
  union,
} from "./tree.js";

export interface ManagedFieldsEntry {
  manager: string;
  operation: "Apply" | "Update";
  apiVersion: string;
  time: string;
  fieldsType: "FieldsV1";
  fieldsV1: FieldTree;
  subresource?: string;
}

export interface FieldWrite {
  manager: string;
  apiVersion: string;
  kind: string;
  /** Now, in whole seconds, as managedFields' times are written. */
  time: string;
  subresource?: string;
  /** Whether status is its own subresource: then a write of the object does not own status, and a status write owns only status. */
  hasStatus: boolean;
  /** A component's write of object and status at once (a controller's): its status changes go under the subresource. */
  withStatus?: boolean;
  /** Server-side apply: the configuration applied, and whether it may take fields from others. */
  apply?: { config: unknown; force: boolean };
}

/** Fields no manager owns (stripmeta.go): identity and what the server sets. */
const IGNORED = ["apiVersion", "kind"]
  .map((f) => `["f:${f}"`)
  .concat(
    [
      "name",
      "namespace",
      "creationTimestamp",
      "selfLink",
      "uid",
      "generation",
      "managedFields",
      "resourceVersion",
      "deletionTimestamp",
      "deletionGracePeriodSeconds",
    ].map((f) => `["f:metadata","f:${f}"`),
  );

function owned(set: PathSet, w: FieldWrite): PathSet {
  const status = (p: string) => p.startsWith('["f:status"');
  return new Set(
    [...set].filter((p) => {
      if (IGNORED.some((prefix) => p === `${prefix}]` || p.startsWith(`${prefix},`))) return false;
      if (!w.hasStatus) return true;
      return w.subresource === "status" ? status(p) : !status(p);
    }),
  );
}

interface Owner {
  entry: Omit<ManagedFieldsEntry, "fieldsV1">;
  /** As stored; read into `set` only when this write touches what the entry owns. */
  fieldsV1?: FieldTree;
  set?: PathSet;
}

const setOf = (o: Owner): PathSet => {
  o.set ??= fromFieldsV1(o.fieldsV1);
  return o.set;
};

/** Whether the owner holds any of the paths (its tree walked, not read, while it is untouched). */
const holdsAny = (o: Owner, paths: PathSet) =>
  o.set ? [...paths].some((p) => o.set!.has(p)) : [...paths].some((p) => hasMember(o.fieldsV1, p));

const sameOwner = (e: Owner["entry"], w: FieldWrite, op: string) =>
  e.manager === w.manager && e.operation === op && (e.subresource ?? "") === (w.subresource ?? "");

/**
 * The managedFields of `next` after this write over `old` (none for a create). Where status is a
 * subresource, what a component changes of it is recorded under that subresource, as its writes
 * to /status are; the rest under the object.
 */
export function manage(old: KObject | undefined, next: KObject, w: FieldWrite): ManagedFieldsEntry[] {
  const c = compare(unmanaged(old), unmanaged(next), w.kind);
  let owners: Owner[] = ((old?.metadata?.managedFields ?? []) as ManagedFieldsEntry[]).map(
    ({ fieldsV1, ...entry }) => ({ entry, fieldsV1 }),
  );
  if (w.hasStatus && w.withStatus && !w.apply && w.subresource !== "status")
    owners = write(owners, c, { ...w, subresource: "status" });
  return write(owners, c, w)
    .filter((o) => !o.set || o.set.size > 0)
    .map((o) => ({ ...o.entry, fieldsV1: o.set ? toFieldsV1(o.set) : o.fieldsV1! }));
}

/** The object without its managedFields, which no manager owns (and comparing would only walk). */
function unmanaged(o: KObject | undefined): KObject | Record<string, never> {
  if (!o) return {};
  const { managedFields: _m, ...metadata } = o.metadata ?? {};
  return { ...o, metadata };
}

function write(owners: Owner[], c: Comparison, w: FieldWrite): Owner[] {
  const op = w.apply ? "Apply" : "Update";
  const touched = owned(union(c.modified, c.added), w);
  const removed = owned(c.removed, w);
  if (!w.apply && touched.size === 0 && removed.size === 0) return owners;
  let mine = owners.find((o) => sameOwner(o.entry, w, op));
  if (!mine) {
    mine = {
      entry: {
        manager: w.manager,
        operation: op,
        apiVersion: w.apiVersion,
        time: w.time,
        fieldsType: "FieldsV1",
        ...(w.subresource ? { subresource: w.subresource } : {}),
      },
      set: new Set(),
    };
    owners.push(mine);
  }
  const conflicts: { owner: Owner; paths: PathSet }[] = [];
  for (const o of owners) {
    if (o === mine || !holdsAny(o, touched)) continue;
    conflicts.push({ owner: o, paths: intersect(setOf(o), touched) });
  }
  if (w.apply && !w.apply.force && conflicts.length) throw conflictError(conflicts);
  for (const o of owners)
    if (o !== mine && (holdsAny(o, touched) || holdsAny(o, removed)))
      o.set = minus(minus(setOf(o), touched), removed);
  const before = setOf(mine);
  mine.set = w.apply ? owned(fieldSet(w.apply.config, w.kind), w) : minus(union(before, touched), removed);
  if (!sameSet(before, mine.set)) mine.entry = { ...mine.entry, time: w.time, apiVersion: w.apiVersion };
  return owners.filter((o) => !o.set || o.set.size > 0);
}

const sameSet = (a: PathSet, b: PathSet) => a.size === b.size && [...a].every((p) => b.has(p));

/** How the apiserver names a manager in a conflict (fieldmanager's printManager). */
function named(e: Owner["entry"]): string {
  const sub = e.subresource ? ` with subresource ${JSON.stringify(e.subresource)}` : "";
  const using = e.operation === "Update" ? ` using ${e.apiVersion}` : "";
  return `${JSON.stringify(e.manager)}${sub}${using}`;
}

function conflictError(conflicts: { owner: Owner; paths: PathSet }[]): ApiError {
  const all = conflicts.flatMap(({ owner, paths }) =>
    [...paths].map((p) => ({ who: named(owner.entry), field: pathString(p) })),
  );
  const causes: StatusCause[] = all.map((x) => ({
    reason: "FieldManagerConflict",
    message: `conflict with ${x.who}`,
    field: x.field,
  }));
  const message =
    all.length === 1
      ? `Apply failed with 1 conflict: conflict with ${all[0].who}: ${all[0].field}`
      : `Apply failed with ${all.length} conflicts: ${[...new Set(all.map((x) => x.who))]
          .sort()
          .flatMap((who) => [
            `conflicts with ${who}:`,
            ...all.filter((x) => x.who === who).map((x) => `- ${x.field}`),
          ])
          .join("\n")}`;
  return new ApiError(409, "Conflict", message, { causes });
}
