// HTTP(S) from a pod to a host outside the cluster (curl, wget): resolved upstream, carried over
// the pod's egress (its netem rules apply: delay on every packet, lost SYNs retried after 1, 2,
// 4... s, lost segments after an RTO from 200 ms), a TLS handshake for https, and a web server
// that answers `/` with its page and anything else with 404. Ports other than 80 and 443 are
// filtered: the SYN goes unanswered until the client gives up. Requests to cluster addresses, and
// every request with `--egress none`, go through the cluster's own path (request.ts).
import { hashString } from "../../../util/rng.js";
import type { Answer } from "./http.js";
import { draw, egress, type Impairment, ingress } from "./impairments.js";
import { type Caller, lookup, resolveNow, whoHas } from "./names.js";
import { packetRttMs, reachable } from "./outside.js";
import { type Outcome, parseUrl, type Request, request } from "./request.js";

/** IANA's page for the reserved example domains (RFC 2606), as example.com serves it. */
const EXAMPLE_PAGE =
  '<!doctype html>\n<html>\n<head>\n    <title>Example Domain</title>\n\n    <meta charset="utf-8" />\n</head>\n\n<body>\n<div>\n    <h1>Example Domain</h1>\n    <p>This domain is for use in illustrative examples in documents. You may use this\n    domain in literature without prior coordination or asking for permission.</p>\n    <p><a href="https://www.iana.org/domains/example">More information...</a></p>\n</div>\n</body>\n</html>\n';

function page(host: string, path: string): { status: number; reason: string; body: string } {
  if (path !== "/" && path !== "/index.html")
    return {
      status: 404,
      reason: "Not Found",
      body: `<!doctype html>\n<html><head><title>404 Not Found</title></head><body><h1>Not Found</h1><p>The requested URL ${path} was not found on this server.</p></body></html>\n`,
    };
  if (/(^|\.)example\.(com|net|org)$/.test(host)) return { status: 200, reason: "OK", body: EXAMPLE_PAGE };
  return {
    status: 200,
    reason: "OK",
    body: `<!doctype html>\n<html><head><meta charset="utf-8"><title>${host}</title></head><body><h1>${host}</h1></body></html>\n`,
  };
}

/** One round trip over the path, retransmitted after `backoff(k)` ms while the packets are lost. */
function roundTrip(
  ip: string,
  go: Impairment,
  back: Impairment,
  rnd: () => number,
  tries: number,
  backoff: (k: number) => number,
): number {
  let t = 0;
  for (let k = 0; k < tries; k++) {
    if (rnd() >= go.loss && rnd() >= back.loss)
      return t + packetRttMs(ip, rnd) + draw(go, rnd) + draw(back, rnd);
    t += backoff(k);
  }
  return Number.POSITIVE_INFINITY;
}

/** A request from a pod to any URL: outside hosts here, cluster addresses by request.ts. */
export async function reach(p: Caller, req: Request): Promise<Outcome> {
  const url = parseUrl(req.url);
  if (!url || !/^https?:$/.test(url.protocol)) return request(p, req);
  const host = url.hostname.replace(/^\[|\]$/g, "");
  const known = resolveNow(p, host);
  if ("error" in known || whoHas(p, known.ips[0]).kind !== "external" || !reachable(p.ctx, known.ips[0]))
    return request(p, req);
  return outside(p, req, url, host);
}

async function outside(p: Caller, req: Request, url: URL, host: string): Promise<Outcome> {
  let planned = 0;
  const wait = async (ms: number) => {
    planned += Math.max(0, ms);
    return ms > 0 ? p.sleep(ms) : true;
  };
  const r = await lookup(p, host);
  if ("error" in r) return { kind: "dns", timeout: r.error === "timeout" };
  const ip = r.ips[0];
  const https = url.protocol === "https:";
  const port = Number(url.port || (https ? 443 : 80));
  const rnd = () => p.ctx.rng.next();
  const go = egress(p.ctx.faults, p.pod, ip);
  const back = ingress(p.ctx.faults, p.pod, ip);
  const give = Math.min(req.connectMs, req.totalMs);
  // Linux retries an unanswered SYN after 1, 2, 4... s and gives up after 6 retries (~127 s)
  const connect =
    port === 80 || port === 443 ? roundTrip(ip, go, back, rnd, 7, (k) => 1000 * 2 ** k) : Infinity;
  if (connect > give) {
    await wait(Math.min(give, 127_000));
    return { kind: "timeout", phase: "connect", ip, ms: planned };
  }
  await wait(connect);
  const connectMs = planned;
  const rto = (k: number) => Math.min(120_000, 200 * 2 ** k);
  // TLS 1.3: one more round trip before the request; the server's own time by host
  const tls = https ? roundTrip(ip, go, back, rnd, 15, rto) : 0;
  const serverMs = 8 + (hashString(`srv:${host}`) % 40);
  const took = tls + roundTrip(ip, go, back, rnd, 15, rto) + serverMs;
  const left = req.totalMs - planned;
  if (took > left) {
    await wait(left);
    return { kind: "timeout", phase: "read", ip, ms: planned };
  }
  await wait(took);
  const pg = page(host, url.pathname || "/");
  const wall = new Date(p.ctx.clock.toWall(p.ctx.clock.now()));
  const answer: Answer = {
    status: pg.status,
    reason: pg.reason,
    version: "HTTP/1.1",
    headers: [
      ["Content-Type", "text/html; charset=UTF-8"],
      ["Date", wall.toUTCString()],
      ["Content-Length", String(Buffer.byteLength(pg.body))],
    ],
    body: req.method === "HEAD" ? "" : pg.body,
    serverMs,
  };
  return { kind: "ok", ip, answer, ms: planned, connectMs };
}
