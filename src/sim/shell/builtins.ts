// Builtins: what must run inside the shell process because it changes the shell itself
// (cd, exit, export, set -e, loop control, read into a variable).
import type { Stdio } from "../userland/process.js";
import { ExitSignal, LoopSignal } from "./signals.js";
import type { ShellState } from "./state.js";

export type Builtin = (sh: ShellState, args: string[], io: Stdio) => number | Promise<number>;

async function readLine(io: Stdio): Promise<string | null> {
  // Reads byte chunks until a newline; what follows the newline is lost (no shared buffer).
  let acc = "";
  for (;;) {
    const c = await io.stdin.read();
    if (c === null) return acc ? acc : null;
    acc += c.toString("utf8");
    const i = acc.indexOf("\n");
    if (i >= 0) return acc.slice(0, i);
  }
}

export const BUILTINS: Record<string, Builtin> = {
  ":": () => 0,
  cd(sh, args, io) {
    const to =
      args[0] === undefined
        ? (sh.vars.get("HOME") ?? "/")
        : args[0] === "-"
          ? (sh.vars.get("OLDPWD") ?? sh.p.cwd)
          : args[0];
    const path = sh.p.path(to);
    const st = sh.p.fs.stat(path);
    if (!st?.dir) {
      sh.error(`cd: can't cd to ${to}`, io);
      return 2;
    }
    sh.vars.set("OLDPWD", sh.p.cwd);
    sh.p.cwd = path;
    sh.vars.set("PWD", path);
    return 0;
  },
  exit(sh, args) {
    throw new ExitSignal(args[0] === undefined ? sh.status : Number(args[0]) & 255);
  },
  export(sh, args) {
    for (const a of args) {
      const i = a.indexOf("=");
      if (i > 0) sh.vars.set(a.slice(0, i), a.slice(i + 1));
    }
    return 0;
  },
  unset(sh, args) {
    for (const a of args) if (!a.startsWith("-")) sh.vars.delete(a);
    return 0;
  },
  set(sh, args, io) {
    if (!args.length) {
      for (const [k, v] of [...sh.vars].sort()) io.stdout.write(`${k}='${v}'\n`);
      return 0;
    }
    for (const a of args) {
      if (/^-\w*e/.test(a)) sh.errexit = true;
      if (/^\+\w*e/.test(a)) sh.errexit = false;
    }
    return 0;
  },
  shift(sh, args) {
    sh.opts.args.splice(0, Number(args[0] ?? 1));
    return 0;
  },
  break(_sh, args) {
    throw new LoopSignal("break", Number(args[0] ?? 1));
  },
  continue(_sh, args) {
    throw new LoopSignal("continue", Number(args[0] ?? 1));
  },
  async read(sh, args, io) {
    const names = args.filter((a) => !a.startsWith("-"));
    const line = await readLine(io);
    if (line === null) return 1;
    const words = line.trim().split(/[ \t]+/);
    const vars = names.length ? names : ["REPLY"];
    for (const [i, n] of vars.entries())
      sh.vars.set(n, i === vars.length - 1 ? words.slice(i).join(" ") : (words[i] ?? ""));
    return 0;
  },
  async exec(sh, args, io) {
    if (!args.length) return 0;
    const st = await sh.p.spawn(args, { env: sh.vars, cwd: sh.p.cwd, ...io });
    if (st === undefined) {
      sh.error(`exec: ${args[0]}: not found`, io);
      throw new ExitSignal(127);
    }
    throw new ExitSignal(st);
  },
  command(sh, args, io) {
    if (args[0] === "-v" || args[0] === "-V") {
      let ok = true;
      for (const n of args.slice(1)) {
        if (BUILTINS[n]) io.stdout.write(`${n}\n`);
        else if (sh.p.resolve(n)) io.stdout.write(`${n.includes("/") ? n : `/usr/bin/${n}`}\n`);
        else ok = false;
      }
      return ok ? 0 : 1;
    }
    return sh.p.spawn(args, { env: sh.vars, cwd: sh.p.cwd, ...io }).then((st) => {
      if (st !== undefined) return st;
      sh.error(`${args[0]}: not found`, io);
      return 127;
    });
  },
  pwd(sh, _args, io) {
    io.stdout.write(`${sh.p.cwd}\n`);
    return 0;
  },
};
