// kill and pkill inside a container. PID 1 is the namespace's init: the kernel delivers to it only
// the signals it has a handler for, even SIGKILL from inside (so `kill -9 1` does nothing, while
// a JVM exits 143 on TERM): toolboxes.yaml says which runtime handles what. When PID 1 exits the
// container ends like after any exit (the Behavior reports the code, the kubelet is told now and
// restarts it per restartPolicy). stress-ng processes die on any terminating signal (killing the
// master takes its workers); Chaos Mesh does not restart them, and the experiment stays injected
// until it is recovered.

import { KUBELET } from "../context/runtime.js";
import { keyOf } from "../core/meta.js";
import type { CommandRegistry, Proc } from "../userland/process.js";
import { gated, pid1Exit, toolImpl } from "../userland/toolbox.js";
import { exitMain, killStress, type ProcInfo } from "../workloads/topology/processes.js";
import { table } from "./ps.js";

const SIGNALS = [
  "HUP",
  "INT",
  "QUIT",
  "ILL",
  "TRAP",
  "ABRT",
  "BUS",
  "FPE",
  "KILL",
  "USR1",
  "SEGV",
  "USR2",
  "PIPE",
  "ALRM",
  "TERM",
  "STKFLT",
  "CHLD",
  "CONT",
  "STOP",
  "TSTP",
  "TTIN",
  "TTOU",
  "URG",
  "XCPU",
  "XFSZ",
  "VTALRM",
  "PROF",
  "WINCH",
  "POLL",
  "PWR",
  "SYS",
];
/** Signals that do not end a process that has no handler for them. */
const HARMLESS = new Set(["CHLD", "CONT", "URG", "WINCH", "STOP", "TSTP", "TTIN", "TTOU"]);

/** A signal by number or name (KILL, SIGKILL, 9); undefined if unknown. */
export function signalName(s: string): string | undefined {
  if (/^\d+$/.test(s)) return Number(s) === 0 ? "0" : SIGNALS[Number(s) - 1];
  const n = s.toUpperCase().replace(/^SIG/, "");
  return SIGNALS.includes(n) ? n : undefined;
}

/** Deliver a signal to one of the container's processes. */
export function deliver(p: Proc, x: ProcInfo, sig: string, all: ProcInfo[]): void {
  if (sig === "0" || HARMLESS.has(sig)) return;
  if (x.kind === "main") {
    const code = pid1Exit(p.container, sig);
    if (code === undefined) return;
    exitMain(p.ctx, p.pod, p.container.name, p.restartCount, code);
    p.ctx.runtime.enqueue(KUBELET, keyOf(p.pod));
  } else if (x.kind === "stress-master") {
    for (const w of all.filter((y) => y.source === x.source && y.kind !== "main"))
      killStress(p.ctx, p.pod, p.container.name, w);
  } else if (x.kind === "stress-worker") killStress(p.ctx, p.pod, p.container.name, x);
}

function noSuch(p: Proc, impl: string, pid: string): void {
  if (impl === "busybox") p.stderr.write(`kill: can't kill pid ${pid}: No such process\n`);
  else if (impl === "builtin") p.stderr.write("sh: 1: kill: No such process\n");
  else p.stderr.write(`kill: (${pid}): No such process\n`);
}

function kill(args: string[], p: Proc): number {
  const impl = toolImpl(p, "kill") ?? "procps";
  let sig = "TERM";
  const pids: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === "-l" || a === "-L") {
      p.out(`${SIGNALS.join(" ")}\n`);
      return 0;
    }
    if (a === "-s" || a === "-n") {
      const s = signalName(args[++i] ?? "");
      if (!s) return p.fail(`invalid signal: ${args[i]}`);
      sig = s;
    } else if (a === "--") pids.push(...args.slice(i + 1));
    else if (/^-[A-Za-z0-9]+$/.test(a) && pids.length === 0) {
      const s = signalName(a.slice(1));
      if (!s)
        return p.fail(
          impl === "busybox" ? `bad signal name '${a.slice(1)}'` : `unknown signal: ${a.slice(1)}`,
        );
      sig = s;
    } else pids.push(a);
  }
  if (!pids.length)
    return p.fail(
      impl === "busybox" ? "you need to specify whom to kill" : "not enough arguments",
      impl === "busybox" ? 1 : 2,
    );
  const all = table(p);
  let code = 0;
  for (const pid of pids) {
    const x = all.find((y) => String(y.pid) === pid);
    if (!x) {
      noSuch(p, impl, pid);
      code = 1;
    } else deliver(p, x, sig, all);
  }
  return code;
}

function pkill(args: string[], p: Proc): number {
  let sig = "TERM";
  let full = false;
  let pattern: string | undefined;
  for (const a of args) {
    if (a === "-f") full = true;
    else if (/^-[A-Za-z0-9]+$/.test(a) && !pattern) {
      const s = signalName(a.slice(1));
      if (!s) return p.fail(`invalid signal: ${a}`, 2);
      sig = s;
    } else pattern = a;
  }
  if (pattern === undefined) return p.fail("no matching criteria specified", 2);
  let re: RegExp;
  try {
    re = new RegExp(pattern);
  } catch {
    return p.fail(`invalid regular expression: ${pattern}`, 2);
  }
  const all = table(p);
  const hits = all.filter((x) => x.pid !== p.pid && re.test(full ? x.args : x.comm));
  for (const x of hits) deliver(p, x, sig, all);
  return hits.length ? 0 : 1;
}

export function registerKill(r: CommandRegistry): void {
  r.register("kill", gated("kill", kill)).register("pkill", gated("pkill", pkill));
}
