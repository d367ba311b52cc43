// Passwords between a Redis store and its clients (the expert tier's cache-auth). The server requires
// one when its command line says `--requirepass <pw>` (redis:alpine's docker-entrypoint.sh runs
// `redis-server "$@"` for arguments that start with `-`, and redis-server reads config options
// from its arguments); it then answers every command of a connection that has not sent AUTH with
// `-NOAUTH Authentication required.`, and a wrong AUTH with `-WRONGPASS invalid username-password
// pair or user is disabled.`. A client sends the password its configuration holds: the connection
// string in its environment that names the store (StackExchange.Redis's `redis-cart:6379,
// password=x`, as cartservice's REDIS_ADDR is read; a `redis://:x@host:port` URL). What the
// client then logs is its library's (toolboxes.yaml authFailures).

import type { Edge, ServiceModel } from "../../context/catalog.js";
import type { SimContext } from "../../context/context.js";
import type { Container, Pod } from "../../core/objects.js";
import { expandRefs, keptEnv } from "../../userland/env.js";
import { redisProc } from "./store-runtime.js";

/** Why a store refuses a client's commands, as the server answers them. */
export type Denial = "NOAUTH" | "WRONGPASS";

export const DENIAL_TEXT: Record<Denial, string> = {
  NOAUTH: "NOAUTH Authentication required.",
  WRONGPASS: "WRONGPASS invalid username-password pair or user is disabled.",
};

interface AuthRule {
  /** The client application, or else every application of a language (`lang` of the topology). */
  app?: string;
  lang?: string;
  store: string;
  lines: string[];
}

/** What a client application logs when its store refuses its credentials, if known. */
export function authLines(ctx: SimContext, m: ServiceModel, e: Edge): string[] | undefined {
  const rules = (ctx.stages.toolboxes.authFailures ?? []) as AuthRule[];
  return rules.find((r) => (r.app ? r.app === m.key : r.lang === m.lang) && r.store === e.store)?.lines;
}

/**
 * The password a Redis server requires, from its command line (`--requirepass <pw>`), with the
 * `$(VAR)` references the kubelet expands from the container's environment when it creates the
 * container (kubecontainer.ExpandContainerCommandAndArgs; an unknown reference stays as written).
 */
export function requiredPassword(
  spec: Container | undefined,
  env?: ReadonlyMap<string, string>,
): string | undefined {
  const argv = [...(spec?.command ?? []), ...(spec?.args ?? [])].map((a) =>
    env ? expandRefs(String(a), env as Map<string, string>) : String(a),
  );
  const i = argv.findIndex((a) => a === "--requirepass" || a === "requirepass");
  if (i < 0) return undefined;
  const pw = argv[i + 1] ?? "";
  // an empty password leaves the server open, as `requirepass ""` does
  return pw === "" ? undefined : pw;
}

/**
 * The password a connection string gives, if it names `host`: StackExchange.Redis's
 * configuration (`host:port,password=x,ssl=false`, ConfigurationOptions.Parse: comma-separated,
 * endpoints then key=value options) or a redis:// URL (`redis://[user]:pw@host:port`).
 */
export function passwordIn(value: string, host: string): string | undefined | null {
  const names = (h: string) => h === host || h.startsWith(`${host}.`);
  const url = value.match(/^rediss?:\/\/(?:([^:@/]*)(?::([^@/]*))?@)?([^:/?]+)/);
  if (url) return names(url[3]) ? (url[2] ?? null) : undefined;
  const parts = value.split(",").map((p) => p.trim());
  if (!parts.some((p) => !p.includes("=") && names(p.split(":")[0]))) return undefined;
  const pw = parts.find((p) => /^password=/i.test(p));
  return pw ? pw.slice(pw.indexOf("=") + 1) : null;
}

/**
 * The password a store's running server requires: a CONFIG SET requirepass of this process, else
 * its command line as expanded when the container was created (a Secret rotated since is read
 * only by the next instance).
 */
export function storePassword(ctx: SimContext, pod: Pod, container: string): string | undefined {
  const set = redisProc(ctx, pod, container).config.requirepass;
  if (set !== undefined) return set === "" ? undefined : set;
  const spec = (pod.spec?.containers ?? []).find((c) => c.name === container);
  return spec ? requiredPassword(spec, keptEnv(ctx, pod, spec)) : undefined;
}

/** The password the caller's container sends to the store it reaches as `dep` (null: none). */
export function clientPassword(ctx: SimContext, pod: Pod, m: ServiceModel, dep: string): string | null {
  const spec = (pod.spec?.containers ?? []).find((c) => c.name === m.container);
  if (!spec) return null;
  for (const v of keptEnv(ctx, pod, spec).values()) {
    const pw = passwordIn(v, dep);
    if (pw !== undefined) return pw;
  }
  return null;
}

/**
 * How a store pod answers a caller's commands: refused for want of the right password, or not.
 * `host` is the store's host as the caller dialled it (dial.ts), which its configuration names.
 */
export function storeDenial(
  ctx: SimContext,
  callerPod: Pod | undefined,
  caller: ServiceModel,
  e: Edge,
  storePod: Pod,
  store: ServiceModel,
  host: string = e.dep,
): Denial | undefined {
  if (e.store !== "redis") return undefined;
  const need = storePassword(ctx, storePod, store.container);
  if (need === undefined) return undefined;
  const sent = callerPod ? clientPassword(ctx, callerPod, caller, host) : null;
  if (sent === null) return "NOAUTH";
  return sent === need ? undefined : "WRONGPASS";
}
