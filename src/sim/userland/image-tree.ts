// The tree an image's root filesystem holds (`ls -la /` in a container), as its base ships it and
// its Dockerfile builds on it: src/sim/stages/image-trees.yaml gives each tree's layers (a base's
// directories, links and files, then what each step of the Dockerfile adds, with its date), and
// the distribution's commands (toolboxes.yaml) and its runtime's programs join them here. A tree
// is built once per image and shared: a container's root layer copies only the map of it.
import { hashString } from "../../util/rng.js";
import { canonicalIn, type TreeNode } from "./fs-base.js";
import { globRe } from "./glob.js";
import { parseImage } from "./images.js";
import { imageBinaries, imagePrograms, imageTools } from "./toolbox.js";

export type { TreeNode } from "./fs-base.js";

export interface ImageTree {
  nodes: ReadonlyMap<string, TreeNode>;
  /** The image's WORKDIR. */
  workdir: string;
  /** Wall ms of the image's build. */
  builtAt: number;
}

interface LayerDoc {
  at?: number;
  add: Record<string, string | number | null>;
}
interface TreeDoc {
  from?: string;
  built: string;
  spread?: number;
  /** `from` gives the shape of another release, not a layer below this one. */
  variant?: boolean;
  workdir?: string;
  layers?: LayerDoc[];
}
interface TreesDoc {
  trees: Record<string, TreeDoc>;
  images: { name: string; tag?: string; tree: string }[];
  toolsetTrees?: Record<string, string>;
  default: string;
  programs?: Record<string, Record<string, number>>;
}

let doc: TreesDoc | undefined;
const memo = new Map<string, ImageTree>();

/** The trees of the stages the embedded cluster is built with (kept per process, as toolboxes). */
export function installImageTrees(d: Record<string, unknown> | undefined): void {
  if (!d || (doc as unknown) === d) return;
  doc = d as unknown as TreesDoc;
  memo.clear();
}

/** One buffer per size and kind: a program's bytes are never read as text, so they are shared. */
const blobs = new Map<string, Buffer>();
const ELF = Buffer.from([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1]);
const ZIP = Buffer.from([0x50, 0x4b, 3, 4, 0x14, 0, 8, 8]);
function blob(n: number, path: string): Buffer {
  const head = /\.(jar|zip)$/.test(path) ? ZIP : /\.(so[.\d]*|pdb)$|\/[^./]+$/.test(path) ? ELF : undefined;
  const key = `${head ? head[0] : 0}:${n}`;
  let b = blobs.get(key);
  if (!b) {
    b = Buffer.alloc(n);
    head?.copy(b, 0, 0, Math.min(n, head.length));
    blobs.set(key, b);
  }
  return b;
}

const DAY = 24 * 3600 * 1000;
const spreadOf = (seed: string, n: number) =>
  Math.round(n * (0.8 + 0.4 * ((hashString(seed) % 1000) / 1000)));

/** Parse an entry of image-trees.yaml into a node (dates set by the caller). */
function entryNode(spec: string | number, path: string, seed: string, mtime: number): TreeNode {
  if (typeof spec === "number") return { dir: false, data: blob(spec, path), mtime, mode: 0o644 };
  if (spec.includes("\n")) return { dir: false, data: Buffer.from(spec), mtime, mode: 0o644 };
  if (spec.startsWith("->")) return { dir: false, data: Buffer.alloc(0), mtime, link: spec.slice(2).trim() };
  const [kind, ...rest] = spec.split(/\s+/);
  const octal = (t: string | undefined) => (t && /^[0-7]{3,4}$/.test(t) ? Number.parseInt(t, 8) : undefined);
  const sized = (t: string) => (t.startsWith("~") ? spreadOf(seed, Number(t.slice(1))) : Number(t));
  if (kind === "dir") {
    const mode = octal(rest[0]);
    const owner = rest[mode === undefined ? 0 : 1];
    return { dir: true, data: Buffer.alloc(0), mtime, mode: mode ?? 0o755, owner: ownerOf(owner) };
  }
  // "exe N", "file N [mode] [owner]" or a bare "~N"
  const [size, ...more] = kind === "exe" || kind === "file" ? rest : [kind, ...rest];
  const mode = octal(more[0]);
  return {
    dir: false,
    data: blob(sized(size ?? "0"), path),
    mtime,
    mode: mode ?? (kind === "exe" ? 0o755 : 0o644),
    owner: ownerOf(more[mode === undefined ? 0 : 1]),
  };
}

const ownerOf = (t: string | undefined) => (t ? (t.includes(":") ? t : `${t}:${t}`) : undefined);

const parentOf = (rel: string) => (rel.includes("/") ? rel.slice(0, rel.lastIndexOf("/")) : "");

function treeDoc(): TreesDoc | undefined {
  return doc;
}

/** Apply a tree's layers (its bases' first); returns the date of the first base's build. */
function build(name: string, image: string, d: TreesDoc, nodes: Map<string, TreeNode>, depth = 0): number {
  const t = d.trees[name];
  if (!t) throw new Error(`image-trees.yaml: no tree ${name}`);
  let baseAt = t.from && depth < 8 ? build(t.from, image, d, nodes, depth + 1) : Date.parse(t.built);
  const repo = parseImage(image)?.name ?? image;
  const built = Date.parse(t.built) + (t.spread ? (hashString(repo) % t.spread) * 1000 : 0);
  // a variant of another release's shape (jessie's of bullseye's Debian) is not built on it:
  // all of it dates from its own build
  if (t.variant) {
    for (const [k, n] of nodes) nodes.set(k, { ...n, mtime: built });
    baseAt = built;
  }
  const app = repo.slice(repo.lastIndexOf("/") + 1);
  for (const layer of t.layers ?? []) {
    const at = built + (layer.at ?? 0) * 1000;
    for (const [raw, spec] of Object.entries(layer.add ?? {})) {
      const path = canonicalIn(nodes, raw.replace(/\{app\}/g, app));
      if (spec === null) {
        nodes.delete(path);
        continue;
      }
      // a step that writes under a directory dates it (and any it creates on the way)
      for (let p = parentOf(path); ; p = parentOf(p)) {
        const n = nodes.get(p);
        if (n) {
          nodes.set(p, { ...n, mtime: at });
          break;
        }
        nodes.set(p, { dir: true, data: Buffer.alloc(0), mtime: at, mode: 0o755 });
        if (!p) break;
      }
      const old = nodes.get(path);
      const node = entryNode(spec, path, `${repo}/${path}`, at);
      nodes.set(path, old?.dir && node.dir ? { ...old, ...node, owner: node.owner ?? old.owner } : node);
    }
  }
  return baseAt;
}

/** Add the distribution's commands (dated from the base, `at`) and the runtime's programs. */
function addPrograms(image: string, d: TreesDoc, nodes: Map<string, TreeNode>, at: number) {
  const t = imageTools(image);
  const bb =
    t.tools.ps === "busybox" || t.toolset.startsWith("alpine") || t.toolset.startsWith("redis-alpine");
  const bbImage = t.toolset === "busybox";
  const sizes = d.programs ?? {};
  const parentDate = (p: string) => nodes.get(parentOf(p))?.mtime ?? at;
  if (bb || bbImage) {
    const self = bbImage ? sizes["busybox-image"]?.busybox : sizes.busybox?.busybox;
    if (!nodes.has("bin/busybox"))
      nodes.set("bin/busybox", {
        dir: false,
        data: blob(self ?? 824984, "bin/busybox"),
        mtime: at,
        mode: 0o755,
      });
  }
  const bins = imageBinaries(image);
  for (const abs of bins) {
    const path = canonicalIn(nodes, abs.slice(1));
    if (nodes.has(path) || !nodes.has(parentOf(path))) continue;
    const cmd = path.slice(path.lastIndexOf("/") + 1);
    if (bbImage) {
      const b = nodes.get("bin/busybox")!;
      nodes.set(path, { ...b, nlink: bins.length + 1 });
    } else if (bb) nodes.set(path, { dir: false, data: Buffer.alloc(0), mtime: at, link: "/bin/busybox" });
    else {
      const size = sizes.gnu?.[cmd] ?? 20000 + (hashString(cmd) % 120000);
      nodes.set(path, { dir: false, data: blob(size, path), mtime: at, mode: 0o755 });
    }
  }
  for (const abs of imagePrograms(image)) {
    const path = canonicalIn(nodes, abs.slice(1));
    if (nodes.has(path) || !nodes.has(parentOf(path))) continue;
    const size = 8000 + (hashString(abs) % 4_000_000);
    nodes.set(path, { dir: false, data: blob(size, path), mtime: parentDate(path), mode: 0o755 });
  }
}

/** Directory sizes and link counts as ext4 under overlayfs reports them. */
function finish(nodes: Map<string, TreeNode>) {
  const entries = new Map<string, number>();
  const subdirs = new Map<string, number>();
  for (const [path, n] of nodes) {
    if (!path) continue;
    const p = parentOf(path);
    entries.set(p, (entries.get(p) ?? 0) + 1);
    if (n.dir) subdirs.set(p, (subdirs.get(p) ?? 0) + 1);
  }
  for (const [path, n] of nodes) {
    if (!n.dir) continue;
    const e = entries.get(path) ?? 0;
    nodes.set(path, {
      ...n,
      size: 4096 * Math.max(1, Math.ceil(((e + 2) * 28) / 4096)),
      nlink: n.nlink ?? 2 + (subdirs.get(path) ?? 0),
    });
  }
}

function treeNameOf(image: string, d: TreesDoc): string {
  const ref = parseImage(image);
  const rule = ref
    ? d.images.find(
        (r) => globRe(r.name).test(ref.name) && (!r.tag || new RegExp(`^(?:${r.tag})$`).test(ref.tag)),
      )
    : undefined;
  if (rule) return rule.tree;
  const toolset = imageTools(image).toolset;
  return d.toolsetTrees?.[toolset] ?? d.default;
}

export function imageTree(image: string): ImageTree {
  let tree = memo.get(image);
  if (tree) return tree;
  const d = treeDoc();
  const nodes = new Map<string, TreeNode>();
  let workdir = "/";
  let builtAt = Date.UTC(2025, 0, 1);
  if (d) {
    const name = treeNameOf(image, d);
    const baseAt = build(name, image, d, nodes);
    const top = d.trees[name];
    // the nearest tree that says it gives the WORKDIR
    for (let t: TreeDoc | undefined = top, i = 0; t && i < 8; t = t.from ? d.trees[t.from] : undefined, i++)
      if (t.workdir) {
        workdir = t.workdir;
        break;
      }
    builtAt = Date.parse(top.built);
    if (imageTools(image).toolset !== "none") addPrograms(image, d, nodes, baseAt);
  } else nodes.set("", { dir: true, data: Buffer.alloc(0), mtime: builtAt - DAY });
  // what the catalog of toolboxes.yaml says the image adds (kept for images it alone describes)
  for (const [path, v] of Object.entries(imageTools(image).files)) {
    const rel = canonicalIn(nodes, path.replace(/^\/+/, ""));
    if (nodes.has(rel)) continue;
    nodes.set(
      rel,
      typeof v === "number"
        ? { dir: false, data: blob(v, rel), mtime: builtAt, mode: 0o755 }
        : { dir: false, data: Buffer.from(v), mtime: builtAt, mode: 0o644 },
    );
    for (let p = parentOf(rel); p && !nodes.has(p); p = parentOf(p))
      nodes.set(p, { dir: true, data: Buffer.alloc(0), mtime: builtAt, mode: 0o755 });
  }
  finish(nodes);
  tree = { nodes, workdir, builtAt };
  memo.set(image, tree);
  return tree;
}

/** The working directory of an image's processes: its WORKDIR, else /. */
export const imageWorkdir = (image: string) => imageTree(image).workdir;

/** Whether the image's root holds a file at an absolute path (what runc stats before an exec). */
export function imageTreeHas(image: string, path: string): boolean {
  if (!path.startsWith("/")) return false;
  const nodes = imageTree(image).nodes;
  const n = nodes.get(canonicalIn(nodes, path.replace(/^\/+/, "")));
  return !!n && !n.dir;
}
