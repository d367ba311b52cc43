// The world outside the cluster, as a k3s node with Internet access gives it to its pods: CoreDNS
// forwards names outside cluster.local upstream, and pods reach public addresses through the
// node's NAT. Each public name resolves to a stable fake address (a hash of the name), each
// address answers ICMP and HTTP(S) at a round trip of its own (5-40 ms, fixed by the address,
// a few percent of jitter per packet). `--egress none` models an air-gapped cluster: upstream
// names do not resolve and packets to outside addresses are dropped.
import { hashString } from "../../../util/rng.js";
import type { SimContext } from "../../context/context.js";

export type EgressMode = "internet" | "none";

const modes = new WeakMap<object, EgressMode>();

/** Set how the cluster reaches outside addresses (keyed by the cluster's fault book, as traffic.ts). */
export function setEgress(ctx: SimContext, mode: EgressMode): void {
  modes.set(ctx.faults, mode);
}

export const egressMode = (ctx: SimContext): EgressMode => modes.get(ctx.faults) ?? "internet";

const IPV4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;

/** Address blocks no public host answers at (RFC 1918, 6598, 5737, 3927, loopback, multicast...). */
function reserved(a: number, b: number, c: number): boolean {
  if (a === 0 || a === 10 || a === 127 || a >= 224) return true;
  if (a === 100 && b >= 64 && b < 128) return true;
  if (a === 169 && b === 254) return true;
  if (a === 172 && b >= 16 && b < 32) return true;
  if (a === 192 && (b === 168 || (b === 0 && (c === 0 || c === 2)))) return true;
  if (a === 198 && (b === 18 || b === 19 || (b === 51 && c === 100))) return true;
  return a === 203 && b === 0 && c === 113;
}

/** Whether an IPv4 literal is a public address (one a NATed pod can reach on the Internet). */
export function isPublicIp(ip: string): boolean {
  const m = ip.match(IPV4);
  if (!m) return false;
  const [a, b, c, d] = m.slice(1).map(Number);
  if ([a, b, c, d].some((x) => x > 255)) return false;
  return !reserved(a, b, c);
}

// first octets of large public blocks (cloud and CDN providers): fake addresses look ordinary
const BLOCKS = [13, 23, 31, 34, 35, 52, 54, 64, 66, 69, 74, 104, 142, 151, 157, 185, 199, 208, 216];

/**
 * Delegated top-level domains a name may end in: a name under any other (a mistyped Service name
 * such as `hello-servic.web`, or `.local`, `.test`, `.invalid` of RFC 6761) is NXDOMAIN upstream.
 */
const TLDS = new Set(
  (
    "com net org io dev app co ai cn uk de jp fr ru info biz edu gov mil int us ca au in br cloud xyz " +
    "me tv eu nl se ch it es pl kr tech site online sh so to gg ly nz za mx ar be at dk fi no ie pt " +
    "cz hu gr tr il sg hk tw vn id my th ph ua ro ir pk bd ng ke eg sa ae page run tools live news"
  ).split(" "),
);

/** The public address upstream DNS gives a name, or undefined (NXDOMAIN) for names no one serves. */
export function publicAddress(ctx: SimContext, fqdn: string): string | undefined {
  if (egressMode(ctx) === "none") return undefined;
  const name = fqdn.replace(/\.$/, "").toLowerCase();
  const labels = name.split(".");
  const tld = labels[labels.length - 1];
  if (labels.length < 2 || !TLDS.has(tld)) return undefined;
  if (labels.some((l) => !/^[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?$/.test(l))) return undefined;
  const h = hashString(name);
  const h2 = hashString(`${name}#`);
  const a = BLOCKS[h % BLOCKS.length];
  const b = (h >>> 8) & 0xff;
  const c = (h >>> 16) & 0xff;
  return `${a}.${b}.${c}.${1 + (h2 % 254)}`;
}

/** Whether packets from a pod to `ip` leave the cluster and come back (Internet access). */
export const reachable = (ctx: SimContext, ip: string): boolean =>
  egressMode(ctx) === "internet" && isPublicIp(ip);

/** The round trip to a public address without netem: 5-40 ms, the same for every packet. */
export function baseRttMs(ip: string): number {
  return 5 + (hashString(`rtt:${ip}`) % 3500) / 100;
}

/** One packet's round trip: the base with a few percent of queueing jitter (one rnd draw). */
export function packetRttMs(ip: string, rnd: () => number): number {
  const base = baseRttMs(ip);
  return base * (0.97 + rnd() * 0.06);
}

/** The TTL a reply from outside arrives with: 64 less the routers it crossed (6-17, by address). */
export const replyTtl = (ip: string): number => 64 - (6 + (hashString(`hops:${ip}`) % 12));

/** The upstream resolver CoreDNS forwards to (the node's resolv.conf: the provider's resolver). */
export const UPSTREAM_RESOLVER = "8.8.8.8";
