// sh and bash: `-c script [arg0 args...]`, a script file, or commands read from stdin, either as
// lines arrive (piped input) or interactively with a prompt and line editing (kubectl exec -it).

import { ParseError, parse } from "../shell/parse.js";
import { ExitSignal, LoopSignal, Shell } from "../shell/shell.js";
import { FsError } from "../userland/fs.js";
import type { CommandRegistry, Proc } from "../userland/process.js";
import { readLines } from "../userland/stream.js";

/** Run lines as they arrive (`kubectl exec -i pod -- sh < script`, or a session without a tty). */
async function runLines(sh: Shell): Promise<number> {
  let pending = "";
  for await (const line of readLines(sh.p.stdin)) {
    pending += `${line}\n`;
    try {
      parse(pending);
    } catch (e) {
      if (e instanceof ParseError && e.incomplete) continue;
    }
    const src = pending;
    pending = "";
    try {
      await sh.list(sh.parseOrReport(src), sh.p);
    } catch (e) {
      if (e instanceof ExitSignal) return e.code;
      if (!(e instanceof LoopSignal)) throw e;
    }
  }
  if (pending.trim()) return sh.source(pending);
  return sh.status;
}

async function interactive(sh: Shell): Promise<number> {
  const p = sh.p;
  const prompt = () => p.out(p.env.get("PS1") ?? (sh.vars.get("HOME") === "/root" ? "# " : "$ "));
  prompt();
  let line = "";
  let inEscape = 0;
  for (let c = await p.stdin.read(); c !== null; c = await p.stdin.read()) {
    for (const ch of c.toString("utf8")) {
      // Skip terminal escape sequences (arrow keys): ESC [ X.
      if (inEscape > 0) {
        inEscape = inEscape === 1 && ch === "[" ? 2 : 0;
        continue;
      }
      if (ch === "\x1b") inEscape = 1;
      else if (ch === "\r" || ch === "\n") {
        p.out("\n");
        const src = line;
        line = "";
        try {
          await sh.list(sh.parseOrReport(src), p);
        } catch (e) {
          if (e instanceof ExitSignal) return e.code;
          if (!(e instanceof LoopSignal)) throw e;
        }
        prompt();
      } else if (ch === "\x7f" || ch === "\b") {
        if (line) {
          line = line.slice(0, -1);
          p.out("\b \b");
        }
      } else if (ch === "\x03") {
        line = "";
        p.out("^C\n");
        prompt();
      } else if (ch === "\x04") {
        if (!line) {
          p.out("exit\n");
          return sh.status;
        }
      } else if (ch >= " " || ch === "\t") {
        line += ch;
        p.out(ch); // the terminal echoes what is typed
      }
    }
  }
  return sh.status;
}

function shell(flavor: "sh" | "bash") {
  return async (args: string[], p: Proc): Promise<number> => {
    let command: string | undefined;
    let errexit = false;
    let i = 0;
    for (; i < args.length; i++) {
      const a = args[i];
      if (a === "--") {
        i++;
        break;
      }
      if (!/^[-+][a-zA-Z]+$/.test(a)) break;
      for (const f of a.slice(1)) {
        if (f === "c") command = "";
        else if (f === "e") errexit = a[0] === "-";
        else if (f === "o") i++; // -o pipefail and friends: accepted, not modelled
      }
    }
    const rest = args.slice(i);
    const name = p.name || flavor;
    if (command !== undefined) {
      if (!rest.length) return p.fail("-c: option requires an argument", 2);
      const [script, arg0, ...positional] = rest;
      const sh = new Shell(p, { flavor, arg0: arg0 ?? name, args: positional });
      sh.errexit = errexit;
      return sh.source(script);
    }
    if (rest.length) {
      const [file, ...positional] = rest;
      let text: string;
      try {
        text = p.fs.read(p.path(file)).toString("utf8");
      } catch (e) {
        const msg =
          e instanceof FsError && e.code === "ENOENT" ? "No such file or directory" : (e as Error).message;
        p.stderr.write(
          flavor === "bash"
            ? `${name}: ${file}: ${msg}\n`
            : `${name}: 0: cannot open ${file}: ${msg === "No such file or directory" ? "No such file" : msg}\n`,
        );
        return 127;
      }
      const sh = new Shell(p, { flavor, arg0: file, args: positional });
      sh.errexit = errexit;
      return sh.source(text.replace(/^#!.*\n/, ""));
    }
    const sh = new Shell(p, { flavor, arg0: name, args: [] });
    sh.errexit = errexit;
    return p.tty ? interactive(sh) : runLines(sh);
  };
}

export function registerShells(r: CommandRegistry): void {
  r.register(["sh", "dash", "ash"], shell("sh")).register("bash", shell("bash"));
}
