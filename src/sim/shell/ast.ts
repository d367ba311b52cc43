// The shell's syntax tree, shared by the lexer, the parser and the interpreter.

export type Part =
  | { t: "lit"; s: string; quoted: boolean }
  | { t: "var"; name: string; quoted: boolean; op?: string; arg?: Word }
  | { t: "sub"; script: Script; quoted: boolean }
  | { t: "arith"; expr: string; quoted: boolean };
export type Word = Part[];

export interface Redir {
  fd: number;
  /** `<<`: a here-document, whose text (expanded unless its delimiter was quoted) is `target`. */
  op: ">" | ">>" | "<" | ">&" | "<<";
  target: Word;
}

export type Command =
  | { t: "simple"; assigns: { name: string; value: Word }[]; words: Word[]; redirs: Redir[] }
  | { t: "group"; body: Script; subshell: boolean; redirs: Redir[] }
  | { t: "if"; branches: { cond: Script; body: Script }[]; otherwise?: Script; redirs: Redir[] }
  | { t: "for"; name: string; items?: Word[]; body: Script; redirs: Redir[] }
  | { t: "while"; until: boolean; cond: Script; body: Script; redirs: Redir[] };

export interface Pipeline {
  negate: boolean;
  cmds: Command[];
}
export interface AndOr {
  first: Pipeline;
  rest: { op: "&&" | "||"; p: Pipeline }[];
}
export type Script = AndOr[];

export class ParseError extends Error {
  /** The input ended inside a construct: more lines may complete it (interactive shells). */
  constructor(
    message: string,
    readonly incomplete = false,
  ) {
    super(message);
  }
}

export type Tok =
  | { t: "word"; w: Word; plain?: string }
  | { t: "op"; op: string }
  | { t: "nl" }
  | { t: "io"; fd: number; op: string; here?: Word };
