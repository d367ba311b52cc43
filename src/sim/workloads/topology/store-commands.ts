// What redis-server 7.2 (the redis:alpine image's) answers to the commands an operator types
// through redis-cli: PING, AUTH, DBSIZE, KEYS, GET/SET, CONFIG GET/SET/RESETSTAT (config.c), INFO
// (server.c genRedisInfoString), CLIENT LIST (networking.c catClientInfoString), against the
// process's runtime state (store-runtime.ts). A command that may grow memory is refused with OOM
// over maxmemory (processCommand); a connection beyond maxclients gets its error and is closed.

import type { SimContext } from "../../context/context.js";
import { KERNEL_RELEASE } from "../../core/host.js";
import type { Pod } from "../../core/objects.js";
import { DENIAL_TEXT, storePassword } from "./store-auth.js";
import {
  liveClients,
  memoryOf,
  OOM_TEXT,
  POLICIES,
  type RedisProc,
  redisProc,
  resetStats,
  writeRefused,
} from "./store-runtime.js";
import { trafficOf } from "./traffic.js";

export type Reply =
  | { error: string }
  | { status: string }
  | { bulk: string | null }
  | { int: number }
  | { list: string[] };

/** A connection of redis-cli to one server. */
export interface Session {
  ctx: SimContext;
  pod: Pod;
  container: string;
  proc: RedisProc;
  /** The password this connection authenticated with. */
  auth?: string;
  /** The client's address as the server sees it. */
  addr: string;
  since: number;
}

/** Commands that may grow memory (CMD_DENYOOM), of those answered here. */
const DENYOOM = new Set([
  "set",
  "hset",
  "hmset",
  "lpush",
  "rpush",
  "sadd",
  "zadd",
  "incr",
  "append",
  "setex",
  "eval",
  "evalsha",
]);

const human = (n: number): string => {
  if (n < 1024) return `${n}B`;
  const units = ["K", "M", "G", "T", "P"];
  let d = n / 1024;
  let i = 0;
  while (d >= 1024 && i < units.length - 1) {
    d /= 1024;
    i++;
  }
  return `${d.toFixed(2)}${units[i]}`;
};

/** memtoull: a number with an optional unit (k=1000, kb=1024, m, mb, g, gb), or undefined. */
export function memValue(s: string): number | undefined {
  const m = s.toLowerCase().match(/^(\d+)(b|k|kb|m|mb|g|gb)?$/);
  if (!m) return undefined;
  const mul: Record<string, number> = {
    b: 1,
    k: 1e3,
    kb: 1024,
    m: 1e6,
    mb: 1024 ** 2,
    g: 1e9,
    gb: 1024 ** 3,
  };
  return Number(m[1]) * mul[m[2] ?? "b"];
}

/** The parameters CONFIG GET knows here, as redis prints their values. */
function params(s: Session): [string, string][] {
  const c = s.proc.config;
  return [
    ["maxmemory", String(c.maxmemory)],
    ["maxmemory-policy", c["maxmemory-policy"]],
    ["maxclients", String(c.maxclients)],
    ["requirepass", storePassword(s.ctx, s.pod, s.container) ?? ""],
    ["port", "6379"],
    ["bind", "* -::*"],
    ["protected-mode", "no"],
    ["dir", "/data"],
    ["dbfilename", "dump.rdb"],
    ["save", "3600 1 300 100 60 10000"],
    ["appendonly", "no"],
    ["timeout", "0"],
    ["tcp-keepalive", "300"],
    ["databases", "16"],
    ["maxmemory-samples", "5"],
  ];
}

/** stringmatchlen's glob, enough for CONFIG GET patterns. */
function glob(pattern: string, s: string): boolean {
  const re = pattern
    .replace(/[.+^${}()|\\]/g, "\\$&")
    .replace(/\*/g, ".*")
    .replace(/\?/g, ".");
  return new RegExp(`^${re}$`, "i").test(s);
}

function configSet(s: Session, args: string[]): Reply {
  if (args.length === 0 || args.length % 2)
    return { error: "ERR wrong number of arguments for 'config|set' command" };
  const known = new Set(params(s).map(([k]) => k));
  const next = { ...s.proc.config };
  for (let i = 0; i < args.length; i += 2) {
    const [name, value] = [args[i].toLowerCase(), args[i + 1]];
    if (!known.has(name))
      return { error: `ERR Unknown option or number of arguments for CONFIG SET - '${args[i]}'` };
    const fail = (why: string) => ({
      error: `ERR CONFIG SET failed (possibly related to argument '${args[i]}') - ${why}`,
    });
    if (name === "maxmemory") {
      const v = memValue(value);
      if (v === undefined) return fail("argument must be a memory value");
      next.maxmemory = v;
    } else if (name === "maxclients") {
      if (!/^-?\d+$/.test(value)) return fail("argument couldn't be parsed into an integer");
      const v = Number(value);
      if (v < 1 || v > 4294967295) return fail("argument must be between 1 and 4294967295 inclusive");
      next.maxclients = v;
    } else if (name === "maxmemory-policy") {
      if (!(POLICIES as readonly string[]).includes(value.toLowerCase()))
        return fail(`argument(s) must be one of the following: ${POLICIES.join(", ")}`);
      next["maxmemory-policy"] = value.toLowerCase();
    } else if (name === "requirepass") next.requirepass = value;
    // the others are accepted and kept as they are (no behaviour of theirs is modelled)
  }
  const lowered = next.maxmemory && (!s.proc.config.maxmemory || next.maxmemory < s.proc.config.maxmemory);
  s.proc.config = next;
  const used = memoryOf(s.ctx, s.pod, s.proc, 1).used;
  if (lowered && next.maxmemory < used) {
    const at = new Date(s.ctx.clock.toWall(s.ctx.clock.now()));
    s.ctx.logs.append(
      s.pod.metadata.uid!,
      s.container,
      `1:M ${logStamp(at)} # WARNING: the new maxmemory value set via CONFIG SET (${next.maxmemory}) is smaller than the current memory usage (${used}). This will result in key eviction and/or the inability to accept new write commands depending on the maxmemory-policy.`,
    );
  }
  // the applications' calls see the new configuration at once
  trafficOf(s.ctx).forget(s.pod.metadata.namespace ?? "");
  return { status: "OK" };
}

/** serverLogRaw's time: `%d %b %Y %H:%M:%S.` plus milliseconds. */
function logStamp(d: Date): string {
  const mon = d.toLocaleString("en-US", { month: "short", timeZone: "UTC" });
  const p = (n: number, w = 2) => String(n).padStart(w, "0");
  return `${p(d.getUTCDate())} ${mon} ${d.getUTCFullYear()} ${p(d.getUTCHours())}:${p(d.getUTCMinutes())}:${p(d.getUTCSeconds())}.${p(d.getUTCMilliseconds(), 3)}`;
}

/** The carts' keys: the users' ids, fixed by the server process. */
function keys(s: Session): string[] {
  const n = memoryOf(s.ctx, s.pod, s.proc).keys;
  return Array.from({ length: n }, (_, i) => uuidOf(`${s.proc.key}/${i}`));
}

function uuidOf(seed: string): string {
  let h = 0x811c9dc5;
  let out = "";
  for (let i = 0; out.length < 32; i++) {
    h = Math.imul(h ^ seed.charCodeAt(i % seed.length) ^ i, 16777619) >>> 0;
    out += (h & 0xffff).toString(16).padStart(4, "0");
  }
  return `${out.slice(0, 8)}-${out.slice(8, 12)}-4${out.slice(13, 16)}-a${out.slice(17, 20)}-${out.slice(20, 32)}`;
}

/** Commands the applications sent since the counters were reset (their calls per second). */
function appCommands(s: Session): number {
  const ns = s.pod.metadata.namespace ?? "";
  const svc = [...trafficOf(s.ctx).state(ns).services.values()].find((x) =>
    x.pods.some((p) => p.metadata.uid === s.pod.metadata.uid),
  );
  const rps = svc ? trafficOf(s.ctx).podRps(s.pod, svc.model) : 0;
  const since = Math.max(s.proc.startedAt, s.proc.statsSince);
  return Math.round((rps * Math.max(0, s.ctx.clock.now() - since)) / 1000);
}

function info(s: Session, section: string | undefined): string {
  const now = s.ctx.clock.now();
  const up = Math.max(0, Math.floor((now - s.proc.startedAt) / 1000));
  const mem = memoryOf(s.ctx, s.pod, s.proc, 1);
  const clients = liveClients(s.ctx, s.proc).length + 1;
  const cfg = s.proc.config;
  const st = s.proc.stats;
  const app = appCommands(s);
  const rss = mem.used + 7_340_032;
  const sections: Record<string, string[]> = {
    server: [
      "redis_version:7.2.4",
      "redis_git_sha1:00000000",
      "redis_git_dirty:0",
      "redis_build_id:e8f2ad6e4b9e1f43",
      "redis_mode:standalone",
      `os:Linux ${KERNEL_RELEASE} x86_64`,
      "arch_bits:64",
      "monotonic_clock:POSIX clock_gettime",
      "multiplexing_api:epoll",
      "atomicvar_api:c11-builtin",
      "gcc_version:13.2.1",
      "process_id:1",
      "process_supervised:no",
      "run_id:" + uuidOf(`${s.proc.key}/run`).replace(/-/g, "").padEnd(40, "0").slice(0, 40),
      "tcp_port:6379",
      `server_time_usec:${Math.floor(s.ctx.clock.toWall(now)) * 1000}`,
      `uptime_in_seconds:${up}`,
      `uptime_in_days:${Math.floor(up / 86400)}`,
      "hz:10",
      "configured_hz:10",
      `lru_clock:${Math.floor(s.ctx.clock.toWall(now) / 1000) % 16777216}`,
      "executable:/data/redis-server",
      "config_file:",
      "io_threads_active:0",
      "listener0:name=tcp,bind=*,bind=-::*,port=6379",
    ],
    clients: [
      `connected_clients:${clients}`,
      "cluster_connections:0",
      `maxclients:${cfg.maxclients}`,
      "client_recent_max_input_buffer:20480",
      "client_recent_max_output_buffer:0",
      "blocked_clients:0",
      "tracking_clients:0",
      "clients_in_timeout_table:0",
      "total_blocking_keys:0",
      "total_blocking_keys_on_nokey:0",
    ],
    memory: [
      `used_memory:${mem.used}`,
      `used_memory_human:${human(mem.used)}`,
      `used_memory_rss:${rss}`,
      `used_memory_rss_human:${human(rss)}`,
      `used_memory_peak:${mem.used}`,
      `used_memory_peak_human:${human(mem.used)}`,
      "used_memory_peak_perc:100.00%",
      `used_memory_overhead:${mem.startup + mem.clients}`,
      `used_memory_startup:${mem.startup}`,
      `used_memory_dataset:${mem.dataset + mem.scripts}`,
      `used_memory_dataset_perc:${((100 * (mem.dataset + mem.scripts)) / Math.max(1, mem.used - mem.startup)).toFixed(2)}%`,
      "total_system_memory:16765157376",
      "total_system_memory_human:15.61G",
      "used_memory_lua:31744",
      "used_memory_vm_eval:31744",
      "used_memory_lua_human:31.00K",
      `used_memory_scripts_eval:${mem.scripts}`,
      `number_of_cached_scripts:${mem.scripts ? 1 : 0}`,
      "number_of_functions:0",
      "number_of_libraries:0",
      "used_memory_vm_functions:32768",
      "used_memory_vm_total:64512",
      "used_memory_vm_total_human:63.00K",
      "used_memory_functions:184",
      `used_memory_scripts:${mem.scripts + 184}`,
      `used_memory_scripts_human:${human(mem.scripts + 184)}`,
      `maxmemory:${cfg.maxmemory}`,
      `maxmemory_human:${human(cfg.maxmemory)}`,
      `maxmemory_policy:${cfg["maxmemory-policy"]}`,
      `mem_fragmentation_ratio:${(rss / mem.used).toFixed(2)}`,
      `mem_fragmentation_bytes:${rss - mem.used}`,
      "mem_not_counted_for_evict:0",
      "mem_replication_backlog:0",
      "mem_total_replication_buffers:0",
      "mem_clients_slaves:0",
      `mem_clients_normal:${mem.clients}`,
      "mem_cluster_links:0",
      "mem_aof_buffer:0",
      "mem_allocator:jemalloc-5.3.0",
      "active_defrag_running:0",
      "lazyfree_pending_objects:0",
      "lazyfreed_objects:0",
    ],
    stats: [
      `total_connections_received:${st.connections}`,
      `total_commands_processed:${st.commands + app}`,
      "instantaneous_ops_per_sec:" +
        Math.round(app && (app * 1000) / Math.max(1, now - Math.max(s.proc.startedAt, s.proc.statsSince))),
      `rejected_connections:${st.rejected}`,
      "expired_keys:0",
      `evicted_keys:${st.evicted}`,
      `keyspace_hits:${st.hits + Math.round(app * 0.55)}`,
      `keyspace_misses:${st.misses + Math.round(app * 0.3)}`,
      "pubsub_channels:1",
      "pubsub_patterns:0",
      `total_error_replies:${st.errors}`,
    ],
    keyspace: mem.keys ? [`db0:keys=${mem.keys},expires=0,avg_ttl=0`] : [],
  };
  const names =
    section && section !== "default" && section !== "all" && section !== "everything"
      ? [section.toLowerCase()]
      : ["server", "clients", "memory", "stats", "keyspace"];
  return names
    .filter((n) => n in sections)
    .map((n) => [`# ${n[0].toUpperCase()}${n.slice(1)}`, ...sections[n]].join("\r\n"))
    .join("\r\n\r\n")
    .concat(names.some((n) => n in sections) ? "\r\n" : "");
}

function clientList(s: Session): string {
  const now = s.ctx.clock.now();
  const line = (
    id: number,
    addr: string,
    name: string,
    since: number,
    cmd: string,
    sub: boolean,
    me: boolean,
  ) =>
    `id=${id} addr=${addr} laddr=${s.pod.status?.podIP ?? "127.0.0.1"}:6379 fd=${8 + (id % 50)} name=${name} age=${Math.floor((now - since) / 1000)} idle=${me ? 0 : sub ? Math.floor((now - since) / 1000) : 0} flags=${sub ? "P" : "N"} db=0 sub=${sub ? 1 : 0} psub=0 ssub=0 multi=-1 qbuf=${me ? 26 : 0} qbuf-free=${me ? 20448 : 0} argv-mem=${me ? 10 : 0} multi-mem=0 rbs=1024 rbp=${me ? 0 : 5} obl=0 oll=0 omem=0 tot-mem=${me ? 22426 : 1928} events=r cmd=${cmd} user=default redir=-1 resp=2 lib-name= lib-ver=`;
  const rows = liveClients(s.ctx, s.proc).map((c) =>
    line(c.id, c.addr, c.name, c.since, c.cmd, c.sub, false),
  );
  rows.push(line(s.proc.nextId + 100, s.addr, "", s.since, "client|list", false, true));
  return `${rows.join("\n")}\n`;
}

/** What the server answers to one command on this connection. */
export function reply(s: Session, argv: string[]): Reply {
  const cmd = argv[0].toLowerCase();
  const need = storePassword(s.ctx, s.pod, s.container);
  s.proc.stats.commands++;
  if (cmd === "auth") {
    const pw = argv[argv.length - 1];
    if (argv.length < 2 || argv.length > 3)
      return { error: "ERR wrong number of arguments for 'auth' command" };
    if (need === undefined)
      return {
        error:
          "ERR AUTH <password> called without any password configured for the default user. Are you sure your configuration is correct?",
      };
    if (pw !== need) return { error: DENIAL_TEXT.WRONGPASS };
    s.auth = pw;
    return { status: "OK" };
  }
  if (need !== undefined && s.auth !== need) return { error: DENIAL_TEXT.NOAUTH };
  if (DENYOOM.has(cmd) && writeRefused(s.ctx, s.pod, s.proc, 1)) {
    s.proc.stats.errors++;
    return { error: OOM_TEXT };
  }
  const sub = argv[1]?.toLowerCase();
  if (cmd === "ping") return argv[1] === undefined ? { status: "PONG" } : { bulk: argv[1] };
  if (cmd === "get" && argv.length === 2) return { bulk: null };
  if (cmd === "set" && argv.length >= 3) return { status: "OK" };
  if (cmd === "dbsize") return { int: keys(s).length };
  if (cmd === "keys" && argv.length === 2) return { list: keys(s).filter((k) => glob(argv[1], k)) };
  if (cmd === "info") return { bulk: info(s, argv[1]) };
  if (cmd === "config" && sub === "get" && argv.length >= 3)
    return {
      list: params(s)
        .filter(([k]) => argv.slice(2).some((p) => glob(p, k)))
        .flat(),
    };
  if (cmd === "config" && sub === "set") return configSet(s, argv.slice(2));
  if (cmd === "config" && sub === "resetstat" && argv.length === 2) {
    resetStats(s.proc);
    s.proc.statsSince = s.ctx.clock.now();
    return { status: "OK" };
  }
  if (cmd === "client" && sub === "list") return { bulk: clientList(s) };
  const rest = argv
    .slice(1)
    .map((a) => `'${a}' `)
    .join("");
  s.proc.stats.errors++;
  return { error: `ERR unknown command '${argv[0]}', with args beginning with: ${rest}` };
}

/** A connection of redis-cli from `from` (a pod) to the store's process. */
export function session(ctx: SimContext, pod: Pod, container: string, from: Pod): Session {
  const proc = redisProc(ctx, pod, container);
  const port = 40_000 + (Math.floor(ctx.clock.now()) % 20_000);
  return {
    ctx,
    pod,
    container,
    proc,
    addr: `${from.status?.podIP ?? "127.0.0.1"}:${port}`,
    since: ctx.clock.now(),
  };
}
