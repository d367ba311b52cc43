// Sets of fields, as kube-apiserver's field manager keeps them (sigs.k8s.io/structured-merge-diff's
// fieldpath.Set) and writes them in managedFields (FieldsV1): a path is a list of elements, `f:name`
// a field, `k:{"name":"app"}` an item of a list keyed by its merge key, `v:"x"` an item of a set;
// in FieldsV1 a tree of those elements, where `.` marks a node that is itself a member.

/** A set of paths, each path JSON-encoded (so that equal paths are equal strings). */
export type PathSet = Set<string>;

export interface FieldTree {
  [element: string]: FieldTree;
}

const SELF = ".";

export const encode = (path: readonly string[]) => JSON.stringify(path);
const decode = (key: string) => JSON.parse(key) as string[];

export function toFieldsV1(set: PathSet): FieldTree {
  const tree: FieldTree = {};
  const paths = [...set].map(decode).sort((a, b) => a.length - b.length);
  for (const p of paths) {
    let node = tree;
    for (const el of p) node = node[el] ??= {};
  }
  // a member with members below it is marked with "."
  for (const p of paths) {
    let node = tree;
    for (const el of p) node = node[el];
    if (Object.keys(node).some((k) => k !== SELF)) node[SELF] = {};
  }
  return tree;
}

export function fromFieldsV1(tree: unknown, prefix: string[] = [], out: PathSet = new Set()): PathSet {
  if (!tree || typeof tree !== "object") return out;
  for (const [el, child] of Object.entries(tree as FieldTree)) {
    if (el === SELF) continue;
    const path = [...prefix, el];
    const keys = Object.keys(child ?? {});
    if (keys.length === 0 || keys.includes(SELF)) out.add(encode(path));
    fromFieldsV1(child, path, out);
  }
  return out;
}

export const union = (a: PathSet, b: PathSet): PathSet => new Set([...a, ...b]);
export const minus = (a: PathSet, b: PathSet): PathSet => new Set([...a].filter((p) => !b.has(p)));
export const intersect = (a: PathSet, b: PathSet): PathSet => new Set([...a].filter((p) => b.has(p)));

/** A path as the apiserver prints it in a conflict: `.spec.containers[name="app"].image`. */
export function pathString(key: string): string {
  return decode(key)
    .map((el) => {
      const rest = el.slice(2);
      if (el.startsWith("f:")) return `.${rest}`;
      if (el.startsWith("v:")) return `[${rest}]`;
      const fields = Object.entries(JSON.parse(rest) as Record<string, unknown>);
      return `[${fields.map(([k, v]) => `${k}=${JSON.stringify(v)}`).join(",")}]`;
    })
    .join("");
}

/** Whether a FieldsV1 tree holds the path as a member, read without converting the whole tree. */
export function hasMember(tree: FieldTree | undefined, key: string): boolean {
  let node = tree;
  for (const el of decode(key)) {
    node = node?.[el];
    if (!node) return false;
  }
  const keys = Object.keys(node ?? {});
  return keys.length === 0 || keys.includes(SELF);
}
