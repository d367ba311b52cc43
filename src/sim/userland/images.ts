// The simulated registry: parses image references as containerd does, and decides from
// src/sim/stages/images.yaml whether an image exists, how big it is and what a failed pull says.
import { createHash } from "node:crypto";
import { type ImagesDoc, imagesDoc, type RepositoryDoc, type SizeClass } from "../stages/load.js";
import { render } from "../stages/stage.js";

export interface ImageRef {
  /** Registry and path, e.g. docker.io/library/nginx. */
  name: string;
  tag: string;
  digest?: string;
  /** What containerd reports as the image: docker.io/library/nginx:1.25. */
  canonical: string;
}

export interface ImageInfo {
  ref?: ImageRef;
  availability: "invalid" | "missing" | "present";
  size: SizeClass;
  bytes: number;
  /** The main process, for OOM messages. */
  process?: string;
  /** Why a pull fails (for missing images). */
  error: string;
  /** docker.io/library/nginx@sha256:... */
  imageID: string;
}

/**
 * The size of one image of a family (Online-Boutique's or Train-Ticket's services): its own when
 * the catalog lists it, else the family's size spread by up to a fifth either way, fixed by the
 * image's name, since no two images of a family are built from the same layers.
 */
function familyBytes(doc: RepositoryDoc | undefined, name: string): number | undefined {
  if (!doc?.name.includes("*")) return undefined;
  const own = doc.byImage?.[name.slice(name.lastIndexOf("/") + 1)];
  if (own !== undefined) return own;
  if (doc.bytes === undefined) return undefined;
  const h = createHash("sha256").update(name).digest().readUInt32BE(0) / 2 ** 32;
  return Math.round(doc.bytes * (0.8 + 0.4 * h));
}

const COMPONENT = /^[a-z0-9]+(?:(?:\.|_|__|-+)[a-z0-9]+)*$/;
const DOMAIN =
  /^(?:localhost|[a-zA-Z0-9-]+(?:\.[a-zA-Z0-9-]+)+|[a-zA-Z0-9-]+:\d+|[a-zA-Z0-9-]+(?:\.[a-zA-Z0-9-]+)+:\d+)$/;
const TAG = /^[\w][\w.-]{0,127}$/;
const DIGEST = /^[a-z0-9]+:[a-f0-9]{32,}$/;

/** Parse a reference as the docker/containerd normalizer does; undefined when it is invalid. */
export function parseImage(raw: string, defaultRegistry = "docker.io"): ImageRef | undefined {
  let rest = raw.trim();
  if (!rest || rest !== raw) return undefined;
  let digest: string | undefined;
  const at = rest.indexOf("@");
  if (at >= 0) {
    digest = rest.slice(at + 1);
    rest = rest.slice(0, at);
    if (!DIGEST.test(digest)) return undefined;
  }
  let tag: string | undefined;
  const colon = rest.lastIndexOf(":");
  if (colon > rest.lastIndexOf("/")) {
    tag = rest.slice(colon + 1);
    rest = rest.slice(0, colon);
    if (!TAG.test(tag)) return undefined;
  }
  const parts = rest.split("/");
  let domain = defaultRegistry;
  if (parts.length > 1 && (parts[0].includes(".") || parts[0].includes(":") || parts[0] === "localhost")) {
    domain = parts.shift()!;
    if (!DOMAIN.test(domain)) return undefined;
  }
  if (!parts.every((p) => COMPONENT.test(p))) return undefined;
  if (domain === "docker.io" && parts.length === 1) parts.unshift("library");
  const name = `${domain}/${parts.join("/")}`;
  const finalTag = tag ?? (digest ? "" : "latest");
  return {
    name,
    tag: finalTag,
    digest,
    canonical: digest && !tag ? `${name}@${digest}` : `${name}:${finalTag}`,
  };
}

function globToRegExp(glob: string): RegExp {
  const body = glob
    .split(/(\*\*|\*)/)
    .map((p) => (p === "**" ? ".*" : p === "*" ? "[^/]*" : p.replace(/[.+?^${}()|[\]\\]/g, "\\$&")))
    .join("");
  return new RegExp(`^${body}$`);
}

interface Repo {
  doc: RepositoryDoc;
  name: RegExp;
  patterns: RegExp[];
}

export class ImageCatalog {
  private readonly repos: Repo[];
  private readonly memo = new Map<string, ImageInfo>();
  /** Published references (canonical) and the repositories they name. */
  private readonly published = new Set<string>();
  private readonly publishedRepos = new Set<string>();

  /** `published`: images that exist whatever the catalog says (the systems' own manifests). */
  constructor(
    private readonly doc: ImagesDoc = imagesDoc(),
    published: readonly string[] = [],
  ) {
    this.repos = doc.repositories.map((r) => ({
      doc: r,
      name: globToRegExp(r.name),
      patterns: (r.patterns ?? []).map((p) => new RegExp(`^(?:${p})$`)),
    }));
    for (const image of published) {
      const ref = parseImage(image, doc.defaultRegistry);
      if (!ref) continue;
      this.published.add(ref.canonical);
      this.publishedRepos.add(ref.name);
    }
  }

  lookup(image: string): ImageInfo {
    let info = this.memo.get(image);
    if (!info) {
      info = this.decide(image);
      this.memo.set(image, info);
    }
    return info;
  }

  private decide(image: string): ImageInfo {
    const ref = parseImage(image, this.doc.defaultRegistry);
    if (!ref)
      return {
        availability: "invalid",
        size: "small",
        bytes: 0,
        error: "invalid reference format",
        imageID: "",
      };
    const repo = this.repos.find((r) => r.name.test(ref.name));
    const size = repo?.doc.size ?? this.doc.unknownSize;
    const base = {
      ref,
      size,
      bytes: familyBytes(repo?.doc, ref.name) ?? repo?.doc.bytes ?? this.doc.sizes[size],
      process: repo?.doc.process,
      imageID: `${ref.name}@${ref.digest ?? `sha256:${createHash("sha256").update(ref.canonical).digest("hex")}`}`,
    };
    const broken = (s: string) => this.doc.broken.some((b) => s.toLowerCase().includes(b));
    const host = ref.name.slice(0, ref.name.indexOf("/"));
    const path = ref.name.slice(host.length + 1);
    const missing = (what: string) => ({
      ...base,
      availability: "missing" as const,
      error: render(this.doc.errors[what] ?? this.doc.errors.tag, {
        ref: ref.canonical,
        host,
        path,
        tag: ref.tag || (ref.digest ?? ""),
      }),
    });
    // what the registry answers for a repository it does not have
    const noRepository = () =>
      missing(this.doc.registries?.[host] ?? this.doc.registries?.default ?? "repository");
    const present = { ...base, availability: "present" as const, error: "" };
    if (this.published.has(ref.canonical)) return present;
    if (broken(path)) return missing("repository");
    if (broken(ref.tag)) return missing("tag");
    if (!repo) return this.publishedRepos.has(ref.name) ? missing("tag") : noRepository();
    const known =
      ref.digest || (repo.doc.tags ?? []).includes(ref.tag) || repo.patterns.some((p) => p.test(ref.tag));
    return known ? present : missing("tag");
  }
}
