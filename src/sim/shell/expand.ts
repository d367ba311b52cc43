// Word expansion as sh does it: parameters ($X, ${X:-default}, $?, $1), command substitution,
// then field splitting of what was unquoted, then pathname globbing against the container's files.
import type { Proc, Stdio } from "../userland/process.js";
import { Collector } from "../userland/stream.js";
import { arithmetic } from "./arith.js";
import type { Word } from "./ast.js";
import { ExitSignal } from "./signals.js";
import type { ShellState } from "./state.js";

type Expansion = Exclude<Word[number], { t: "lit" }>;

/** Expand a word into fields. */
export async function expandWord(sh: ShellState, w: Word, io: Stdio): Promise<string[]> {
  const fields: string[] = [];
  let cur = "";
  let have = false;
  let glob = false;
  const flush = () => {
    if (have) fields.push(cur);
    cur = "";
    have = false;
  };
  for (const part of w) {
    if (part.t === "lit") {
      cur += part.s;
      have = true;
      if (!part.quoted && /[*?[]/.test(part.s)) glob = true;
      continue;
    }
    if (part.t === "var" && part.name === "@" && part.quoted && !part.op) {
      // "$@": each positional parameter its own field, the first and last joined to what is
      // around them; with none, no field at all (POSIX 2.5.2, Special Parameters)
      const args = sh.opts.args;
      for (const [i, a] of args.entries()) {
        if (i > 0) {
          fields.push(cur);
          cur = "";
        }
        cur += a;
        have = true;
      }
      continue;
    }
    const value = await expansion(sh, part, io);
    if (part.quoted) {
      cur += value;
      have = true;
      continue;
    }
    // Unquoted: split on blanks; a leading blank ends the field before it.
    const pieces = value.split(/[ \t\n]+/);
    if (pieces[0] === "" && pieces.length > 1) {
      flush();
      pieces.shift();
    }
    for (const [i, piece] of pieces.entries()) {
      if (i > 0) flush();
      cur += piece;
      if (piece) have = true;
    }
  }
  flush();
  return glob ? fields.flatMap((f) => globMatch(f, sh.p)) : fields;
}

/** Expand without field splitting or globbing (assignments, redirection targets). */
export async function expandString(sh: ShellState, w: Word, io: Stdio): Promise<string> {
  let s = "";
  for (const part of w) s += part.t === "lit" ? part.s : await expansion(sh, part, io);
  return s;
}

async function expansion(sh: ShellState, part: Expansion, io: Stdio): Promise<string> {
  if (part.t === "arith") {
    // Parameters inside are expanded first, then bare names read as variables.
    const text = part.expr.replace(
      /\$\{?([A-Za-z_][A-Za-z0-9_]*|[0-9?#])\}?/g,
      (_m, n: string) => param(sh, n) ?? "",
    );
    try {
      return String(arithmetic(text, (n) => sh.vars.get(n)));
    } catch (e) {
      sh.error(`arithmetic expression: ${(e as Error).message}: "${part.expr.trim()}"`, io);
      throw new ExitSignal(2);
    }
  }
  if (part.t === "sub") {
    const out = new Collector();
    const sub = sh.subshell();
    sh.lastSubStatus = await sub.runScript(part.script, { stdin: io.stdin, stdout: out, stderr: io.stderr });
    sh.p.join(sub.p);
    return out.text.replace(/\n+$/, "");
  }
  const v = param(sh, part.name);
  const arg = async () => (part.arg ? expandString(sh, part.arg, io) : "");
  const unset = part.op?.startsWith(":") ? !v : v === undefined;
  switch (part.op) {
    case ":-":
    case "-":
      return unset ? arg() : (v ?? "");
    case ":=":
    case "=":
      if (unset) sh.vars.set(part.name, await arg());
      return sh.vars.get(part.name) ?? "";
    case ":+":
    case "+":
      return unset ? "" : arg();
    case ":?":
    case "?":
      if (unset) {
        sh.error(`${part.name}: ${(await arg()) || "parameter not set"}`, io);
        throw new ExitSignal(2);
      }
      return v ?? "";
    default:
      return v ?? "";
  }
}

function param(sh: ShellState, name: string): string | undefined {
  const { args, arg0 } = sh.opts;
  if (name === "?") return String(sh.status);
  if (name === "$") return String(sh.p.pid); // the shell's PID in the container's namespace
  if (name === "!") return "";
  if (name === "#") return String(args.length);
  if (name === "@" || name === "*") return args.join(" ");
  if (name === "0") return arg0;
  if (/^\d+$/.test(name)) return args[Number(name) - 1];
  return sh.vars.get(name);
}

/** A path component's glob as a RegExp: * ? and [...] / [!...]; undefined if it is not valid. */
function globRegExp(g: string): RegExp | undefined {
  let src = "";
  for (let i = 0; i < g.length; i++) {
    const c = g[i];
    const close = c === "[" ? g.indexOf("]", i + 2) : -1;
    if (c === "*") src += ".*";
    else if (c === "?") src += ".";
    else if (close > 0) {
      const body = g.slice(i + 1, close);
      src += `[${body.startsWith("!") ? `^${body.slice(1)}` : body}]`;
      i = close;
    } else src += c.replace(/[.+^${}()|[\]\\]/g, "\\$&");
  }
  try {
    return new RegExp(`^${src}$`);
  } catch {
    return undefined;
  }
}

/** Expand a glob against the container's files; no match leaves the word as it was. */
function globMatch(pattern: string, p: Proc): string[] {
  if (!/[*?]|\[.+\]/.test(pattern)) return [pattern];
  let found: string[] = [pattern.startsWith("/") ? "/" : ""];
  for (const seg of pattern.split("/").filter(Boolean)) {
    const next: string[] = [];
    for (const base of found) {
      const join = (n: string) => (base === "" ? n : base.endsWith("/") ? `${base}${n}` : `${base}/${n}`);
      if (!/[*?[]/.test(seg)) {
        if (p.fs.stat(p.path(join(seg)))) next.push(join(seg));
        continue;
      }
      const re = globRegExp(seg);
      if (!re) return [pattern];
      try {
        const dir = base === "" ? p.cwd : p.path(base);
        for (const e of p.fs.list(dir))
          if (re.test(e.name) && (seg.startsWith(".") || !e.name.startsWith("."))) next.push(join(e.name));
      } catch {
        // not a directory: nothing matches below it
      }
    }
    found = next;
  }
  return found.length ? found.sort() : [pattern];
}
