// tr, as coreutils and BusyBox have it: translate, delete (-d) or squeeze (-s) characters read
// from stdin. Sets take ranges (a-z), octal and C escapes (\0, \n, \t, \\), and the classes
// [:digit:], [:lower:], [:upper:], [:space:], [:alpha:], [:alnum:] — enough for what /proc's
// NUL-separated files are read with (`tr '\0' ' ' < /proc/1/cmdline`).
import type { CommandRegistry, Proc } from "../userland/process.js";
import { readAll } from "../userland/stream.js";

const CLASSES: Record<string, string> = {
  digit: "0-9",
  lower: "a-z",
  upper: "A-Z",
  alpha: "a-zA-Z",
  alnum: "a-zA-Z0-9",
  space: " \\t\\n\\r\\v\\f",
};

const ESCAPES: Record<string, string> = { n: "\n", t: "\t", r: "\r", v: "\v", f: "\f", "\\": "\\" };

/** The characters of a set, in order. */
export function expandSet(spec: string): string[] {
  const s = spec.replace(/\[:(\w+):\]/g, (m, c: string) => CLASSES[c] ?? m);
  const chars: string[] = [];
  for (let i = 0; i < s.length; i++) {
    let c = s[i];
    if (c === "\\" && i + 1 < s.length) {
      const oct = s.slice(i + 1).match(/^[0-7]{1,3}/);
      if (oct) {
        c = String.fromCharCode(Number.parseInt(oct[0], 8));
        i += oct[0].length;
      } else c = ESCAPES[s[++i]] ?? s[i];
    }
    if (s[i + 1] === "-" && i + 2 < s.length) {
      const end = s[i + 2];
      for (let x = c.charCodeAt(0); x <= end.charCodeAt(0); x++) chars.push(String.fromCharCode(x));
      i += 2;
    } else chars.push(c);
  }
  return chars;
}

async function tr(args: string[], p: Proc): Promise<number> {
  let del = false;
  let squeeze = false;
  const sets: string[] = [];
  for (const a of args) {
    if (/^-[ds]+$/.test(a)) {
      del ||= a.includes("d");
      squeeze ||= a.includes("s");
    } else sets.push(a);
  }
  if (!sets.length || (!del && !squeeze && sets.length < 2)) {
    p.stderr.write(sets.length ? `tr: missing operand after '${sets[0]}'\n` : "tr: missing operand\n");
    return 1;
  }
  const from = expandSet(sets[0]);
  const to = sets[1] !== undefined ? expandSet(sets[1]) : [];
  const text = (await readAll(p.stdin)).toString("latin1");
  let out = "";
  for (const c of text) {
    const i = from.indexOf(c);
    if (del && i >= 0) continue;
    const r = !del && i >= 0 && to.length ? to[Math.min(i, to.length - 1)] : c;
    const sq = squeeze ? (to.length ? to : from) : [];
    if (squeeze && out.endsWith(r) && sq.includes(r)) continue;
    out += r;
  }
  p.stdout.write(Buffer.from(out, "latin1"));
  return 0;
}

export function registerTr(r: CommandRegistry): void {
  r.register("tr", tr);
}
