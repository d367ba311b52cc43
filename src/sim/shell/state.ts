// What the shell's parts (expansion, redirections, builtins) see of the interpreter running
// them: its process, variables, options and status. shell.ts implements it; the parts take this
// interface rather than the class, so they do not import the interpreter that imports them.
import type { Proc, Stdio } from "../userland/process.js";
import type { Script } from "./ast.js";

export interface ShellOptions {
  /** "sh" (dash's messages) or "bash". */
  flavor: "sh" | "bash";
  /** $0 and the positional parameters. */
  arg0: string;
  args: string[];
}

export interface ShellState {
  readonly p: Proc;
  readonly opts: ShellOptions;
  status: number;
  errexit: boolean;
  /** Status of the last command substitution (what `x=$(false)` returns). */
  lastSubStatus: number;
  /** The shell process's environment (every variable, all exported). */
  readonly vars: Map<string, string>;
  /** `sh: 1: message` (dash) or `bash: line 1: message`. */
  error(msg: string, io?: Stdio): void;
  /** A copy that runs in a child process (command substitution, `( ... )`). */
  subshell(): ShellState;
  runScript(s: Script, io: Stdio): Promise<number>;
}
