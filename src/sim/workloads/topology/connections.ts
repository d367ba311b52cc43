// The long-lived connections of pooled clients (gRPC channels, connection pools, JDBC, AMQP): a
// client that keeps its connection opens it once, to one endpoint kube-proxy picked then, and
// reuses it until either end goes away. What was decided when it opened stays decided: the
// conntrack entry keeps the DNAT to that pod and port whatever becomes of the Service (kube-proxy
// only flushes conntrack for UDP), kube-router accepts RELATED,ESTABLISHED packets before any
// policy, and Chaos Mesh's HTTP tproxy only takes new connections. Packet-level faults (netem,
// partition) hit it like any traffic.
//
// The book is filled when a call finds no live connection and opens one; a connection ends when
// the caller's container instance or the callee pod's container instance ends.

import { R } from "../../api/resources.js";
import type { SimContext } from "../../context/context.js";
import type { Pod } from "../../core/objects.js";
import type { Landing } from "./resolve.js";

interface Conn {
  ns: string;
  pod: string;
  uid: string;
  port: number;
  /** The callee container instance the connection was opened to. */
  restarts: number;
  /** Cluster ms when it opened. */
  since: number;
}

const MAX_CONNS = 50_000;
const books = new WeakMap<object, Map<string, Conn>>();

function bookOf(ctx: SimContext): Map<string, Conn> {
  let b = books.get(ctx.faults);
  if (!b) {
    b = new Map();
    books.set(ctx.faults, b);
  }
  return b;
}

const restartsOf = (pod: Pod) =>
  (pod.status?.containerStatuses ?? []).reduce((n, s) => n + Number(s.restartCount ?? 0), 0);

/** The key of one client connection: the caller's container instance and the dependency. */
export function connKey(caller: Pod, container: string, dep: string): string {
  const st = (caller.status?.containerStatuses ?? []).find((s) => s.name === container);
  return `${caller.metadata.uid}/${container}/${st?.restartCount ?? 0}/${dep}`;
}

/** The live connection under a key, with when it opened. */
export function liveConn(ctx: SimContext, key: string): { landing: Landing; since: number } | undefined {
  const book = bookOf(ctx);
  const c = book.get(key);
  if (!c) return undefined;
  const pod = ctx.store.get(R("Pod"), c.ns, c.pod) as Pod | undefined;
  const alive =
    pod &&
    pod.metadata.uid === c.uid &&
    !pod.metadata.deletionTimestamp &&
    pod.status?.phase === "Running" &&
    restartsOf(pod) === c.restarts;
  if (!alive) {
    book.delete(key);
    return undefined;
  }
  return { landing: { pod, port: c.port }, since: c.since };
}

/** A connection opened now. */
export function keepConn(ctx: SimContext, key: string, landing: Landing): void {
  const book = bookOf(ctx);
  if (book.size >= MAX_CONNS) book.delete(book.keys().next().value!);
  book.set(key, {
    ns: landing.pod.metadata.namespace!,
    pod: landing.pod.metadata.name!,
    uid: landing.pod.metadata.uid!,
    port: landing.port,
    restarts: restartsOf(landing.pod),
    since: ctx.clock.now(),
  });
}

/** The pod a new pooled connection goes to: kube-proxy's pick, fixed by caller and dependency. */
export function pickFor(key: string, pods: Landing[]): Landing {
  let h = 0;
  for (const ch of key) h = (h * 31 + ch.charCodeAt(0)) >>> 0;
  return pods[h % pods.length];
}
