// ps, as BusyBox (PID USER TIME COMMAND, whatever the options) or procps-ng (`ps`, `ps aux`,
// `ps -ef`) prints it: the processes /proc lists (processes.ts): the container's PID 1, the
// stress-ng processes of a StressChaos and toda of an IOChaos on the container, and what exec
// started (the shell, ps itself). No pod shares its PID namespace here: a sidecar's processes
// are not listed (shareProcessNamespace is not modelled).
import { bytes } from "../../util/quantity.js";
import { R } from "../api/resources.js";
import type { Node } from "../core/objects.js";
import { uidOf } from "../userland/env.js";
import type { CommandRegistry, Proc } from "../userland/process.js";
import { gated, toolImpl } from "../userland/toolbox.js";
import { type ProcInfo, processTable } from "../workloads/topology/processes.js";

const pad2 = (n: number) => String(Math.floor(n)).padStart(2, "0");
export const mmss = (s: number) => `${Math.floor(s / 60)}:${pad2(s % 60)}`;
const hhmmss = (s: number) => `${pad2(s / 3600)}:${pad2((s / 60) % 60)}:${pad2(s % 60)}`;

export function hhmm(p: Proc, ms: number): string {
  const d = new Date(p.clock.toWall(ms));
  return `${pad2(d.getUTCHours())}:${pad2(d.getUTCMinutes())}`;
}

export const userOf = (p: Proc) => {
  const uid = uidOf(p.pod, p.container);
  return uid === 0 ? "root" : String(uid);
};

export function nodeMemory(p: Proc): number {
  const node = p.ctx.registry.tryGet(R("Node"), undefined, p.pod.spec?.nodeName ?? "") as Node | undefined;
  return bytes(node?.status?.capacity?.memory) || 128 * 1024 ** 3;
}

/** The container's processes, the caller and the shell running it among them. */
export function table(p: Proc): ProcInfo[] {
  return processTable(p.ctx, p.pod, p.container, p.restartCount);
}

function stat(x: ProcInfo): string {
  if (x.kind === "stress-worker") return "R";
  // a session leader (PID 1, what exec started directly) shows "s"
  return `${x.state}${x.ppid === 0 && x.kind !== "stress-master" ? "s" : ""}${x.threads ? "l" : ""}`;
}

function ps(args: string[], p: Proc): number {
  const procs = table(p);
  const user = userOf(p);
  const now = p.clock.now();
  if (toolImpl(p, "ps") === "busybox") {
    // BusyBox accepts BSD and System V options and prints its one format
    p.out("PID   USER     TIME  COMMAND\n");
    for (const x of procs)
      p.out(`${String(x.pid).padStart(5)} ${user.padEnd(8)} ${mmss(x.cpuSeconds).padStart(5)} ${x.args}\n`);
    return 0;
  }
  const flat = args.join(" ");
  const bsd = /(^|\s)-?[a-z]*u[a-z]*(\s|$)/.test(flat) && !flat.includes("-ef");
  const full = /-[a-zA-Z]*f/.test(flat);
  const mem = nodeMemory(p);
  if (bsd) {
    p.out("USER         PID %CPU %MEM    VSZ   RSS TTY      STAT START   TIME COMMAND\n");
    for (const x of procs) {
      const life = Math.max(1, (now - x.startedAt) / 1000);
      const cpu = Math.min(99.9, (x.cpuSeconds / life) * 100);
      const row = [
        user.padEnd(8),
        String(x.pid).padStart(7),
        cpu.toFixed(1).padStart(4),
        ((x.rssBytes / mem) * 100).toFixed(1).padStart(4),
        String(Math.round(x.vszBytes / 1024)).padStart(6),
        String(Math.round(x.rssBytes / 1024)).padStart(5),
        "?".padEnd(8),
        stat(x).padEnd(4),
        hhmm(p, x.startedAt).padStart(5),
        mmss(x.cpuSeconds).padStart(6),
        x.args,
      ];
      p.out(`${row.join(" ")}\n`);
    }
    return 0;
  }
  if (full) {
    p.out("UID          PID    PPID  C STIME TTY          TIME CMD\n");
    for (const x of procs) {
      const life = Math.max(1, (now - x.startedAt) / 1000);
      const c = Math.min(99, Math.floor((x.cpuSeconds / life) * 100));
      const row = [
        user.padEnd(8),
        String(x.pid).padStart(7),
        String(x.ppid).padStart(7),
        String(c).padStart(2),
        hhmm(p, x.startedAt),
        "?".padEnd(8),
        hhmmss(x.cpuSeconds).padStart(8),
        x.args,
      ];
      p.out(`${row.join(" ")}\n`);
    }
    return 0;
  }
  p.out("    PID TTY          TIME CMD\n");
  for (const x of procs) p.out(`${String(x.pid).padStart(7)} ?        ${hhmmss(x.cpuSeconds)} ${x.comm}\n`);
  return 0;
}

export function registerPs(r: CommandRegistry): void {
  r.register("ps", gated("ps", ps));
}
