// top in batch mode (`top -b -n 1`), as BusyBox or procps-ng prints it. Without lxcfs a container
// sees the node's memory, CPUs and load; the process rows are the container's (processes.ts), so
// under a StressChaos the stress-ng workers share the CPU limit with the application. BusyBox's
// %CPU is a share of all the node's CPUs, procps' a share of one CPU (Irix mode).
import { milliCpu } from "../../util/quantity.js";
import { R } from "../api/resources.js";
import type { Node } from "../core/objects.js";
import { nodeUsage } from "../metrics/usage.js";
import type { CommandRegistry, Proc } from "../userland/process.js";
import { gated, toolImpl } from "../userland/toolbox.js";
import { parseArgs } from "./args.js";
import { nodeMemory, table, userOf } from "./ps.js";

const pad2 = (n: number) => String(Math.floor(n)).padStart(2, "0");

function uptime(s: number): string {
  const days = Math.floor(s / 86400);
  const h = Math.floor((s % 86400) / 3600);
  const m = Math.floor((s % 3600) / 60);
  const clock = h ? `${String(h).padStart(2)}:${pad2(m)}` : `${m} min`;
  return days ? `${days} day${days > 1 ? "s" : ""}, ${clock}` : clock;
}

/** Batch mode, -n iterations -d seconds apart (without a terminal top needs -b). */
async function top(args: string[], p: Proc): Promise<number> {
  const { flags, values } = parseArgs(args, ["n", "d", "p", "o", "w"]);
  if (!flags.has("b"))
    return p.fail(
      toolImpl(p, "top") === "busybox" ? "only batch mode (-b) works without a terminal" : "failed tty get",
      1,
    );
  const n = Math.max(1, Number(values.get("n") ?? 1) || 1);
  const delay = Number(values.get("d") ?? (toolImpl(p, "top") === "busybox" ? 5 : 3)) * 1000;
  for (let i = 0; i < n; i++) {
    if (i > 0 && !(await p.sleep(delay))) return 130;
    once(p);
  }
  return 0;
}

function once(p: Proc): void {
  const node = p.ctx.registry.tryGet(R("Node"), undefined, p.pod.spec?.nodeName ?? "") as Node | undefined;
  const now = p.clock.now();
  const cores = Math.max(1, Math.round(milliCpu(node?.status?.capacity?.cpu) / 1000) || 1);
  const used = node ? nodeUsage(p.ctx, node, now) : { cpuMilli: 100, memoryBytes: 1 << 30 };
  const memTotal = nodeMemory(p);
  const cached = Math.round(memTotal * 0.18);
  const free = Math.max(0, memTotal - used.memoryBytes - cached);
  const busy = Math.min(100, (used.cpuMilli / (cores * 1000)) * 100);
  const load = (used.cpuMilli / 1000).toFixed(2);
  const procs = table(p);
  const user = userOf(p);
  const kb = (b: number) => Math.round(b / 1024);
  if (toolImpl(p, "top") === "busybox") {
    p.out(
      `Mem: ${kb(memTotal - free)}K used, ${kb(free)}K free, ${kb(64 << 20)}K shrd, ${kb(memTotal * 0.01)}K buff, ${kb(cached)}K cached\n`,
    );
    const usr = Math.round(busy * 0.8);
    const sys = Math.round(busy * 0.2);
    p.out(
      `CPU:  ${String(usr).padStart(2)}% usr  ${String(sys).padStart(2)}% sys   0% nic  ${String(Math.max(0, 100 - usr - sys)).padStart(2)}% idle   0% io   0% irq   0% sirq\n`,
    );
    p.out(
      `Load average: ${load} ${load} ${load} ${procs.filter((x) => x.state === "R").length}/${400 + procs.length} ${procs[procs.length - 1].pid}\n`,
    );
    p.out("  PID  PPID USER     STAT   VSZ %VSZ CPU %CPU COMMAND\n");
    for (const x of procs) {
      const vsz = kb(x.vszBytes);
      const vszTxt = vsz >= 100000 ? `${Math.round(vsz / 1024)}m` : String(vsz);
      const cpuPct = Math.round((x.cpuMilli / (cores * 1000)) * 100);
      const row = `${String(x.pid).padStart(5)} ${String(x.ppid).padStart(5)} ${user.padEnd(8)} ${(x.state === "R" ? "R" : "S").padEnd(4)} ${vszTxt.padStart(5)} ${String(Math.round((x.vszBytes / memTotal) * 100)).padStart(3)}% ${String(x.pid % cores).padStart(3)} ${String(cpuPct).padStart(3)}% ${x.args}`;
      p.out(`${row}\n`);
    }
    return;
  }
  const wall = new Date(p.clock.toWall(now));
  const running = procs.filter((x) => x.state === "R").length;
  const mib = (b: number) => (b / 1048576).toFixed(1);
  p.out(
    `top - ${pad2(wall.getUTCHours())}:${pad2(wall.getUTCMinutes())}:${pad2(wall.getUTCSeconds())} up ${uptime(3 * 86400 + (now % 86400000) / 1000)},  0 users,  load average: ${load}, ${load}, ${load}\n`,
  );
  p.out(
    `Tasks: ${String(procs.length).padStart(3)} total, ${String(running).padStart(3)} running, ${String(procs.length - running).padStart(3)} sleeping,   0 stopped,   0 zombie\n`,
  );
  p.out(
    `%Cpu(s): ${(busy * 0.8).toFixed(1).padStart(4)} us, ${(busy * 0.2).toFixed(1).padStart(4)} sy,  0.0 ni, ${(100 - busy).toFixed(1).padStart(4)} id,  0.0 wa,  0.0 hi,  0.0 si,  0.0 st\n`,
  );
  p.out(
    `MiB Mem : ${mib(memTotal).padStart(8)} total, ${mib(free).padStart(8)} free, ${mib(used.memoryBytes).padStart(8)} used, ${mib(cached).padStart(8)} buff/cache\n`,
  );
  p.out(
    `MiB Swap:      0.0 total,      0.0 free,      0.0 used. ${mib(free + cached).padStart(8)} avail Mem \n\n`,
  );
  p.out("    PID USER      PR  NI    VIRT    RES    SHR S  %CPU  %MEM     TIME+ COMMAND\n");
  for (const x of procs) {
    const t = x.cpuSeconds;
    const time = `${Math.floor(t / 60)}:${pad2(t % 60)}.${pad2((t * 100) % 100)}`;
    const row = [
      String(x.pid).padStart(7),
      user.padEnd(8),
      "20".padStart(3),
      "0".padStart(3),
      String(kb(x.vszBytes)).padStart(7),
      String(kb(x.rssBytes)).padStart(6),
      String(Math.round(kb(x.rssBytes) * 0.08)).padStart(6),
      x.state,
      (x.cpuMilli / 10).toFixed(1).padStart(5),
      ((x.rssBytes / memTotal) * 100).toFixed(1).padStart(5),
      time.padStart(9),
      x.comm,
    ];
    p.out(`${row.join(" ")}\n`);
  }
}

export function registerTop(r: CommandRegistry): void {
  r.register("top", gated("top", top));
}
