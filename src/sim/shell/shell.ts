// The shell's interpreter: runs a parsed script in a container process. Variables live in the
// shell process's own environment (all exported, which a one-shot `sh -c` cannot tell apart),
// commands run through the registry, pipelines run their commands concurrently over Pipes.
import type { Proc, Stdio } from "../userland/process.js";
import { Pipe } from "../userland/stream.js";
import { BUILTINS } from "./builtins.js";
import { expandString, expandWord } from "./expand.js";
import { type Command, ParseError, type Pipeline, parse, type Script, type Word } from "./parse.js";
import { redirect } from "./redirect.js";
import { ExitSignal, LoopSignal } from "./signals.js";
import type { ShellOptions, ShellState } from "./state.js";

export { ExitSignal, LoopSignal };

export class Shell implements ShellState {
  status = 0;
  errexit = false;
  /** Status of the last command substitution (what `x=$(false)` returns). */
  lastSubStatus = 0;
  private condDepth = 0;

  constructor(
    readonly p: Proc,
    readonly opts: ShellOptions,
  ) {}

  /** Record a status and return it. */
  private done(code: number): number {
    this.status = code;
    return code;
  }

  get vars(): Map<string, string> {
    return this.p.env;
  }

  /** `sh: 1: message` (dash) or `bash: line 1: message`. */
  error(msg: string, io: Stdio = this.p): void {
    io.stderr.write(
      this.opts.flavor === "bash" ? `${this.opts.arg0}: line 1: ${msg}\n` : `${this.opts.arg0}: 1: ${msg}\n`,
    );
  }

  /** A parsed script, or an empty one after printing the syntax error (status 2). */
  parseOrReport(src: string): Script {
    try {
      return parse(src);
    } catch (e) {
      if (!(e instanceof ParseError)) throw e;
      this.error(e.message);
      this.status = 2;
      return [];
    }
  }

  /** Parse and run source text; the shell's exit status. */
  async source(src: string, io: Stdio = this.p): Promise<number> {
    let script: Script;
    try {
      script = parse(src);
    } catch (e) {
      if (!(e instanceof ParseError)) throw e;
      this.error(e.message, io);
      return this.done(2);
    }
    try {
      return await this.list(script, io);
    } catch (e) {
      if (e instanceof ExitSignal) return this.done(e.code);
      if (e instanceof LoopSignal) return this.status;
      throw e;
    }
  }

  async list(s: Script, io: Stdio): Promise<number> {
    for (const ao of s) {
      if (this.p.signal.aborted) throw new ExitSignal(130);
      let st = await this.guarded(ao.rest.length > 0, () => this.pipeline(ao.first, io));
      for (const [i, r] of ao.rest.entries()) {
        if ((r.op === "&&") !== (st === 0)) continue;
        st = await this.guarded(i < ao.rest.length - 1, () => this.pipeline(r.p, io));
      }
      this.status = st;
      if (this.errexit && st !== 0 && this.condDepth === 0 && ao.rest.length === 0) throw new ExitSignal(st);
    }
    return this.status;
  }

  /** Run with errexit suspended when the status is tested (conditions, left of && and ||). */
  private async guarded(tested: boolean, fn: () => Promise<number>): Promise<number> {
    if (tested) this.condDepth++;
    try {
      return await fn();
    } finally {
      if (tested) this.condDepth--;
    }
  }

  private async pipeline(pl: Pipeline, io: Stdio): Promise<number> {
    let st: number;
    if (pl.cmds.length === 1) st = await this.command(pl.cmds[0], io);
    else {
      const pipes = pl.cmds.slice(1).map(() => new Pipe());
      const runs = pl.cmds.map(async (c, i) => {
        const stdin = i === 0 ? io.stdin : pipes[i - 1];
        const stdout = i === pl.cmds.length - 1 ? io.stdout : pipes[i];
        try {
          return await this.command(c, { stdin, stdout, stderr: io.stderr });
        } catch (e) {
          if (e instanceof ExitSignal) return e.code; // `exit` in a pipeline ends only its part
          throw e;
        } finally {
          if (i < pipes.length) pipes[i].end();
          if (i > 0) pipes[i - 1].close();
        }
      });
      st = (await Promise.all(runs))[runs.length - 1];
    }
    return this.done(pl.negate ? (st === 0 ? 1 : 0) : st);
  }

  private async command(c: Command, outer: Stdio): Promise<number> {
    if (this.p.signal.aborted) throw new ExitSignal(130);
    const io = await redirect(this, c.redirs, outer);
    // dash fails a redirection with 2, bash with 1
    if (!io) return this.done(this.opts.flavor === "bash" ? 1 : 2);
    switch (c.t) {
      case "simple":
        return this.simple(c, io);
      case "group": {
        if (!c.subshell) return this.list(c.body, io);
        const sub = this.subshell();
        const st = await sub.runScript(c.body, io);
        this.p.join(sub.p);
        return this.done(st);
      }
      case "if": {
        for (const b of c.branches) {
          const ok = await this.guarded(true, () => this.list(b.cond, io));
          if (ok === 0) return this.list(b.body, io);
        }
        this.status = 0;
        return c.otherwise ? this.list(c.otherwise, io) : 0;
      }
      case "for": {
        const items = c.items ? await this.expandAll(c.items, io) : this.opts.args;
        let st = 0;
        for (const it of items) {
          this.vars.set(c.name, it);
          const r = await this.loopBody(c.body, io);
          st = this.status;
          if (r === "break") break;
        }
        return this.done(st);
      }
      case "while": {
        let st = 0;
        for (;;) {
          const ok = (await this.guarded(true, () => this.list(c.cond, io))) === 0;
          if (ok === c.until) break;
          const r = await this.loopBody(c.body, io);
          st = this.status;
          if (r === "break") break;
          // Let the event loop breathe, so a client that leaves can stop `while true`.
          await new Promise((r) => setImmediate(r));
          if (this.p.signal.aborted) throw new ExitSignal(130);
        }
        return this.done(st);
      }
    }
  }

  /** Expand words left to right (command substitutions run in order). */
  private async expandAll(words: Word[], io: Stdio): Promise<string[]> {
    const out: string[] = [];
    for (const w of words) out.push(...(await expandWord(this, w, io)));
    return out;
  }

  /** A subshell: a copy of this shell's variables in a child process. */
  subshell(): Shell {
    const sub = new Shell(this.p.child(), { ...this.opts, args: [...this.opts.args] });
    sub.errexit = this.errexit;
    return sub;
  }

  /** Run a subshell's script, catching its exit. */
  async runScript(s: Script, io: Stdio): Promise<number> {
    try {
      return await this.list(s, io);
    } catch (e) {
      if (e instanceof ExitSignal) return this.done(e.code);
      throw e;
    }
  }

  private async loopBody(body: Script, io: Stdio): Promise<"break" | "continue" | undefined> {
    try {
      await this.list(body, io);
      return undefined;
    } catch (e) {
      if (!(e instanceof LoopSignal)) throw e;
      if (--e.levels > 0) throw e;
      return e.kind;
    }
  }

  private async simple(c: Extract<Command, { t: "simple" }>, io: Stdio): Promise<number> {
    this.lastSubStatus = 0;
    const argv = await this.expandAll(c.words, io);
    const assigns: [string, string][] = [];
    for (const a of c.assigns) assigns.push([a.name, await expandString(this, a.value, io)]);
    if (!argv.length) {
      for (const [k, v] of assigns) this.vars.set(k, v);
      return this.done(this.lastSubStatus);
    }
    const builtin = BUILTINS[argv[0]];
    if (builtin) return this.done(await builtin(this, argv.slice(1), io));
    const env = new Map(this.vars);
    for (const [k, v] of assigns) env.set(k, v);
    const st = await this.p.spawn(argv, { env, cwd: this.p.cwd, ...io });
    if (st !== undefined) return this.done(st);
    this.error(this.opts.flavor === "bash" ? `${argv[0]}: command not found` : `${argv[0]}: not found`, io);
    return this.done(127);
  }
}
