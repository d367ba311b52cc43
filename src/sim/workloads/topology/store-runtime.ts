// A redis-server process's runtime state: what CONFIG SET changes (config.c: maxmemory,
// maxmemory-policy, maxclients, requirepass), its counters (INFO stats, CONFIG RESETSTAT), its
// clients (networking.c: CLIENT LIST, the maxclients admission of acceptCommonHandler) and the
// memory it uses (INFO memory). It lives as long as the process: a new container instance (a
// restart, a new pod) starts from its command line again, so a CONFIG SET does not outlive it.
//
// Memory: used_memory = what the server allocates at start + each client's buffers + the
// dataset. The dataset is the carts the load's users keep (one hash per user that added an item:
// Microsoft.Extensions.Caching.StackExchangeRedis stores absexp, sldexp and data fields), a few
// hundred bytes each; so the store uses well under a megabyte and only a maxmemory below that
// refuses writes. processCommand (server.c) runs performEvictions before a command that may grow
// memory (CMD_DENYOOM): under noeviction, or when nothing is left to evict, the command is
// rejected with shared.oomerr; under an allkeys policy keys are evicted until used fits.

import { R } from "../../api/resources.js";
import type { SimContext } from "../../context/context.js";
import type { Container, Pod } from "../../core/objects.js";

export const OOM_TEXT = "OOM command not allowed when used memory > 'maxmemory'.";
export const MAXCLIENTS_TEXT = "ERR max number of clients reached";

/** What redis-server allocates before any client or key (INFO memory used_memory_startup). */
export const STARTUP_BYTES = 865_832;
/** An idle client's buffers (CLIENT LIST tot-mem: its 1 KiB reply buffer, the client struct). */
export const IDLE_CLIENT_BYTES = 1_928;
/** The client running a command (its query buffer is allocated: tot-mem of CLIENT LIST's caller). */
export const ACTIVE_CLIENT_BYTES = 22_426;
/** One cart key: the key's sds, the hash's listpack (absexp, sldexp, a few items' protobuf). */
export const CART_BYTES = 312;
/** The SetScript the cache runs, in the script cache (used_memory_scripts_eval). */
export const SCRIPT_BYTES = 352;

export const POLICIES = [
  "volatile-lru",
  "volatile-lfu",
  "volatile-random",
  "volatile-ttl",
  "allkeys-lru",
  "allkeys-lfu",
  "allkeys-random",
  "noeviction",
] as const;

export interface RedisConfig {
  maxmemory: number;
  "maxmemory-policy": string;
  maxclients: number;
  /** Set at run time (CONFIG SET requirepass); undefined: as the command line says. */
  requirepass?: string;
}

export interface RedisStats {
  connections: number;
  commands: number;
  rejected: number;
  evicted: number;
  hits: number;
  misses: number;
  errors: number;
}

/** One client connection the server holds. */
export interface RedisClient {
  id: number;
  /** The caller's pod and container instance (it goes away when that instance ends). */
  ns: string;
  pod: string;
  uid: string;
  container: string;
  restarts: number;
  addr: string;
  name: string;
  since: number;
  /** The subscription connection of StackExchange.Redis' multiplexer. */
  sub: boolean;
  cmd: string;
}

export interface RedisProc {
  key: string;
  startedAt: number;
  config: RedisConfig;
  stats: RedisStats;
  /** When the counters were last reset (CONFIG RESETSTAT), else 0. */
  statsSince: number;
  clients: RedisClient[];
  nextId: number;
  /** Keys evicted from the dataset (they stay gone while the process runs). */
  evictedKeys: number;
}

const freshStats = (): RedisStats => ({
  connections: 0,
  commands: 0,
  rejected: 0,
  evicted: 0,
  hits: 0,
  misses: 0,
  errors: 0,
});

const MAX_PROCS = 5_000;
const books = new WeakMap<object, Map<string, RedisProc>>();

function bookOf(ctx: SimContext): Map<string, RedisProc> {
  let b = books.get(ctx.store);
  if (!b) {
    b = new Map();
    books.set(ctx.store, b);
  }
  return b;
}

function status(pod: Pod, container: string) {
  return (pod.status?.containerStatuses ?? []).find((s) => s.name === container);
}

/** The restart count of a container's current instance. */
export function restartsIn(pod: Pod, container: string): number {
  return Number(status(pod, container)?.restartCount ?? 0);
}

/** The redis-server process of a store container's current instance. */
export function redisProc(ctx: SimContext, pod: Pod, container: string): RedisProc {
  const key = `${pod.metadata.uid}/${container}/${restartsIn(pod, container)}`;
  const book = bookOf(ctx);
  let p = book.get(key);
  if (!p) {
    if (book.size >= MAX_PROCS) book.delete(book.keys().next().value!);
    const started = status(pod, container)?.state?.running?.startedAt;
    const at = started ? Date.parse(String(started)) : Number.NaN;
    p = {
      key,
      startedAt: Number.isNaN(at) ? ctx.clock.now() : ctx.clock.fromWall(at),
      config: { maxmemory: 0, "maxmemory-policy": "noeviction", maxclients: 10_000 },
      stats: freshStats(),
      statsSince: 0,
      clients: [],
      nextId: 3,
      evictedKeys: 0,
    };
    book.set(key, p);
  }
  return p;
}

export function resetStats(p: RedisProc): void {
  p.stats = freshStats();
}

/** Whether a client's container instance still runs (its connection is still open). */
function alive(ctx: SimContext, c: RedisClient): boolean {
  const pod = ctx.registry.tryGet(R("Pod"), c.ns, c.pod) as Pod | undefined;
  return (
    !!pod &&
    pod.metadata.uid === c.uid &&
    !pod.metadata.deletionTimestamp &&
    pod.status?.phase === "Running" &&
    restartsIn(pod, c.container) === c.restarts
  );
}

/** The clients still connected (those whose instance ended are closed). */
export function liveClients(ctx: SimContext, p: RedisProc): RedisClient[] {
  p.clients = p.clients.filter((c) => alive(ctx, c));
  return p.clients;
}

/**
 * A pooled client (StackExchange.Redis' multiplexer: an interactive and a subscription
 * connection) connects if it holds no connection yet: each one is admitted while the server holds
 * fewer than maxclients (acceptCommonHandler), else it is answered `-ERR max number of clients
 * reached` and closed. Returns whether the interactive connection is held.
 */
export function connectPooled(
  ctx: SimContext,
  p: RedisProc,
  caller: Pod,
  container: string,
  name: string,
): boolean {
  const live = liveClients(ctx, p);
  const mine = live.filter((c) => c.uid === caller.metadata.uid && c.container === container);
  if (mine.some((c) => !c.sub)) return true;
  const base = {
    ns: caller.metadata.namespace ?? "",
    pod: caller.metadata.name ?? "",
    uid: caller.metadata.uid ?? "",
    container,
    restarts: restartsIn(caller, container),
    name,
    since: ctx.clock.now(),
  };
  const ip = caller.status?.podIP ?? "";
  for (const sub of [false, true]) {
    if (mine.some((c) => c.sub === sub)) continue;
    if (p.clients.length >= p.config.maxclients) {
      p.stats.rejected++;
      if (!sub) return false;
      continue;
    }
    p.stats.connections++;
    const port = 40_000 + ((p.nextId * 7919) % 20_000);
    p.clients.push({
      ...base,
      id: p.nextId++,
      addr: `${ip}:${port}`,
      sub,
      cmd: sub ? "subscribe" : "evalsha",
    });
  }
  return true;
}

/** One short-lived connection (redis-cli): admitted or not, counted either way. */
export function connectOnce(p: RedisProc, ctx: SimContext): boolean {
  if (liveClients(ctx, p).length >= p.config.maxclients) {
    p.stats.rejected++;
    return false;
  }
  p.stats.connections++;
  return true;
}

/** The users of the namespace's load generator (Locust's USERS), each keeping one cart. */
function cartsOf(ctx: SimContext, storePod: Pod, p: RedisProc): number {
  const ns = storePod.metadata.namespace ?? "";
  const users = (ctx.registry.list(R("Pod"), ns) as Pod[])
    .filter((x) => x.metadata.labels?.app === "loadgenerator" && x.status?.phase === "Running")
    .map((x) => Number(x.spec?.containers?.[0]?.env?.find((e) => e.name === "USERS")?.value ?? 10))[0];
  if (!users) return 0;
  // a user's first add-to-cart comes within a minute or so of the server's start
  const up = Math.max(0, ctx.clock.now() - p.startedAt) / 60_000;
  return Math.max(0, Math.min(users, Math.round(users * up)) - p.evictedKeys);
}

export interface RedisMemory {
  used: number;
  startup: number;
  clients: number;
  dataset: number;
  keys: number;
  scripts: number;
}

/** What the process uses now, with `active` clients running a command (redis-cli's own). */
export function memoryOf(ctx: SimContext, storePod: Pod, p: RedisProc, active = 0): RedisMemory {
  const live = liveClients(ctx, p);
  const keys = cartsOf(ctx, storePod, p);
  const clients = live.length * IDLE_CLIENT_BYTES + active * ACTIVE_CLIENT_BYTES;
  const scripts = live.some((c) => !c.sub) ? SCRIPT_BYTES : 0;
  const dataset = keys * CART_BYTES;
  return {
    used: STARTUP_BYTES + clients + dataset + scripts,
    startup: STARTUP_BYTES,
    clients,
    dataset,
    keys,
    scripts,
  };
}

/**
 * performEvictions before a command that may grow memory: under an allkeys policy keys go until
 * used fits; the command is refused when used is still over maxmemory (noeviction, or nothing
 * left to evict). The volatile policies evict only keys with a TTL, and the carts have none.
 */
export function writeRefused(ctx: SimContext, storePod: Pod, p: RedisProc, active = 0): boolean {
  const max = p.config.maxmemory;
  if (!max) return false;
  let mem = memoryOf(ctx, storePod, p, active);
  if (mem.used <= max) return false;
  if (p.config["maxmemory-policy"].startsWith("allkeys-") && mem.keys > 0) {
    const over = Math.ceil((mem.used - max) / CART_BYTES);
    const n = Math.min(mem.keys, over);
    p.evictedKeys += n;
    p.stats.evicted += n;
    mem = memoryOf(ctx, storePod, p, active);
  }
  return mem.used > max;
}

/** The store container's spec (for its command line). */
export function storeSpec(pod: Pod, container: string): Container | undefined {
  return (pod.spec?.containers ?? []).find((c) => c.name === container);
}
