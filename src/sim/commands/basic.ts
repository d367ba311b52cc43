// Commands about the process and the system: echo, true/false, sleep, env, hostname, id, date...
import { KERNEL_RELEASE, KERNEL_VERSION } from "../core/host.js";
import { uidOf } from "../userland/env.js";
import type { CommandRegistry, Proc } from "../userland/process.js";
import { parseArgs } from "./args.js";
import { date } from "./date.js";

export { formatDate } from "./date.js";

/** Backslash escapes of `echo -e` and printf. */
export function unescapeText(s: string): { text: string; stop: boolean } {
  let stop = false;
  const text = s.replace(/\\(0[0-7]{0,3}|x[0-9a-fA-F]{1,2}|.)/g, (_m, e: string) => {
    if (e === "c") {
      stop = true;
      return "";
    }
    const map: Record<string, string> = {
      n: "\n",
      t: "\t",
      r: "\r",
      "\\": "\\",
      a: "\x07",
      b: "\b",
      e: "\x1b",
      f: "\f",
      v: "\v",
    };
    if (e in map) return map[e];
    if (e[0] === "0") return String.fromCharCode(Number.parseInt(e.slice(1) || "0", 8));
    if (e[0] === "x") return String.fromCharCode(Number.parseInt(e.slice(1), 16));
    return `\\${e}`;
  });
  return { text, stop };
}

function echo(args: string[], p: Proc): number {
  let newline = true;
  let escapes = false;
  while (args.length && /^-[neE]+$/.test(args[0])) {
    const f = args.shift()!;
    if (f.includes("n")) newline = false;
    if (f.includes("e")) escapes = true;
    if (f.includes("E")) escapes = false;
  }
  let text = args.join(" ");
  if (escapes) {
    const u = unescapeText(text);
    text = u.text;
    if (u.stop) newline = false;
  }
  p.out(newline ? `${text}\n` : text);
  return 0;
}

function printf(args: string[], p: Proc): number {
  const [fmt = "", ...vals] = args;
  let i = 0;
  // The format is reused until the arguments run out, as printf(1) does.
  do {
    const out = fmt.replace(/%([-0-9.]*)([sdif%])/g, (_m, w: string, c: string) => {
      if (c === "%") return "%";
      const v = vals[i++] ?? "";
      const s =
        c === "s"
          ? v
          : c === "f"
            ? (Number(v) || 0).toFixed(Number(w.split(".")[1] ?? 6))
            : String(Math.trunc(Number(v) || 0));
      const width = Number.parseInt(w, 10);
      return Number.isFinite(width)
        ? width < 0 || w.startsWith("-")
          ? s.padEnd(Math.abs(width))
          : s.padStart(width)
        : s;
    });
    p.out(unescapeText(out).text);
  } while (i > 0 && i < vals.length);
  return 0;
}

export function parseDuration(s: string): number | undefined {
  if (s === "infinity") return Number.POSITIVE_INFINITY;
  const m = s.match(/^(\d+(?:\.\d+)?|\.\d+)([smhd]?)$/);
  if (!m) return undefined;
  return Number(m[1]) * { "": 1, s: 1, m: 60, h: 3600, d: 86400 }[m[2] as "" | "s" | "m" | "h" | "d"] * 1000;
}

async function sleep(args: string[], p: Proc): Promise<number> {
  if (!args.length) return p.fail("missing operand");
  let ms = 0;
  for (const a of args) {
    const d = parseDuration(a);
    if (d === undefined) return p.fail(`invalid time interval '${a}'`);
    ms += d;
  }
  // Cluster time: at --speed 60 a `sleep 60` takes a second. Interrupted when the client leaves
  // (or the container stops); `sleep infinity` never ends on its own (timers wait 2^31-1 ms at most).
  for (let left = ms; left > 0; left -= 2 ** 31 - 1)
    if (!(await p.sleep(Math.min(left, 2 ** 31 - 1)))) return 130;
  return 0;
}

function env(args: string[], p: Proc): Promise<number> | number {
  const vars = new Map(p.env);
  let i = 0;
  for (; i < args.length; i++) {
    const a = args[i];
    if (a === "-i" || a === "-") vars.clear();
    else if (a === "-u") vars.delete(args[++i]);
    else if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(a))
      vars.set(a.slice(0, a.indexOf("=")), a.slice(a.indexOf("=") + 1));
    else break;
  }
  if (i >= args.length) {
    for (const [k, v] of vars) p.out(`${k}=${v}\n`);
    return 0;
  }
  return p.spawn(args.slice(i), { env: vars }).then((st) => {
    if (st !== undefined) return st;
    p.stderr.write(`env: '${args[i]}': No such file or directory\n`);
    return 127;
  });
}

function printenv(args: string[], p: Proc): number {
  if (!args.length) {
    for (const [k, v] of p.env) p.out(`${k}=${v}\n`);
    return 0;
  }
  let ok = true;
  for (const a of args) {
    const v = p.env.get(a);
    if (v === undefined) ok = false;
    else p.out(`${v}\n`);
  }
  return ok ? 0 : 1;
}

const hostnameOf = (p: Proc) => p.pod.spec?.hostname ?? p.pod.metadata.name!;

function ids(p: Proc) {
  const uid = uidOf(p.pod, p.container);
  const sc = { ...(p.pod.spec?.securityContext ?? {}), ...(p.container?.securityContext ?? {}) };
  const gid = Number(sc.runAsGroup ?? 0);
  const groups = [
    gid,
    ...(p.pod.spec?.securityContext?.fsGroup !== undefined
      ? [Number(p.pod.spec.securityContext.fsGroup)]
      : []),
  ];
  return { uid, gid, groups };
}

const named = (n: number) => (n === 0 ? "0(root)" : String(n));

function id(args: string[], p: Proc): number {
  const { uid, gid, groups } = ids(p);
  const f = parseArgs(args).flags;
  if (f.has("u")) p.out(`${f.has("n") ? (uid === 0 ? "root" : uid) : uid}\n`);
  else if (f.has("g")) p.out(`${gid}\n`);
  else p.out(`uid=${named(uid)} gid=${named(gid)} groups=${[...new Set(groups)].map(named).join(",")}\n`);
  return 0;
}

function whoami(_args: string[], p: Proc): number {
  const { uid } = ids(p);
  if (uid !== 0) return p.fail(`cannot find name for user ID ${uid}`);
  p.out("root\n");
  return 0;
}

function uname(args: string[], p: Proc): number {
  const f = parseArgs(args).flags;
  const all = {
    s: "Linux",
    n: hostnameOf(p),
    r: KERNEL_RELEASE,
    v: KERNEL_VERSION,
    m: "x86_64",
    o: "GNU/Linux",
  };
  if (f.has("a")) p.out(`${Object.values(all).join(" ")}\n`);
  else {
    const keys = (["s", "n", "r", "v", "m", "o"] as const).filter((k) => f.has(k));
    p.out(`${(keys.length ? keys : ["s" as const]).map((k) => all[k]).join(" ")}\n`);
  }
  return 0;
}

export function registerBasic(r: CommandRegistry): void {
  r.register("echo", echo)
    .register("printf", printf)
    .register("true", () => 0)
    .register("false", () => 1)
    .register("sleep", sleep)
    .register("env", env)
    .register("printenv", printenv)
    .register("hostname", (_a, p) => {
      p.out(`${hostnameOf(p)}\n`);
      return 0;
    })
    .register("pwd", (_a, p) => {
      p.out(`${p.cwd}\n`);
      return 0;
    })
    .register("id", id)
    .register("whoami", whoami)
    .register("uname", uname)
    .register("date", date)
    .register("which", (args, p) => {
      let ok = true;
      for (const a of args.filter((x) => !x.startsWith("-"))) {
        if (p.commands.get(a)) p.out(`${a.includes("/") ? a : `/usr/bin/${a}`}\n`);
        else ok = false;
      }
      return ok ? 0 : 1;
    });
}
