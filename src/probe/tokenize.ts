// Splitting a probe command line the way a shell would split words, without a shell: quotes and
// backslashes are honoured, `;` and newlines separate commands, `|` separates pipeline stages.
// Anything a shell would expand or redirect ($(...), backticks, $VAR, >, <, &&, ||, &, (...)) is
// refused, because the model expects an effect we neither run nor want to run. Two redirections
// only choose what the output shows and are honoured: `2>&1` or `|&` (stderr into the pipe) and
// `2>/dev/null` (stderr dropped).

/** What the first stage's stderr does: shown after the output (a shell's terminal), merged into
 * the pipe (`2>&1`), or dropped (`2>/dev/null`). */
export type StderrMode = "show" | "merge" | "drop";

export interface Segment {
  /** The command as the model wrote it (for the observation). */
  text: string;
  /** Pipeline stages, each an argv; stages[0] is the program. */
  stages: string[][];
  /** Why this command is refused, if it is. */
  refusal?: string;
  /** The program's stderr (a filter's own stderr is never shown, so its redirection changes nothing). */
  stderr?: StderrMode;
}

export const REDIRECTION_REFUSAL =
  "redirection to or from a file (`>`, `>>`, `<`) is not allowed: probes only read, and the output comes back here; drop the redirection and narrow the output with | grep, | head -n N or | tail -n N (`2>&1`, `|&` and `2>/dev/null` are allowed)";

/** kubectl and the filters after it. */
export const MAX_STAGES = 5;

const SUBSTITUTION = "command substitution and variables are not expanded (no shell); write values literally";

class Builder {
  segments: Segment[] = [];
  private stages: string[][] = [];
  private words: string[] = [];
  private word = "";
  private started = false;
  private refusal?: string;
  private start = 0;
  private quoted = false;
  private stderr: StderrMode = "show";

  constructor(private readonly line: string) {}

  /** `2>...` on the current stage: the word so far is the descriptor `2`, unquoted. */
  atStderrDescriptor(): boolean {
    return this.started && this.word === "2" && !this.quoted;
  }
  /** `|&` (bash's `2>&1 |`): the stage's stderr goes into the pipe. */
  mergeStderr() {
    if (this.stages.length === 0) this.stderr = "merge";
  }
  /** Drops the pending `2` and records what the stage's stderr does. */
  redirectStderr(mode: StderrMode) {
    this.word = "";
    this.started = false;
    if (this.stages.length === 0) this.stderr = mode;
  }

  refuse(reason: string) {
    this.refusal ??= reason;
  }
  add(ch: string) {
    this.word += ch;
    this.started = true;
  }
  quoteOpened() {
    this.started = true;
    this.quoted = true;
  }
  endWord() {
    if (this.started) this.words.push(this.word);
    this.word = "";
    this.started = false;
    this.quoted = false;
  }
  endStage() {
    this.endWord();
    this.stages.push(this.words);
    this.words = [];
  }
  endSegment(at: number) {
    this.endStage();
    const text = this.line.slice(this.start, at).trim();
    this.start = at + 1;
    const stages = this.stages;
    this.stages = [];
    const refusal = this.refusal;
    this.refusal = undefined;
    const stderr = this.stderr;
    this.stderr = "show";
    if (!text) return;
    // each filter costs up to its work budget (filters.ts): a few bound what one command costs
    if (!refusal && stages.length > MAX_STAGES)
      return void this.segments.push({
        text,
        stages,
        refusal: `at most ${MAX_STAGES - 1} pipes after kubectl; narrow the kubectl command instead (-l, --tail, -o jsonpath)`,
      });
    if (!refusal && stages.some((s) => s.length === 0))
      return void this.segments.push({
        text,
        stages,
        refusal: "a pipe with an empty side; write `kubectl ... | grep WORD`",
      });
    this.segments.push({
      text,
      stages,
      ...(refusal ? { refusal } : {}),
      ...(stderr !== "show" ? { stderr } : {}),
    });
  }
}

/** What `$` starts outside single quotes: an expansion we refuse, or a literal dollar. */
function dollar(line: string, i: number): string | undefined {
  const next = line[i + 1] ?? "";
  if (next === "(" || next === "{" || /[A-Za-z_0-9@*#?!$-]/.test(next)) return SUBSTITUTION;
  return undefined;
}

/** After `2>`: `&1` or `/dev/null` (a space may come before the file, as a shell allows), then the word ends. */
const STDERR_TARGET = /^(&1|[ \t]*\/dev\/null)(?=[ \t\r\n;|]|$)/;

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/**
 * Why a command line cannot be run, if it holds what no argv may (a NUL ends a C string, so the
 * program would see less than we checked) or what is not text: control characters, lone UTF-16
 * surrogates, and U+FFFD, which is what invalid UTF-8 became on its way here.
 */
function notText(line: string): string | undefined {
  if (line.includes("\0")) return "a NUL byte cannot be part of a command; write the command as plain text";
  const control = (k: number) => (k < 32 && k !== 9 && k !== 10 && k !== 13) || k === 127;
  if (Array.prototype.some.call(line, (c: string) => control(c.charCodeAt(0))))
    return "control characters cannot be part of a command; write the command as plain text";
  if (line.search(LONE_SURROGATE) >= 0 || line.includes("\ufffd"))
    return "the command is not valid UTF-8 text; write it as plain text";
  return undefined;
}

export function splitCommandLine(line: string): Segment[] {
  const bad = notText(line);
  if (bad) {
    // shown back escaped, so the observation itself stays text
    const text = JSON.stringify(line.replace(LONE_SURROGATE, "\ufffd")).slice(1, -1).slice(0, 200);
    return [{ text, stages: [], refusal: bad }];
  }
  const b = new Builder(line);
  let mode: "plain" | "single" | "double" = "plain";
  for (let i = 0; i < line.length; i++) {
    const ch = line[i];
    if (mode === "single") {
      if (ch === "'") mode = "plain";
      else b.add(ch);
      continue;
    }
    if (mode === "double") {
      if (ch === '"') mode = "plain";
      else if (ch === "\\" && i + 1 < line.length && '"\\$`\n'.includes(line[i + 1])) {
        if (line[i + 1] !== "\n") b.add(line[i + 1]);
        i++;
      } else if (ch === "`") b.refuse(SUBSTITUTION);
      else if (ch === "$" && dollar(line, i)) b.refuse(SUBSTITUTION);
      else b.add(ch);
      continue;
    }
    if (ch === "\\") {
      if (i + 1 < line.length && line[i + 1] !== "\n") b.add(line[i + 1]);
      i++;
    } else if (ch === "'") {
      mode = "single";
      b.quoteOpened();
    } else if (ch === '"') {
      mode = "double";
      b.quoteOpened();
    } else if (ch === " " || ch === "\t" || ch === "\r") b.endWord();
    else if (ch === ";" || ch === "\n") b.endSegment(i);
    else if (ch === "|") {
      if (line[i + 1] === "|") {
        b.refuse("`||` is shell syntax; no shell runs here: separate commands with `;`");
        i++;
      } else {
        if (line[i + 1] === "&") {
          b.mergeStderr();
          i++;
        }
        b.endStage();
      }
    } else if (ch === "&")
      b.refuse("`&`/`&&` is shell syntax; no shell runs here: separate commands with `;`");
    else if (ch === ">" && b.atStderrDescriptor()) {
      const target = STDERR_TARGET.exec(line.slice(i + 1));
      if (target) {
        b.redirectStderr(target[1] === "&1" ? "merge" : "drop");
        i += target[0].length;
      } else b.refuse(REDIRECTION_REFUSAL);
    } else if (ch === ">" || ch === "<") b.refuse(REDIRECTION_REFUSAL);
    else if (ch === "`") b.refuse(SUBSTITUTION);
    else if (ch === "$" && dollar(line, i)) b.refuse(SUBSTITUTION);
    else if (ch === "(" || ch === ")")
      b.refuse("`(`/`)` is shell syntax (subshell); quote it if it is part of an argument");
    else b.add(ch);
  }
  if (mode !== "plain") b.refuse(`unterminated ${mode === "single" ? "single" : "double"} quote`);
  b.endSegment(line.length);
  return b.segments;
}

/** An argv shown back as a command line, quoted where a shell would need it. */
export function showArgv(argv: string[]): string {
  return argv
    .map((a) => (a !== "" && /^[\w@%+=:,./\-[\]{}*]+$/.test(a) ? a : `'${a.replaceAll("'", `'\\''`)}'`))
    .join(" ");
}
