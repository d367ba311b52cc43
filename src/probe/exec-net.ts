// The network commands `kubectl exec` may run (curl, wget, ping), each with the one-line usage
// the contract and the refusals show. A URL may name only a service of the namespace or the pod
// itself, read the same way by curl (RFC 3986) and by a browser (WHATWG), so that what we check is
// the host the command reaches.
import { type Flag, has, lastValue, parseFlags } from "./flags.js";

/** What may appear in a URL we check: RFC 3986 characters, without curl's globbing `[]{}`. */
const URL_CHARS = /^[A-Za-z0-9\-._~:/?#@!$&'()*+,;=%]*$/;

/** The URL rules, in words: the contract states them, urlRefusal enforces them. */
export const URL_RULE =
  "URLs: http(s) to a service of this namespace (http://<service>:<port>/<path>, <service>.<namespace>[.svc[.cluster.local]]) or localhost; no IP addresses, no user@, no %-escapes in the host, no spaces, backslashes or [] {}";

/**
 * http(s) to a service of the namespace (svc, svc.ns, svc.ns.svc[.cluster.local]) or the pod
 * itself. curl reads URLs by RFC 3986 and a browser by WHATWG, and they disagree on odd ones
 * (`http://svc\@169.254.169.254/` is host svc to WHATWG, host 169.254.169.254 to curl), so a
 * URL is refused unless it is plain: RFC 3986 characters only, no user@ part, no % in the host,
 * and both readings give the same host.
 */
export function urlRefusal(raw: string, ns: string): string | undefined {
  if (!URL_CHARS.test(raw))
    return `write the URL plainly (letters, digits, -._~:/?#&=%; no spaces, backslashes or [] {}): ${raw}`;
  // a scheme takes exactly two slashes: curl reads `http:/x` and `http:///x` as host x, and a
  // reading that took `http` for the host would then agree with nothing
  if (/^[a-z][a-z0-9+.-]*:(?!\d)/i.test(raw) && !/^[a-z][a-z0-9+.-]*:\/\/(?!\/)/i.test(raw))
    return `write the URL as http://<service>:<port>/<path>, not ${raw}`;
  const m = /^(?:([a-z][a-z0-9+.-]*):\/\/)?([^/?#]*)/i.exec(raw) as RegExpExecArray;
  const scheme = (m[1] ?? "http").toLowerCase();
  if (scheme !== "http" && scheme !== "https") return `only http(s) URLs may be fetched, not ${scheme}:`;
  const authority = m[2];
  // anywhere, not only in the authority: old curls read `http://a?@b/` as user "a?" at host b
  if (raw.includes("@")) return "URLs with an @ are not allowed (user@host); use http://<service>:<port>/";
  if (authority.includes("%")) return `write the host of ${raw} without %-escapes`;
  const host = authority.replace(/:\d*$/, "").toLowerCase();
  let u: URL;
  try {
    u = new URL(m[1] ? raw : `http://${raw}`);
  } catch {
    return `cannot read the URL ${raw}`;
  }
  if (u.hostname !== host)
    return `cannot read the URL ${raw} unambiguously; use http://<service>:<port>/<path>`;
  if (["localhost", "127.0.0.1"].includes(host)) return undefined;
  if (/^[\d.]+$/.test(host) || /^0x/i.test(host) || host.includes(":"))
    return `use a service name of namespace ${ns} (e.g. http://<service>:<port>/), not an IP address`;
  const parts = host.split(".");
  const suffix = parts.slice(2).join(".");
  if (parts.length === 1 || (parts[1] === ns && ["", "svc", "svc.cluster.local"].includes(suffix)))
    return undefined;
  return `only services of namespace ${ns} may be fetched (http://<service>:<port>/ or <service>.${ns}.svc)`;
}

function urls(positionals: string[], ns: string, tool: string): string | undefined {
  if (!positionals.length) return `${tool} needs a URL`;
  for (const p of positionals) {
    const why = urlRefusal(p, ns);
    if (why) return why;
  }
  return undefined;
}

export const CURL_USAGE =
  "curl -s [-S -f -i -I -v -k -m N --connect-timeout N -w FMT -H H -o /dev/null] <URL> (GET and HEAD only)";

export function curl(args: string[], ns: string): string | undefined {
  const p = parseFlags(args, {
    valueShort: "mwoHX",
    boolShort: "sSfiIvk",
    valueLong: ["max-time", "connect-timeout", "write-out", "output", "header", "request"],
    boolLong: ["silent", "show-error", "fail", "include", "head", "verbose", "insecure"],
  });
  if ("error" in p) return `curl: ${p.error}; allowed: ${CURL_USAGE}`;
  const out = lastValue(p.flags, "-o", "--output");
  if (out !== undefined && out !== "/dev/null")
    return "curl -o writes a file; print to stdout (or -o /dev/null)";
  const method = lastValue(p.flags, "-X", "--request");
  if (method !== undefined && !["GET", "HEAD"].includes(method.toUpperCase()))
    return `curl -X ${method} can change a service; only GET and HEAD are allowed`;
  return urls(p.positionals, ns, "curl");
}

export const WGET_USAGE = "wget -qO- [-T N --spider -S] <URL> (or -O /dev/null)";

export function wget(args: string[], ns: string): string | undefined {
  const p = parseFlags(args, {
    valueShort: "OTt",
    boolShort: "qS",
    valueLong: ["output-document", "timeout", "tries"],
    boolLong: ["quiet", "spider", "server-response"],
  });
  if ("error" in p) return `wget: ${p.error}; allowed: ${WGET_USAGE}`;
  const out = lastValue(p.flags, "-O", "--output-document");
  // -O- prints the page, -O /dev/null discards it: neither writes a file
  if (out !== "-" && out !== "/dev/null" && !has(p.flags, "--spider"))
    return "wget without -O- (or -O /dev/null) saves a file; use wget -qO- <url>";
  return urls(p.positionals, ns, "wget");
}

/** What keeps a ping short and gentle: a count it ends at, no flood interval, a bounded deadline. */
const PING = { maxCount: 10, minInterval: 0.2, maxDeadline: 30 };

export const PING_USAGE = `ping -c N <host> (N from 1 to ${PING.maxCount}; -i ${PING.minInterval} s or more, -w ${PING.maxDeadline} s or less; also -W -s -t -q -n)`;

export function ping(args: string[]): string | undefined {
  const p = parseFlags(args, { valueShort: "cWwist", boolShort: "qn46DOv", valueLong: [], boolLong: [] });
  const usage = `ping must end by itself: ${PING_USAGE}`;
  if ("error" in p || p.positionals.length !== 1) return usage;
  const count = Number(lastValue(p.flags, "-c"));
  if (!(Number.isInteger(count) && count >= 1 && count <= PING.maxCount)) return usage;
  const num = (f: Flag[], n: string) => Number(lastValue(f, n) ?? "NaN");
  if (has(p.flags, "-i") && !(num(p.flags, "-i") >= PING.minInterval))
    return `ping -i below ${PING.minInterval} s floods; use -i ${PING.minInterval} or more`;
  if (has(p.flags, "-w") && !(num(p.flags, "-w") <= PING.maxDeadline))
    return `ping -w must be ${PING.maxDeadline} s or less`;
  return undefined;
}
