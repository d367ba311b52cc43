// Shared by the userland tests: reading the kernel's files through `kubectl exec` as an engineer
// does (cat, ls, a shell loop), and parsing what Linux prints there. kubectl's output comes as
// execa gives it, without its final newline.
import { expect } from "vitest";
import type { Kn } from "./failures.js";

/** Run a command in a container; fails the test unless it exits 0. */
export async function sh(kn: Kn, pod: string, container: string, argv: string[]): Promise<string> {
  const r = await kn(["exec", pod, "-c", container, "--", ...argv]);
  expect(r.exitCode, `${argv.join(" ")}: ${r.stderr}`).toBe(0);
  return r.stdout;
}

export const cat = (kn: Kn, pod: string, container: string, ...files: string[]) =>
  sh(kn, pod, container, ["cat", ...files]);

/** "Key:\tvalue" lines (/proc/<pid>/status) as a map. */
export function statusOf(text: string): Map<string, string> {
  return new Map(
    text
      .trim()
      .split("\n")
      .map((l) => [l.slice(0, l.indexOf(":")), l.slice(l.indexOf(":") + 1).trim()] as [string, string]),
  );
}

/** "key value" lines (cpu.stat, memory.events) as numbers. */
export function flatKeyed(text: string): Record<string, number> {
  return Object.fromEntries(
    text
      .trim()
      .split("\n")
      .map((l) => l.split(" "))
      .map(([k, v]) => [k, Number(v)]),
  );
}

/**
 * cpu.stat read twice, `seconds` of cluster time apart, in one exec; each read with /proc/uptime
 * by the same cat (within a few cluster ms of each other at speed 60), so the rate is over the
 * time that really passed between them.
 */
export async function cpuStatOver(kn: Kn, pod: string, container: string, seconds: number, extra = "") {
  const read = "cat /proc/uptime /sys/fs/cgroup/cpu.stat";
  const out = await sh(kn, pod, container, ["sh", "-c", `${read}; sleep ${seconds}; ${read}${extra}`]);
  const [a, b] = out
    .split(/^(?=[\d.]+ [\d.]+$)/m)
    .map((x) => x.split("\n"))
    .map((l) => ({
      up: Number(l[0].split(" ")[0]),
      stat: flatKeyed(l.slice(1, 9).join("\n")),
      rest: l.slice(9),
    }));
  const ms = (b.up - a.up) * 1000;
  return { a: a.stat, b: b.stat, ms, milli: (b.stat.usage_usec - a.stat.usage_usec) / ms, tail: b.rest };
}

/** The numeric entries of `ls /proc` (one per line without a terminal). */
export const pidsIn = (ls: string) =>
  ls
    .split("\n")
    .filter((x) => /^\d+$/.test(x))
    .map(Number)
    .sort((a, b) => a - b);

/** eth0's counters from /proc/net/dev. */
export function eth0(netDev: string): {
  rxBytes: number;
  rxPackets: number;
  txBytes: number;
  txPackets: number;
} {
  const line = netDev.split("\n").find((l) => /^\s*eth0:/.test(l));
  if (!line) throw new Error(`no eth0 in:\n${netDev}`);
  const f = line.split(":")[1].trim().split(/\s+/).map(Number);
  return { rxBytes: f[0], rxPackets: f[1], txBytes: f[8], txPackets: f[9] };
}

/** Each process of /proc (by a shell loop in the container): pid -> status fields and cmdline words. */
export async function processes(
  kn: Kn,
  pod: string,
  container: string,
): Promise<Map<number, { status: Map<string, string>; cmdline: string[]; cgroup: string }>> {
  // the markers are put together at run time: the shell's own cmdline must not hold them
  const script =
    'm=@@; for d in /proc/[0-9]*; do echo "$m proc $d"; cat $d/status; echo "$m cmdline"; tr \'\\0\' \'\\n\' < $d/cmdline; echo "$m cgroup"; cat $d/cgroup; done';
  const out = await sh(kn, pod, container, ["sh", "-c", script]);
  const procs = new Map<number, { status: Map<string, string>; cmdline: string[]; cgroup: string }>();
  for (const block of out.split("@@ proc ").filter(Boolean)) {
    const pid = Number(block.slice(0, block.indexOf("\n")).replace("/proc/", ""));
    const [status, rest] = block.slice(block.indexOf("\n") + 1).split("@@ cmdline\n");
    const [cmdline, cgroup] = rest.split("@@ cgroup\n");
    procs.set(pid, {
      status: statusOf(status),
      cmdline: cmdline.split("\n").filter(Boolean),
      cgroup: cgroup.trim(),
    });
  }
  return procs;
}
