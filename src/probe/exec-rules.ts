// What `kubectl exec <pod> -- <command>` may run: read-only commands that end by themselves.
// The command runs in the container without a shell (kubectl exec passes argv), so checking argv
// is enough; each rule names the arguments that would write, never end, or leave the namespace,
// and carries the one-line usage that the contract and the refusals show, so no rule can be
// added without the model being told it.

import { CURL_USAGE, curl, PING_USAGE, ping, WGET_USAGE, wget } from "./exec-net.js";
import { has, lastValue, parseFlags } from "./flags.js";

export interface ExecRule {
  /** What is allowed, in one line ("top -b -n 1"); the program's name alone when anything is. */
  usage: string;
  /** Why argv is refused (what to write instead), or undefined when it may run. */
  check: (args: string[], ns: string) => string | undefined;
}

const any = (name: string): ExecRule => ({ usage: name, check: () => undefined });

/**
 * A rule refusing some flags, as getopt_long reads them: `-x` inside a short cluster, `--long`,
 * `--long=v`, and any abbreviation of a long one (GNU tools accept unique prefixes: `--foll`).
 */
const refuseFlags =
  (names: string[], why: string): ExecRule["check"] =>
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

const top: ExecRule["check"] = (args) => {
  const p = parseFlags(args, { valueShort: "ndpow", boolShort: "bcHiS", valueLong: [], boolLong: [] });
  if ("error" in p || !has(p.flags, "-b") || lastValue(p.flags, "-n") !== "1")
    return "top must run once in batch mode: top -b -n 1";
  return undefined;
};

const dateSets = refuseFlags(["-s", "-f", "--set", "--file"], "set");
const date: ExecRule["check"] = (args, ns) =>
  dateSets(args, ns) || args.some((a) => !a.startsWith("-") && !a.startsWith("+"))
    ? "date may only print the time (date, date -u, date +FORMAT)"
    : undefined;

const hostnameSets = refuseFlags(["-F", "-b", "--file", "--boot"], "set");
const hostname: ExecRule["check"] = (args, ns) =>
  hostnameSets(args, ns) || args.some((a) => !a.startsWith("-"))
    ? "hostname may only print the name (hostname, hostname -i)"
    : undefined;

const TC_USAGE = "tc [-s] qdisc show [dev <device>]";

/**
 * tc lists the pod's qdiscs (a NetworkChaos's netem shows there). iproute2 reads objects and
 * commands by prefix (`tc qdisc l` is `link`, `tc e` is `exec`, `tc m` is `monitor`, which never
 * ends), so only whole words are let through: -s/-stats/-statistics and -d/-details, `qdisc`,
 * show/list/ls, and `dev <device>`.
 */
const tc: ExecRule["check"] = (args) => {
  const refusal = `tc may only list qdiscs: ${TC_USAGE} (changing them needs NET_ADMIN, which no probe has)`;
  let i = 0;
  while (["-s", "-stats", "-statistics", "-d", "-details"].includes(args[i] ?? "")) i++;
  const [object, command = "show", ...rest] = args.slice(i);
  if (object !== "qdisc" || !["show", "list", "ls"].includes(command)) return refusal;
  if (rest.length === 0) return undefined;
  return rest.length === 2 && rest[0] === "dev" && /^[\w.:@-]+$/.test(rest[1]) ? undefined : refusal;
};

const MOUNT_USAGE = "mount [-l] [-t <type>] (lists the mounts; cat /proc/mounts too)";

/** mount with no device and no directory lists the mount table (util-linux and BusyBox alike). */
const mount: ExecRule["check"] = (args) => {
  const p = parseFlags(args, { valueShort: "t", boolShort: "l", valueLong: ["types"], boolLong: [] });
  return "error" in p || p.positionals.length
    ? `mount may only list the mounts here: ${MOUNT_USAGE}`
    : undefined;
};

const RULES: Record<string, ExecRule> = {
  cat: any("cat"),
  ls: any("ls"),
  env: {
    usage: "env (no arguments)",
    check: (args) =>
      args.length
        ? "env with arguments runs a program or changes the environment; use env or printenv NAME"
        : undefined,
  },
  printenv: any("printenv"),
  ps: any("ps"),
  top: { usage: "top -b -n 1", check: top },
  df: any("df"),
  du: any("du"),
  free: {
    usage: "free (not -s/-c)",
    check: refuseFlags(["-s", "--seconds", "-c", "--count"], "free must print once; drop -s/-c"),
  },
  uptime: any("uptime"),
  uname: any("uname"),
  id: any("id"),
  whoami: any("whoami"),
  stat: any("stat"),
  date: { usage: "date [-u] [+FORMAT]", check: date },
  hostname: { usage: "hostname [-i]", check: hostname },
  ping: { usage: PING_USAGE, check: (args) => ping(args) },
  nslookup: any("nslookup"),
  wget: { usage: WGET_USAGE, check: wget },
  curl: { usage: CURL_USAGE, check: curl },
  netstat: {
    usage: "netstat (not -c)",
    check: refuseFlags(["-c", "--continuous"], "netstat must print once; drop -c"),
  },
  ss: any("ss"),
  head: any("head"),
  tail: {
    usage: "tail (not -f/-F)",
    check: refuseFlags(["-f", "-F", "--follow"], "tail -f never ends; use tail -n N"),
  },
  grep: any("grep"),
  wc: any("wc"),
  tc: { usage: TC_USAGE, check: tc },
  mount: { usage: MOUNT_USAGE, check: mount },
};

/** Every exec rule by program name, for the contract and its test. */
export const EXEC_RULES: Readonly<Record<string, ExecRule>> = RULES;

/** Where a program may be named from: by name, or by its path in one of these folders. */
export const BIN_DIRS = ["/bin", "/usr/bin", "/sbin", "/usr/sbin", "/usr/local/bin"];

/** The exec commands and their arguments, in one line (the contract's, and the refusals'). */
export const EXEC_ALLOWED = Object.values(RULES)
  .map((r) => r.usage)
  .join(", ");

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
  if (dir && !BIN_DIRS.includes(dir))
    return `exec ${prog}: run ${name} by name, or from ${BIN_DIRS.join(", ")}, not from ${dir}`;
  const rule = Object.hasOwn(RULES, name) ? RULES[name] : undefined;
  if (!rule) {
    const why = WHY.find(([re]) => re.test(name))?.[1] ?? "is not on the read-only list";
    return `exec ${name} is refused: it ${why}; read-only exec commands: ${EXEC_ALLOWED}`;
  }
  const why = rule.check(args, ns);
  return why ? `exec ${name}: ${why}` : undefined;
}
