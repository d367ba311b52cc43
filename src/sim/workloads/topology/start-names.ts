// Names an application resolves once, when it starts (the topology's `resolve: start`): nginx
// resolves a proxy_pass host while it reads its configuration (ngx_http_upstream's
// ngx_parse_url with a name; no `resolver` directive, so never again), and every later request
// goes to the address it got then. A name that does not resolve at start stops the start
// ("[emerg] host not found in upstream"); one that resolved keeps its address whatever becomes of
// the name: a Service deleted after the start leaves its old ClusterIP, on which kube-proxy has no
// rule any more, so connections to it time out (nginx's 504), until the container starts again.

import type { Edge } from "../../context/catalog.js";
import type { SimContext } from "../../context/context.js";
import type { Pod } from "../../core/objects.js";
import { parseAddress } from "./dial.js";
import { resolveNow } from "./names.js";
import { dnsBlocked } from "./netpol.js";
import { needsDns } from "./resolve.js";

/** What the start resolved: an IP, or the lookup failed. */
export type StartLookup = { ip: string } | { failed: true };

const MAX = 20_000;
const books = new WeakMap<object, Map<string, StartLookup>>();

function bookOf(ctx: SimContext): Map<string, StartLookup> {
  let b = books.get(ctx.faults);
  if (!b) {
    b = new Map();
    books.set(ctx.faults, b);
  }
  return b;
}

/** The host an edge's dial resolves at start, if it is one that does. */
export function startHost(e: Edge): string | undefined {
  if (e.dial.via !== "fixed" || e.dial.resolve !== "start") return undefined;
  const a = parseAddress(e.dial.address ?? e.dep);
  return a.kind === "addr" ? a.host : undefined;
}

/**
 * What the container instance (`restartCount`) of `pod` resolved `host` to at its start; the first
 * asker (the start itself, or failing that the first call) fixes it for the instance's life.
 */
export function resolvedAtStart(
  ctx: SimContext,
  pod: Pod,
  container: string,
  restartCount: number,
  host: string,
): StartLookup {
  const book = bookOf(ctx);
  const key = `${pod.metadata.uid}/${container}/${restartCount}/${host}`;
  let got = book.get(key);
  if (!got) {
    const p = { pod, ctx };
    const r = needsDns(p, host) && dnsBlocked(ctx, pod) ? undefined : resolveNow(p, host);
    got = !r || "error" in r ? { failed: true } : { ip: r.ips[0] };
    if (book.size >= MAX) book.clear();
    book.set(key, got);
  }
  return got;
}

/** The restart count of a pod's container as its status has it (the running instance). */
export const restartsOf = (pod: Pod, container: string): number =>
  Number((pod.status?.containerStatuses ?? []).find((s) => s.name === container)?.restartCount ?? 0);
