// What a MySQL server read from its option files when it started. The mysql:5.7 image's
// /etc/my.cnf ends with `!includedir /etc/mysql/conf.d/` (docker-library/mysql Dockerfile.oracle),
// so mysqld reads every `*.cnf` file of that folder, in name order, at start, and never again:
// a ConfigMap mounted there and edited later reaches the server only when its container starts
// again (the kubelet updates the mounted files, mysqld does not re-read them). Within the files,
// the [mysqld] and [server] groups apply and a later setting wins; options on mysqld's command line
// win over the files (mysys/my_default.cc, sql/mysqld.cc). Dashes and underscores in option names
// are the same. The options are taken when the kubelet creates the container, as its environment is.

import type { SimContext } from "../context/context.js";
import type { Container, KObject, Pod } from "../core/objects.js";
import { sourceData } from "./env.js";

/** The options this simulation reads of mysqld's. */
export interface MysqldOptions {
  /** `bind-address`: where it listens; undefined: every address (`*`). */
  bindAddress?: string;
}

const CONF_DIR = "/etc/mysql/conf.d";
const GROUPS = new Set(["mysqld", "server", "mysqld-5.7"]);

/** The options of the [mysqld] groups of option files, read in order (a later setting wins). */
export function parseOptionFiles(files: string[]): MysqldOptions {
  const out: MysqldOptions = {};
  for (const text of files) {
    let group = "";
    for (const raw of text.split("\n")) {
      const line = raw.replace(/\s[#;].*$/, "").trim();
      if (!line || line.startsWith("#") || line.startsWith(";") || line.startsWith("!")) continue;
      const g = line.match(/^\[([^\]]+)\]$/);
      if (g) {
        group = g[1].trim().toLowerCase();
        continue;
      }
      if (!GROUPS.has(group)) continue;
      set(out, line);
    }
  }
  return out;
}

function set(out: MysqldOptions, setting: string): void {
  const i = setting.indexOf("=");
  const name = (i < 0 ? setting : setting.slice(0, i)).trim().replace(/_/g, "-").replace(/^--/, "");
  const value =
    i < 0
      ? ""
      : setting
          .slice(i + 1)
          .trim()
          .replace(/^(['"])(.*)\1$/, "$2");
  if (name === "bind-address") out.bindAddress = value === "*" || value === "" ? undefined : value;
}

/** The `*.cnf` files the container finds in conf.d: a ConfigMap or Secret volume mounted there. */
function confFiles(ctx: SimContext, pod: Pod, container: Container): string[] {
  const ns = pod.metadata.namespace ?? "";
  const files = new Map<string, string>();
  for (const vm of container.volumeMounts ?? []) {
    const v = (pod.spec?.volumes ?? []).find((x) => x.name === vm.name);
    const src = v?.configMap
      ? sourceData(ctx, "ConfigMap", ns, v.configMap.name)
      : v?.secret
        ? sourceData(ctx, "Secret", ns, v.secret.secretName)
        : undefined;
    if (!src) continue;
    const items = v?.configMap?.items ?? v?.secret?.items;
    const data = items?.length
      ? Object.fromEntries(items.filter((it) => it.key in src).map((it) => [it.path, src[it.key]]))
      : src;
    const at = String(vm.mountPath ?? "").replace(/\/+$/, "");
    if (vm.subPath) {
      // one file mounted at a path of its own
      if (at.startsWith(`${CONF_DIR}/`) && !at.slice(CONF_DIR.length + 1).includes("/"))
        files.set(at.slice(CONF_DIR.length + 1), data[vm.subPath] ?? "");
    } else if (at === CONF_DIR) for (const [name, text] of Object.entries(data)) files.set(name, text);
  }
  return [...files.keys()]
    .filter((n) => n.endsWith(".cnf"))
    .sort()
    .map((n) => files.get(n)!);
}

/** The options as the server would read them now: its option files, then its command line. */
function compose(ctx: SimContext, pod: Pod, container: Container): MysqldOptions {
  const out = parseOptionFiles(confFiles(ctx, pod, container));
  for (const a of [...(container.command ?? []), ...(container.args ?? [])].map(String))
    if (a.startsWith("--")) set(out, a.slice(2));
  return out;
}

const MAX_KEPT = 20_000;
const kept = new WeakMap<object, Map<string, MysqldOptions>>();

function bookOf(ctx: SimContext): Map<string, MysqldOptions> {
  let m = kept.get(ctx.store);
  if (!m) {
    m = new Map();
    kept.set(ctx.store, m);
  }
  return m;
}

const key = (pod: KObject, container: string, restartCount: number) =>
  `${pod.metadata.uid}/${container}/${restartCount}`;

/** The kubelet creates a container instance: what a MySQL server in it will read is taken now. */
export function createMysqldOptions(
  ctx: SimContext,
  pod: Pod,
  container: Container,
  restartCount: number,
): void {
  const book = bookOf(ctx);
  if (book.size >= MAX_KEPT) book.delete(book.keys().next().value!);
  book.set(key(pod, container.name, restartCount), compose(ctx, pod, container));
}

/** What the server of a container instance read when it started (composed now if never created). */
export function mysqldOptions(
  ctx: SimContext,
  pod: Pod,
  container: Container,
  restartCount: number,
): MysqldOptions {
  return bookOf(ctx).get(key(pod, container.name, restartCount)) ?? compose(ctx, pod, container);
}

/** An address only the pod itself reaches (the loopback network). */
export function loopbackOnly(address: string | undefined): boolean {
  return address !== undefined && (/^127\./.test(address) || address === "::1" || address === "localhost");
}
