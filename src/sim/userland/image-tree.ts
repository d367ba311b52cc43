// The tree an image's root filesystem holds (`ls -la /` in a container), as its base and its
// Dockerfile build it: Debian's top directories (boot and lib64 among them), Alpine's and
// BusyBox's (neither has boot; Alpine has no lib64), nothing for a FROM-scratch image (pause,
// distroless), and the files the image adds (toolboxes.yaml `files`: productcatalogservice's
// /src/server and /src/products.json). Everything in it dates from the image's build, not from
// the container's start.
import { hashString } from "../../util/rng.js";
import { imageTools } from "./toolbox.js";

const DEBIAN = [
  "bin",
  "boot",
  "dev",
  "etc",
  "home",
  "lib",
  "lib64",
  "media",
  "mnt",
  "opt",
  "proc",
  "root",
  "run",
  "sbin",
  "srv",
  "sys",
  "tmp",
  "usr",
  "var",
];
/** Alpine's top directories: Debian's but boot and lib64. */
const ALPINE = DEBIAN.filter((d) => d !== "boot" && d !== "lib64");
const BUSYBOX = ["bin", "dev", "etc", "home", "lib", "lib64", "proc", "root", "sys", "tmp", "usr", "var"];
/** Below the top: what every distribution has and the simulation's files sit in. */
const COMMON = [
  "dev/mqueue",
  "dev/pts",
  "dev/shm",
  "sys/firmware",
  "usr/bin",
  "usr/lib",
  "usr/local",
  "usr/local/bin",
  "usr/sbin",
  "usr/share",
  "var/lib",
  "var/log",
  "var/tmp",
];
/** Builds fall within the year before 2026-01-01 (wall ms), fixed by the image's name. */
const EPOCH = Date.UTC(2025, 0, 1);
const YEAR = 365 * 24 * 3600 * 1000;

/** One buffer per size: a program's bytes are never read as text, so they are shared. */
const blobs = new Map<number, Buffer>();
const blob = (n: number) => {
  let b = blobs.get(n);
  if (!b) {
    b = Buffer.alloc(n);
    blobs.set(n, b);
  }
  return b;
};

export interface ImageTree {
  dirs: string[];
  files: Map<string, Buffer>;
  /** Wall ms of the image's build (the tree's mtimes). */
  builtAt: number;
}

export function imageTree(image: string): ImageTree {
  const t = imageTools(image);
  const builtAt = EPOCH + (hashString(image.replace(/[:@].*$/, "")) % 1000) * (YEAR / 1000);
  if (t.toolset === "none") return { dirs: ["dev", "proc", "sys", "etc"], files: new Map(), builtAt };
  const busybox = t.toolset === "busybox";
  const alpine = !busybox && (t.toolset.startsWith("alpine") || t.tools.ps === "busybox");
  const top = busybox ? BUSYBOX : alpine ? ALPINE : DEBIAN;
  const files = new Map<string, Buffer>();
  const dirs = new Set([...top, ...COMMON]);
  for (const [path, v] of Object.entries(t.files)) {
    const rel = path.replace(/^\/+/, "");
    files.set(rel, typeof v === "number" ? blob(v) : Buffer.from(v));
    const parts = rel.split("/");
    for (let i = 1; i < parts.length; i++) dirs.add(parts.slice(0, i).join("/"));
  }
  return { dirs: [...dirs], files, builtAt };
}
