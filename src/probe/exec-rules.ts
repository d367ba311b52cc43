// What `kubectl exec <pod> -- <command>` may run: read-only commands that end by themselves.
// The command runs in the container without a shell (kubectl exec passes argv), so checking argv
// is enough; each rule names the arguments that would write, never end, or leave the namespace.
import { type Flag, has, lastValue, parseFlags } from "./flags.js";

type Rule = (args: string[], ns: string) => string | undefined;

const ANY: Rule = () => undefined;

/**
 * A rule refusing some flags, as getopt_long reads them: `-x` inside a short cluster, `--long`,
 * `--long=v`, and any abbreviation of a long one (GNU tools accept unique prefixes: `--foll`).
 */
const refuseFlags =
  (names: string[], why: string): Rule =>
  (args) => {
    const shorts = names.filter((n) => /^-[^-]$/.test(n)).map((n) => n[1]);
    const longs = names.filter((n) => n.startsWith("--")).map((n) => n.slice(2));
    for (const a of args) {
      if (a === "--") break;
      if (a.startsWith("--")) {
        const name = a.slice(2).split("=")[0];
        if (name && longs.some((l) => l.startsWith(name))) return why;
      } else if (a.startsWith("-") && [...a.slice(1)].some((c) => shorts.includes(c))) return why;
    }
    return undefined;
  };

/** What may appear in a URL we check: RFC 3986 characters, without curl's globbing `[]{}`. */
const URL_CHARS = /^[A-Za-z0-9\-._~:/?#@!$&'()*+,;=%]*$/;

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

const curl: Rule = (args, ns) => {
  const p = parseFlags(args, {
    valueShort: "mwoHX",
    boolShort: "sSfiIvk",
    valueLong: ["max-time", "connect-timeout", "write-out", "output", "header", "request"],
    boolLong: ["silent", "show-error", "fail", "include", "head", "verbose", "insecure"],
  });
  if ("error" in p)
    return `curl: ${p.error}; allowed: curl -s [-S -f -i -I -v -k -m N --connect-timeout N -w FMT -H H -o /dev/null] <url> (GET only)`;
  const out = lastValue(p.flags, "-o", "--output");
  if (out !== undefined && out !== "/dev/null")
    return "curl -o writes a file; print to stdout (or -o /dev/null)";
  const method = lastValue(p.flags, "-X", "--request");
  if (method !== undefined && !["GET", "HEAD"].includes(method.toUpperCase()))
    return `curl -X ${method} can change a service; only GET and HEAD are allowed`;
  return urls(p.positionals, ns, "curl");
};

const wget: Rule = (args, ns) => {
  const p = parseFlags(args, {
    valueShort: "OTt",
    boolShort: "qS",
    valueLong: ["output-document", "timeout", "tries"],
    boolLong: ["quiet", "spider", "server-response"],
  });
  if ("error" in p) return `wget: ${p.error}; allowed: wget -qO- [-T N --spider -S] <url>`;
  const out = lastValue(p.flags, "-O", "--output-document");
  if (out !== "-" && !has(p.flags, "--spider")) return "wget without -O- saves a file; use wget -qO- <url>";
  return urls(p.positionals, ns, "wget");
};

const top: Rule = (args) => {
  const p = parseFlags(args, { valueShort: "ndpow", boolShort: "bcHiS", valueLong: [], boolLong: [] });
  if ("error" in p || !has(p.flags, "-b") || lastValue(p.flags, "-n") !== "1")
    return "top must run once in batch mode: top -b -n 1";
  return undefined;
};

const ping: Rule = (args) => {
  const p = parseFlags(args, { valueShort: "cWwist", boolShort: "qn46DOv", valueLong: [], boolLong: [] });
  const usage =
    "ping must end by itself: ping -c N <host> with N from 1 to 10 (allowed: -c -W -w -i -s -t -q -n)";
  if ("error" in p || p.positionals.length !== 1) return usage;
  const count = Number(lastValue(p.flags, "-c"));
  if (!(Number.isInteger(count) && count >= 1 && count <= 10)) return usage;
  const num = (f: Flag[], n: string) => Number(lastValue(f, n) ?? "NaN");
  if (has(p.flags, "-i") && !(num(p.flags, "-i") >= 0.2))
    return "ping -i below 0.2 s floods; use -i 0.2 or more";
  if (has(p.flags, "-w") && !(num(p.flags, "-w") <= 30)) return "ping -w must be 30 s or less";
  return undefined;
};

const dateSets = refuseFlags(["-s", "-f", "--set", "--file"], "set");
const date: Rule = (args, ns) =>
  dateSets(args, ns) || args.some((a) => !a.startsWith("-") && !a.startsWith("+"))
    ? "date may only print the time (date, date -u, date +FORMAT)"
    : undefined;

const hostnameSets = refuseFlags(["-F", "-b", "--file", "--boot"], "set");
const hostname: Rule = (args, ns) =>
  hostnameSets(args, ns) || args.some((a) => !a.startsWith("-"))
    ? "hostname may only print the name (hostname, hostname -i)"
    : undefined;

const RULES: Record<string, Rule> = {
  cat: ANY,
  ls: ANY,
  env: (args) =>
    args.length
      ? "env with arguments runs a program or changes the environment; use env or printenv NAME"
      : undefined,
  printenv: ANY,
  ps: ANY,
  top,
  df: ANY,
  du: ANY,
  free: refuseFlags(["-s", "--seconds", "-c", "--count"], "free must print once; drop -s/-c"),
  uptime: ANY,
  uname: ANY,
  id: ANY,
  whoami: ANY,
  stat: ANY,
  date,
  hostname,
  ping,
  nslookup: ANY,
  wget,
  curl,
  netstat: refuseFlags(["-c", "--continuous"], "netstat must print once; drop -c"),
  ss: ANY,
  head: ANY,
  tail: refuseFlags(["-f", "-F", "--follow"], "tail -f never ends; use tail -n N"),
  grep: ANY,
  wc: ANY,
};

export const EXEC_ALLOWED =
  "cat, ls, env, printenv, ps, top -b -n 1, df, du, free, uptime, uname, id, whoami, stat, date, hostname, ping -c N, nslookup, wget -qO- / curl -s <service URL>, netstat, ss, head, tail, grep, wc";

const WHY: [RegExp, string][] = [
  [
    /^(sh|bash|ash|dash|zsh|ksh|busybox|xargs|nohup|timeout|nice|su|sudo)$/,
    "runs another program or a shell, which the probe cannot check",
  ],
  [
    /^(rm|rmdir|mv|cp|dd|tee|touch|mkdir|ln|chmod|chown|truncate|install|sed|awk|perl|python3?|vi|vim)$/,
    "can write files",
  ],
  [/^(kill|pkill|killall|reboot|shutdown|halt|poweroff)$/, "signals or stops processes"],
];

export function checkExec(command: string[], ns: string): string | undefined {
  const [prog = "", ...args] = command;
  const dir = prog.includes("/") ? prog.slice(0, prog.lastIndexOf("/")) : "";
  const name = prog.slice(prog.lastIndexOf("/") + 1);
  if (dir && !["/bin", "/usr/bin", "/sbin", "/usr/sbin", "/usr/local/bin"].includes(dir))
    return `run commands by name (e.g. cat), not from ${dir}`;
  const rule = RULES[name];
  if (!rule) {
    const why = WHY.find(([re]) => re.test(name))?.[1] ?? "is not on the read-only list";
    return `exec ${name} is refused: it ${why}; read-only exec commands: ${EXEC_ALLOWED}`;
  }
  const why = rule(args, ns);
  return why ? `exec ${name}: ${why}` : undefined;
}
