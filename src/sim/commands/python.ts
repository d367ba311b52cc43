// python and python3, in the images that have the interpreter (python:*, the Online-Boutique and
// locust images: toolboxes.yaml runtimeBinaries), as CPython 3.9's launcher behaves
// (Modules/main.c, pymain_run_python):
//   - a script path it cannot open: `python3: can't open file '/app/server.py': [Errno 2] No such
//     file or directory` on stderr, exit 2 (the path made absolute, as 3.9 does); a directory
//     without __main__.py: `can't find '__main__' module in '/app'`, exit 1;
//   - no script, -c or -m: the REPL reads its standard input; without a TTY and at end of input
//     (a container's stdin is closed unless `stdin: true`) it exits 0 at once, printing nothing;
//   - a script (-c CODE, a file, -m module) that runs a server loop (http.server's serve_forever,
//     Flask's app.run, grpc's wait_for_termination, `while True:`) becomes the container's
//     application: it serves what its script says (workloads/launch.ts, script-routes.ts) until
//     it is stopped. Python itself is not interpreted: a script without a server loop ends, exit 0.

import { FsError } from "../userland/fs.js";
import type { CommandRegistry, Proc } from "../userland/process.js";
import { readAll } from "../userland/stream.js";
import { gated } from "../userland/toolbox.js";
import { inMainProcess, launchServer } from "../workloads/launch.js";

/** Options that take a value (-W default, -X dev, -Q new). */
const WITH_VALUE = new Set(["W", "X", "Q"]);
/** A script that keeps running as a server. */
const SERVES =
  /serve_forever\s*\(|\.run\s*\(|wait_for_termination\s*\(|^\s*while\s+(True|1)\s*:|run_forever\s*\(|\.listen\s*\(/m;

/** Modules whose command line runs a server (python -m http.server 8000, -m flask run, ...). */
const SERVING_MODULES = /^(http\.server|flask|uvicorn|gunicorn|locust|grpc_health\.v1)$/;

type Program =
  | { kind: "repl" }
  | { kind: "code"; source: string }
  | { kind: "file"; path: string }
  | { kind: "module"; name: string };

/** What the command line asks the interpreter to run, or the usage error's text. */
function programOf(args: string[]): Program | { kind: "usage"; message: string } {
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === "-" || !a.startsWith("-")) return a === "-" ? { kind: "repl" } : { kind: "file", path: a };
    if (a === "--") return i + 1 < args.length ? { kind: "file", path: args[i + 1] } : { kind: "repl" };
    if (a.startsWith("--")) continue;
    for (let j = 1; j < a.length; j++) {
      const o = a[j];
      const rest = a.slice(j + 1) || args[i + 1];
      if (o === "c" || o === "m" || WITH_VALUE.has(o)) {
        if (rest === undefined) return { kind: "usage", message: `Argument expected for the -${o} option` };
        if (!a.slice(j + 1)) i++;
        if (o === "c") return { kind: "code", source: rest };
        if (o === "m") return { kind: "module", name: rest };
        break;
      }
    }
  }
  return { kind: "repl" };
}

/** Run until the process is stopped (a server's loop); the code a stopped server reports. */
function serveUntilStopped(p: Proc, source: string): Promise<number> {
  // the container's command starts the application; a server started by `kubectl exec` is not it
  if (inMainProcess()) launchServer(p.ctx, p.pod, p.container.name, p.restartCount, source);
  return new Promise((resolve) => {
    if (p.signal.aborted) resolve(0);
    else p.signal.addEventListener("abort", () => resolve(0), { once: true });
  });
}

async function python(args: string[], p: Proc): Promise<number> {
  const prog = programOf(args);
  const name = p.name || "python3";
  switch (prog.kind) {
    case "usage":
      p.stderr.write(
        `${prog.message}\nusage: ${name} [option] ... [-c cmd | -m mod | file | -] [arg] ...\nTry \`python -h' for more information.\n`,
      );
      return 2;
    case "repl":
      // without a TTY the REPL reads its input as a script: at end of input it is done
      if (p.tty) return serveUntilStopped(p, "");
      await readAll(p.stdin);
      return 0;
    case "module":
      return SERVING_MODULES.test(prog.name) ? serveUntilStopped(p, `-m ${prog.name}`) : 0;
    case "code":
      return SERVES.test(prog.source) ? serveUntilStopped(p, prog.source) : 0;
    case "file": {
      const path = p.path(prog.path);
      const st = p.fs.stat(path);
      if (!st) {
        p.stderr.write(`${name}: can't open file '${path}': [Errno 2] No such file or directory\n`);
        return 2;
      }
      if (st.dir) {
        if (p.fs.stat(`${path}/__main__.py`)) return serveUntilStopped(p, "");
        p.stderr.write(`${name}: can't find '__main__' module in '${path}'\n`);
        return 1;
      }
      let source: string;
      try {
        source = p.fs.read(path).toString("utf8");
      } catch (e) {
        if (!(e instanceof FsError)) throw e;
        p.stderr.write(`${name}: can't open file '${path}': [Errno 13] Permission denied\n`);
        return 2;
      }
      return SERVES.test(source) ? serveUntilStopped(p, source) : 0;
    }
  }
}

export function registerPython(r: CommandRegistry): void {
  for (const n of ["python", "python3", "python3.9"]) r.register(n, gated(n, python));
}
