// date, as GNU coreutils (and BusyBox, which shares the strftime conversions) prints it. A
// container's clock is the cluster clock: a command that takes cluster time (sleep, a dd under
// IOChaos) moves `date +%s` by that much, at any --speed, so a script that times itself with
// `date +%s%3N` measures what the simulation did. Containers run in UTC.
import type { Proc } from "../userland/process.js";

const DAYS = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];
const MONTHS = [
  "January",
  "February",
  "March",
  "April",
  "May",
  "June",
  "July",
  "August",
  "September",
  "October",
  "November",
  "December",
];

/** The value of one conversion, and whether it is numeric (padded with 0 by default). */
function conversion(c: string, d: Date, ms: number, nanos: number): [string, boolean] | undefined {
  const day = d.getUTCDay();
  const h = d.getUTCHours();
  const yearStart = Date.UTC(d.getUTCFullYear(), 0, 1);
  const z2 = (n: number) => String(n).padStart(2, "0");
  const table: Record<string, () => [string, boolean]> = {
    Y: () => [String(d.getUTCFullYear()), true],
    C: () => [z2(Math.floor(d.getUTCFullYear() / 100)), true],
    y: () => [z2(d.getUTCFullYear() % 100), true],
    m: () => [z2(d.getUTCMonth() + 1), true],
    d: () => [z2(d.getUTCDate()), true],
    e: () => [String(d.getUTCDate()).padStart(2), false],
    H: () => [z2(h), true],
    k: () => [String(h).padStart(2), false],
    I: () => [z2(h % 12 || 12), true],
    l: () => [String(h % 12 || 12).padStart(2), false],
    M: () => [z2(d.getUTCMinutes()), true],
    S: () => [z2(d.getUTCSeconds()), true],
    s: () => [String(Math.floor(ms / 1000)), true],
    N: () => [String(nanos).padStart(9, "0"), true],
    j: () => [String(Math.floor((ms - yearStart) / 86400000) + 1).padStart(3, "0"), true],
    u: () => [String(day || 7), true],
    w: () => [String(day), true],
    a: () => [DAYS[day].slice(0, 3), false],
    A: () => [DAYS[day], false],
    b: () => [MONTHS[d.getUTCMonth()].slice(0, 3), false],
    h: () => [MONTHS[d.getUTCMonth()].slice(0, 3), false],
    B: () => [MONTHS[d.getUTCMonth()], false],
    p: () => [h < 12 ? "AM" : "PM", false],
    P: () => [h < 12 ? "am" : "pm", false],
    Z: () => ["UTC", false],
    z: () => ["+0000", false],
    n: () => ["\n", false],
    t: () => ["\t", false],
    "%": () => ["%", false],
  };
  const f = table[c];
  return f?.();
}

const COMPOSITE: Record<string, string> = {
  F: "%Y-%m-%d",
  T: "%H:%M:%S",
  R: "%H:%M",
  D: "%m/%d/%y",
  r: "%I:%M:%S %p",
  c: "%a %b %e %H:%M:%S %Y",
  x: "%m/%d/%y",
  X: "%H:%M:%S",
};

/**
 * strftime with GNU's extensions: flags `-` (no padding), `_` (spaces), `0`; a field width;
 * `%N` nanoseconds, where a width keeps that many leading digits (`%3N` milliseconds); `%:z`.
 * `ms` may carry a fraction of a millisecond (the nanoseconds below it).
 */
export function formatDate(ms: number, fmt = "%a %b %e %H:%M:%S %Z %Y"): string {
  const whole = Math.floor(ms);
  const d = new Date(whole);
  const nanos = (((whole % 1000) + 1000) % 1000) * 1e6 + Math.round((ms - whole) * 1e6);
  return fmt.replace(
    /%([-_0^#]?)(\d*)(:?)([a-zA-Z%])/g,
    (all, flag: string, width: string, colon: string, c: string) => {
      if (colon) return c === "z" ? "+00:00" : all;
      if (COMPOSITE[c]) return formatDate(ms, COMPOSITE[c]);
      const conv = conversion(c, d, whole, nanos);
      if (!conv) return all;
      const numeric = conv[1];
      let text = conv[0];
      if (c === "N") return width ? text.slice(0, Number(width)).padEnd(Number(width), "0") : text;
      if (flag === "^") text = text.toUpperCase();
      if (flag === "-") return numeric || /^ +\d+$/.test(text) ? String(Number(text)) : text;
      if (flag === "_" && numeric) text = text.replace(/^0+(?=\d)/, (z) => " ".repeat(z.length));
      if (flag === "0" && /^ +\d+$/.test(text)) text = text.replace(/ /g, "0");
      if (width) text = text.padStart(Number(width), flag === "_" || (!numeric && flag !== "0") ? " " : "0");
      return text;
    },
  );
}

/** The instant `-d` names: `@SECONDS`, an ISO date/time, or "now". */
function parseWhen(s: string, now: number): number | undefined {
  if (s === "now" || s === "") return now;
  const at = s.match(/^@(-?\d+(?:\.\d+)?)$/);
  if (at) return Number(at[1]) * 1000;
  const iso = s.match(
    /^(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?))?\s*(Z|UTC|[+-]\d{2}:?\d{2})?$/,
  );
  if (!iso) return undefined;
  const zone = iso[3] && iso[3] !== "UTC" ? iso[3] : "Z";
  const t = Date.parse(`${iso[1]}T${iso[2] ?? "00:00:00"}${zone}`);
  return Number.isNaN(t) ? undefined : t;
}

export function date(args: string[], p: Proc): number {
  // the cluster clock as shown (whole milliseconds: the digits of %N below them are zeros)
  let when = p.clock.toWall(p.clock.now());
  let fmt: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a.startsWith("+")) fmt = a.slice(1);
    else if (a === "-u" || a === "--utc" || a === "--universal") continue;
    else if (
      a === "-d" ||
      a === "--date" ||
      a.startsWith("--date=") ||
      (a.startsWith("-d") && a.length > 2)
    ) {
      const v = a === "-d" || a === "--date" ? (args[++i] ?? "") : a.replace(/^--date=|^-d/, "");
      const t = parseWhen(v.trim(), when);
      if (t === undefined) return p.fail(`invalid date '${v}'`);
      when = t;
    } else if (a === "-R" || a === "--rfc-email") fmt = "%a, %d %b %Y %H:%M:%S %z";
    else if (a === "-I" || a === "--iso-8601" || a === "-Idate") fmt = "%Y-%m-%d";
    else if (a === "-Iseconds" || a === "--iso-8601=seconds") fmt = "%Y-%m-%dT%H:%M:%S%:z";
    else if (a === "-Ins" || a === "--iso-8601=ns") fmt = "%Y-%m-%dT%H:%M:%S,%N%:z";
    else if (a.startsWith("-")) return p.fail(`invalid option -- '${a.replace(/^-+/, "")}'`);
    else return p.fail(`invalid date '${a}'`);
  }
  p.out(`${formatDate(when, fmt)}\n`);
  return 0;
}
