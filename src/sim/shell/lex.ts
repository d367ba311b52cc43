// The shell's lexer: words with their quoting kept (so expansion knows what to split and glob),
// operators, redirections with their descriptor ("2>"), newlines. $(...) and `...` are parsed
// right away into a nested script, here-documents' bodies read at the newline that ends their line, so syntax errors surface before anything runs (by the parser
// the caller hands in: parse.ts, which tokenizes with this lexer).
import { ParseError, type Script, type Tok, type Word } from "./ast.js";

/** Parses the script inside $(...) or `...`. */
export type SubParser = (src: string) => Script;

const OPS = ["&&", "||", ";;", ">>", ">&", "<&", "&>", ";", "|", "&", "(", ")", ">", "<"];
export const NAME = /^[A-Za-z_][A-Za-z0-9_]*/;

/** A here-document whose body starts after the next newline. */
interface PendingHere {
  tok: { here?: Word };
  delim: string;
  /** The delimiter was quoted: the body is taken as is, without expansion. */
  quoted: boolean;
  /** `<<-`: leading tabs are stripped from the body's lines and the delimiter's. */
  strip: boolean;
}

/**
 * Read a here-document's body from `i` (the line after its operator's): lines up to the one that
 * is the delimiter, or the end of input (dash then warns; the body is what was read). An unquoted
 * delimiter leaves $ and ` active in the body, as inside double quotes without the quotes.
 */
function hereBody(src: string, i: number, h: PendingHere, parse: SubParser): number {
  let body = "";
  while (i < src.length) {
    const nl = src.indexOf("\n", i);
    const end = nl < 0 ? src.length : nl;
    let line = src.slice(i, end);
    if (h.strip) line = line.replace(/^\t+/, "");
    i = end + 1;
    if (line === h.delim) break;
    body += `${line}\n`;
  }
  h.tok.here = h.quoted
    ? [{ t: "lit", s: body, quoted: true }]
    : readWord(`"${body.replace(/"/g, '\\"')}"`, 0, parse)[0];
  return Math.min(i, src.length);
}

export function tokenize(src: string, parse: SubParser): Tok[] {
  const toks: Tok[] = [];
  const pending: PendingHere[] = [];
  let i = 0;
  while (i < src.length) {
    const c = src[i];
    if (c === " " || c === "\t") i++;
    else if (c === "\\" && src[i + 1] === "\n") i += 2;
    else if (c === "\n") {
      toks.push({ t: "nl" });
      i++;
      for (const h of pending.splice(0)) i = hereBody(src, i, h, parse);
    } else if (c === "#") while (i < src.length && src[i] !== "\n") i++;
    else {
      if (src.startsWith("<<", i)) {
        const strip = src[i + 2] === "-";
        let j = i + (strip ? 3 : 2);
        while (src[j] === " " || src[j] === "\t") j++;
        const [w, end] = readWord(src, j, parse);
        if (!w.length) throw new ParseError("syntax error: a here-document needs a delimiter word");
        const tok: Tok & { t: "io" } = { t: "io", fd: 0, op: "<<", here: [] };
        toks.push(tok);
        pending.push({
          tok,
          delim: w.map((p) => (p.t === "lit" ? p.s : "")).join(""),
          quoted: w.some((p) => p.t === "lit" && p.quoted),
          strip,
        });
        i = end;
        continue;
      }
      const op = OPS.find((o) => src.startsWith(o, i));
      if (op) {
        if (op === ";;" || op === "<&")
          throw new ParseError(`syntax error: "${op}" is not supported by this shell`);
        toks.push(
          op === ">" || op === ">>" || op === "<" || op === ">&" || op === "&>"
            ? { t: "io", fd: op === "<" ? 0 : 1, op }
            : { t: "op", op },
        );
        i += op.length;
      } else {
        const [w, end] = readWord(src, i, parse);
        // "2>" and friends: digits right before a redirection operator name the descriptor.
        const digits = src.slice(i, end);
        if (/^\d$/.test(digits) && (src[end] === ">" || src[end] === "<")) {
          const op2 = OPS.find((o) => src.startsWith(o, end))!;
          toks.push({ t: "io", fd: Number(digits), op: op2 });
          i = end + op2.length;
          continue;
        }
        const plain = w.every((p) => p.t === "lit" && !p.quoted)
          ? w.map((p) => (p as { s: string }).s).join("")
          : undefined;
        toks.push({ t: "word", w, plain });
        i = end;
      }
    }
  }
  // here-documents whose operator was on the last line: delimited by the end of input
  for (const h of pending.splice(0)) hereBody(src, src.length, h, parse);
  return toks;
}

function matching(src: string, i: number, open: string, close: string): number {
  let depth = 1;
  for (let j = i; j < src.length; j++) {
    const c = src[j];
    if (c === "\\") j++;
    else if (c === "'") {
      j = src.indexOf("'", j + 1);
      if (j < 0) break;
    } else if (c === open && open !== close) depth++;
    else if (c === close && --depth === 0) return j;
  }
  throw new ParseError(`syntax error: unterminated ${open === "(" ? "$(" : open}`, true);
}

/** One word starting at i: its parts and the index after it. */
function readWord(src: string, i: number, parse: SubParser): [Word, number] {
  const parts: Word = [];
  const lit = (s: string, quoted: boolean) => {
    const last = parts[parts.length - 1];
    if (last?.t === "lit" && last.quoted === quoted) last.s += s;
    else parts.push({ t: "lit", s, quoted });
  };
  const dollar = (j: number, quoted: boolean): number => {
    const rest = src.slice(j + 1);
    if (rest.startsWith("((")) {
      // $(( expr )): the closing "))" is where the parentheses opened inside are balanced
      const end = matching(src, j + 3, "(", ")");
      if (src[end + 1] !== ")") throw new ParseError("syntax error: missing '))'", true);
      parts.push({ t: "arith", expr: src.slice(j + 3, end), quoted });
      return end + 2;
    }
    if (rest.startsWith("(")) {
      const end = matching(src, j + 2, "(", ")");
      parts.push({ t: "sub", script: parse(src.slice(j + 2, end)), quoted });
      return end + 1;
    }
    if (rest.startsWith("{")) {
      const end = matching(src, j + 2, "{", "}");
      const body = src.slice(j + 2, end);
      const m = body.match(/^([A-Za-z_][A-Za-z0-9_]*|[0-9?#$@*])(:?[-=+?])?(.*)$/s);
      if (!m) throw new ParseError(`\${${body}}: bad substitution`);
      // The default of ${X:-a b} keeps its spaces: read it as if double-quoted.
      const arg = m[2] ? readWord(m[3].includes('"') ? m[3] : `"${m[3]}"`, 0, parse)[0] : undefined;
      parts.push({ t: "var", name: m[1], quoted, op: m[2], arg });
      return end + 1;
    }
    const m = rest.match(NAME) ?? rest.match(/^[0-9?#$@*!]/);
    if (!m) {
      lit("$", quoted);
      return j + 1;
    }
    parts.push({ t: "var", name: m[0], quoted });
    return j + 1 + m[0].length;
  };
  while (i < src.length) {
    const c = src[i];
    if (" \t\n;&|()<>".includes(c)) break;
    if (c === "\\") {
      if (i + 1 < src.length) lit(src[i + 1], true);
      i += 2;
    } else if (c === "'") {
      const end = src.indexOf("'", i + 1);
      if (end < 0) throw new ParseError("syntax error: unterminated quoted string", true);
      lit(src.slice(i + 1, end), true);
      i = end + 1;
    } else if (c === '"') {
      let j = i + 1;
      for (;;) {
        if (j >= src.length) throw new ParseError("syntax error: unterminated quoted string", true);
        const d = src[j];
        if (d === '"') break;
        if (d === "\\" && '$`"\\\n'.includes(src[j + 1] ?? "")) {
          if (src[j + 1] !== "\n") lit(src[j + 1], true);
          j += 2;
        } else if (d === "$") j = dollar(j, true);
        else if (d === "`") {
          const end = matching(src, j + 1, "`", "`");
          parts.push({ t: "sub", script: parse(src.slice(j + 1, end)), quoted: true });
          j = end + 1;
        } else {
          lit(d, true);
          j++;
        }
      }
      // "" and "$x" with x empty are still a field; "$@" without arguments is none
      const last = parts[parts.length - 1];
      if (!last || (last.t !== "lit" && !(last.t === "var" && last.name === "@" && !last.op))) lit("", true);
      i = j + 1;
    } else if (c === "$") i = dollar(i, false);
    else if (c === "`") {
      const end = matching(src, i + 1, "`", "`");
      parts.push({ t: "sub", script: parse(src.slice(i + 1, end)), quoted: false });
      i = end + 1;
    } else {
      lit(c, false);
      i++;
    }
  }
  return [parts, i];
}
