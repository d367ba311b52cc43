// Loading the stage data (src/sim/stages/*.yaml). The build copies only .ts files to dist/, so a
// file that is not next to the module is looked up under the package root (the directory holding
// package.json, walking up from here), where src/sim/stages/ ships.
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parse } from "yaml";
import type { Stage, StageEvent } from "./stage.js";

export type SizeClass = "small" | "medium" | "large";

export interface BackoffSpec {
  initial: number;
  max: number;
}

export interface ProbeTexts {
  down: string;
  failing: string;
  timeout: string;
  /** What listens speaks another protocol ({{error}}: the client's error). */
  garbled?: string;
}

export interface SchedulingDoc {
  delay: number;
  retry: number;
  scheduled: StageEvent;
  failed: StageEvent;
  summary: string;
  reasons: Record<
    "cpu" | "memory" | "pods" | "selector" | "taint" | "unschedulable",
    { text: string; preemption: string }
  >;
}

export interface PodStagesDoc {
  timings: {
    sandbox: number;
    pull: Record<SizeClass | "cached", number>;
    pullFail: number;
    create: number;
    start: number;
    stop: number;
    sync: number;
    housekeeping: number;
  };
  backoff: { crash: BackoffSpec; pull: BackoffSpec };
  probes: { event: StageEvent } & Record<"httpGet" | "tcpSocket" | "grpc" | "exec", ProbeTexts>;
  scheduling: SchedulingDoc;
  stages: Stage[];
}

export interface RepositoryDoc {
  name: string;
  size?: SizeClass;
  bytes?: number;
  /** A family of images (`*` in name): bytes by the repository's last path segment. */
  byImage?: Record<string, number>;
  process?: string;
  tags?: string[];
  patterns?: string[];
}

export interface ImagesDoc {
  defaultRegistry: string;
  broken: string[];
  sizes: Record<SizeClass, number>;
  unknownSize: SizeClass;
  /** Failed-pull messages by kind: a missing tag, and each registry's missing repository. */
  errors: Record<string, string> & { tag: string; repository: string };
  /** Which `errors` entry a registry answers a repository it does not have with (and `default`). */
  registries?: Record<string, string>;
  repositories: RepositoryDoc[];
}

/** A CRD the k3s server applies, in short: kind, group, version, scope, printer columns. */
export interface K3sCrdDoc {
  kind: string;
  group: string;
  version: string;
  scope?: "Namespaced" | "Cluster";
  /** [name, jsonPath] of each additionalPrinterColumn (all strings, as wrangler's WithColumn). */
  columns?: [string, string][];
}

/** What a new k3s cluster has besides the built-in API (src/sim/stages/k3s.yaml). */
export interface K3sDoc {
  crds: K3sCrdDoc[];
  objects: Record<string, unknown>[];
}

/** The path of a file of src/sim/stages, from src (vitest) or from dist (the built CLI). */
export function stagesPath(name: string): string {
  const beside = new URL(`../stages/${name}`, import.meta.url);
  if (existsSync(beside)) return fileURLToPath(beside);
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = join(dir, "src", "sim", "stages", name);
    if (existsSync(join(dir, "package.json")) && existsSync(candidate)) return candidate;
    const up = dirname(dir);
    if (up === dir) break;
    dir = up;
  }
  throw new Error(
    `stage file ${name} not found beside ${fileURLToPath(import.meta.url)} nor under src/sim/stages of the package root`,
  );
}

const cache = new Map<string, unknown>();

function load<T>(name: string, required: string[]): T {
  let doc = cache.get(name);
  if (!doc) {
    const path = stagesPath(name);
    doc = parse(readFileSync(path, "utf8"));
    const missing = required.filter((k) => (doc as Record<string, unknown>)?.[k] === undefined);
    if (missing.length) throw new Error(`${path}: missing ${missing.join(", ")}`);
    cache.set(name, doc);
  }
  return doc as T;
}

/** The simulator's data, given to the embedded cluster by whoever starts it (the CLI). */
export interface StageDocs {
  pod: PodStagesDoc;
  images: ImagesDoc;
  /** What is inside images and what their HTTP servers answer (src/sim/userland/toolbox.ts). */
  toolboxes: Record<string, unknown>;
  /** The CRDs and objects a k3s server starts a cluster with (src/sim/cluster/k3s.ts). */
  k3s: K3sDoc;
  /** What each image's root filesystem holds (src/sim/userland/image-tree.ts). */
  imageTrees?: Record<string, unknown>;
}

const REQUIRED: Record<string, string[]> = {
  "pod.yaml": ["timings", "backoff", "probes", "scheduling", "stages"],
  "images.yaml": ["broken", "sizes", "errors", "repositories"],
  "toolboxes.yaml": ["toolsets", "images", "runtimes", "signals", "default", "http"],
  "k3s.yaml": ["crds", "objects"],
  "image-trees.yaml": ["trees", "images", "default"],
};

/** The stage files of a folder (the package's: the folder of stagesPath("pod.yaml")). */
export function loadStages(dir: string): StageDocs {
  const read = <T>(name: string): T => {
    const path = join(dir, name);
    const doc = parse(readFileSync(path, "utf8")) as Record<string, unknown> | null;
    const missing = REQUIRED[name].filter((k) => doc?.[k] === undefined);
    if (missing.length) throw new Error(`${path}: missing ${missing.join(", ")}`);
    return doc as T;
  };
  return {
    pod: read("pod.yaml"),
    images: read("images.yaml"),
    toolboxes: read("toolboxes.yaml"),
    k3s: read("k3s.yaml"),
    imageTrees: read("image-trees.yaml"),
  };
}

export const podStages = () =>
  load<PodStagesDoc>("pod.yaml", ["timings", "backoff", "probes", "scheduling", "stages"]);
export const imagesDoc = () => load<ImagesDoc>("images.yaml", ["broken", "sizes", "errors", "repositories"]);

let builtin: StageDocs | undefined;

/** The package's stage files (src/sim/stages), loaded once per process. */
export function builtinStages(): StageDocs {
  builtin ??= loadStages(dirname(stagesPath("pod.yaml")));
  return builtin;
}
