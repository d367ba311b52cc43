// The shell's parser: POSIX sh syntax, a deliberately small part of it. Quotes, escapes,
// $VAR / ${VAR} / ${VAR:-x} / $? / $1, $(...) and `...`, redirections (> >> < 2> 2>&1 &>),
// pipes, ; && || & and newlines, { ...; } and ( ... ), if/elif/else/fi, for/in/do/done and
// while/until. Anything else (case, functions, arithmetic) is a clear error; here-documents (<<, <<-) are
// read by the lexer.
import type { AndOr, Command, Part, Pipeline, Redir, Script, Tok, Word } from "./ast.js";
import { ParseError } from "./ast.js";
import { NAME, tokenize } from "./lex.js";

export * from "./ast.js";

const RESERVED = new Set([
  "if",
  "then",
  "elif",
  "else",
  "fi",
  "for",
  "in",
  "do",
  "done",
  "while",
  "until",
  "{",
  "}",
  "!",
]);
const UNSUPPORTED = new Set(["case", "esac", "function", "select"]);

class Parser {
  private i = 0;
  constructor(private readonly toks: Tok[]) {}

  private peek(): Tok | undefined {
    return this.toks[this.i];
  }
  private isWord(w: string): boolean {
    const t = this.peek();
    return t?.t === "word" && t.plain === w;
  }
  private isOp(op: string): boolean {
    const t = this.peek();
    return t?.t === "op" && t.op === op;
  }
  private skipNl() {
    while (this.peek()?.t === "nl") this.i++;
  }
  private expectWord(w: string) {
    this.skipNl();
    if (!this.isWord(w)) throw this.unexpected(`"${w}"`);
    this.i++;
  }
  private unexpected(wanted: string): ParseError {
    const t = this.peek();
    if (!t) return new ParseError(`syntax error: end of file unexpected (expecting ${wanted})`, true);
    const what = t.t === "word" ? (t.plain ?? "word") : t.t === "nl" ? "newline" : t.op;
    return new ParseError(`syntax error: "${what}" unexpected (expecting ${wanted})`);
  }

  /** A list of and-or lists, up to one of the given reserved words (or the end). */
  script(stop: string[] = []): Script {
    const out: Script = [];
    for (;;) {
      this.skipNl();
      const t = this.peek();
      if (
        !t ||
        (t.t === "word" && t.plain && stop.includes(t.plain)) ||
        (t.t === "op" && t.op === ")" && stop.includes(")"))
      )
        return out;
      out.push(this.andOr());
      const sep = this.peek();
      if (sep?.t === "op" && (sep.op === ";" || sep.op === "&")) this.i++;
      else if (
        sep &&
        sep.t !== "nl" &&
        !(sep.t === "word" && sep.plain && stop.includes(sep.plain)) &&
        !(sep.t === "op" && sep.op === ")")
      )
        throw this.unexpected("; or newline");
    }
  }

  private andOr(): AndOr {
    const first = this.pipeline();
    const rest: AndOr["rest"] = [];
    while (this.isOp("&&") || this.isOp("||")) {
      const op = (this.peek() as { op: "&&" | "||" }).op;
      this.i++;
      this.skipNl();
      rest.push({ op, p: this.pipeline() });
    }
    return { first, rest };
  }

  private pipeline(): Pipeline {
    let negate = false;
    if (this.isWord("!")) {
      negate = true;
      this.i++;
    }
    const cmds = [this.command()];
    while (this.isOp("|")) {
      this.i++;
      this.skipNl();
      cmds.push(this.command());
    }
    return { negate, cmds };
  }

  private command(): Command {
    const t = this.peek();
    if (t?.t === "word" && t.plain && UNSUPPORTED.has(t.plain))
      throw new ParseError(`syntax error: "${t.plain}" is not supported by this shell`);
    let cmd: Command;
    if (this.isOp("(")) {
      this.i++;
      const body = this.script([")"]);
      if (!this.isOp(")")) throw this.unexpected('")"');
      this.i++;
      cmd = { t: "group", body, subshell: true, redirs: [] };
    } else if (this.isWord("{")) {
      this.i++;
      const body = this.script(["}"]);
      this.expectWord("}");
      cmd = { t: "group", body, subshell: false, redirs: [] };
    } else if (this.isWord("if")) cmd = this.ifCmd();
    else if (this.isWord("for")) cmd = this.forCmd();
    else if (this.isWord("while") || this.isWord("until")) {
      const until = this.isWord("until");
      this.i++;
      const cond = this.script(["do"]);
      this.expectWord("do");
      const body = this.script(["done"]);
      this.expectWord("done");
      cmd = { t: "while", until, cond, body, redirs: [] };
    } else return this.simple();
    while (this.peek()?.t === "io") cmd.redirs.push(this.redir());
    return cmd;
  }

  private ifCmd(): Command {
    const branches: { cond: Script; body: Script }[] = [];
    let otherwise: Script | undefined;
    do {
      this.i++; // "if" or "elif"
      const cond = this.script(["then"]);
      this.expectWord("then");
      branches.push({ cond, body: this.script(["elif", "else", "fi"]) });
    } while (this.isWord("elif"));
    if (this.isWord("else")) {
      this.i++;
      otherwise = this.script(["fi"]);
    }
    this.expectWord("fi");
    return { t: "if", branches, otherwise, redirs: [] };
  }

  private forCmd(): Command {
    this.i++;
    const n = this.peek();
    if (n?.t !== "word" || !n.plain || !NAME.test(n.plain)) throw this.unexpected("a variable name");
    this.i++;
    let items: Word[] | undefined;
    this.skipNl();
    if (this.isWord("in")) {
      this.i++;
      items = [];
      while (this.peek()?.t === "word") items.push((this.toks[this.i++] as { w: Word }).w);
    }
    if (this.isOp(";")) this.i++;
    this.expectWord("do");
    const body = this.script(["done"]);
    this.expectWord("done");
    return { t: "for", name: n.plain, items, body, redirs: [] };
  }

  private redir(): Redir {
    const io = this.toks[this.i++] as { fd: number; op: string; here?: Word };
    if (io.here) return { fd: io.fd, op: "<<", target: io.here };
    const target = this.peek();
    if (target?.t !== "word") throw this.unexpected("a redirection target");
    this.i++;
    if (io.op === "&>") return { fd: -1, op: ">", target: target.w };
    return { fd: io.fd, op: io.op as Redir["op"], target: target.w };
  }

  private simple(): Command {
    const cmd = {
      t: "simple" as const,
      assigns: [] as { name: string; value: Word }[],
      words: [] as Word[],
      redirs: [] as Redir[],
    };
    for (;;) {
      const t = this.peek();
      if (t?.t === "io") cmd.redirs.push(this.redir());
      else if (t?.t === "word") {
        if (cmd.words.length === 0 && t.plain && RESERVED.has(t.plain) && t.plain !== "{" && t.plain !== "!")
          break;
        const first = t.w[0];
        const m = first?.t === "lit" && !first.quoted ? first.s.match(/^([A-Za-z_][A-Za-z0-9_]*)=/) : null;
        if (m && cmd.words.length === 0) {
          const value: Word = [
            { ...first, s: (first as { s: string }).s.slice(m[0].length) } as Part,
            ...t.w.slice(1),
          ];
          cmd.assigns.push({ name: m[1], value });
        } else cmd.words.push(t.w);
        this.i++;
      } else break;
    }
    if (!cmd.words.length && !cmd.assigns.length && !cmd.redirs.length) throw this.unexpected("a command");
    return cmd;
  }

  done(): void {
    this.skipNl();
    if (this.peek()) throw this.unexpected("end of input");
  }
}

export function parse(src: string): Script {
  const p = new Parser(tokenize(src, parse));
  const s = p.script();
  p.done();
  return s;
}
