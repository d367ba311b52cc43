// /proc/<pid>/status and /proc/<pid>/stat as Linux 6.1 prints them (fs/proc/array.c, the fields
// of Documentation/filesystems/proc.rst, tables 1-2 and 1-4). Memory comes from the process model
// (VmRSS is what the process holds: a stress-ng vm worker holding 1280 MiB shows 1310720 kB),
// the PID namespace is the container's, so NSpid has one entry. Capabilities are containerd's
// default set for a root process (CapEff a80425fb) and none for another user; Chaos Mesh's daemon
// runs privileged (all 41 capabilities).

import type { TaskView } from "./view.js";

/** containerd's default capabilities (OCI default spec): the ones Docker grants. */
const DEFAULT_CAPS = "00000000a80425fb";
/** Every capability of a 6.1 kernel (CAP_LAST_CAP 40). */
const ALL_CAPS = "000001ffffffffff";
const NO_CAPS = "0000000000000000";
/** Ticks per second (USER_HZ). */
const HZ = 100;

const kB = (bytes: number) => `${String(Math.round(bytes / 1024)).padStart(8)} kB`;

export interface Ids {
  uid: number;
  gid: number;
  groups: number[];
}

function cpuMask(cpus: number): { mask: string; list: string } {
  const words: string[] = [];
  for (let left = cpus; left > 0; left -= 32) {
    const n = Math.min(32, left);
    words.unshift((n === 32 ? 0xffffffff : 2 ** n - 1).toString(16).padStart(n === 32 ? 8 : 1, "0"));
  }
  // the kernel prints full 32-bit words after the first
  const mask = words.map((w, i) => (i === 0 ? w.replace(/^0+(?=.)/, "") : w.padStart(8, "0"))).join(",");
  return { mask, list: cpus > 1 ? `0-${cpus - 1}` : "0" };
}

export function renderStatus(t: TaskView, ids: Ids, own: boolean, cpus: number): string {
  const rss = Math.max(0, t.rssBytes);
  const vsz = Math.max(t.vszBytes, rss);
  const anon = Math.round(rss * 0.8);
  const caps = own ? (ids.uid === 0 ? DEFAULT_CAPS : NO_CAPS) : ALL_CAPS;
  const { mask, list } = cpuMask(cpus);
  const switches = Math.floor(t.cpuSeconds * 400) + 12;
  const rows: [string, string][] = [
    ["Name", t.comm],
    ["Umask", "0022"],
    ["State", t.state === "R" ? "R (running)" : "S (sleeping)"],
    ["Tgid", String(t.pid)],
    ["Ngid", "0"],
    ["Pid", String(t.pid)],
    ["PPid", String(t.ppid)],
    ["TracerPid", "0"],
    ["Uid", Array(4).fill(ids.uid).join("\t")],
    ["Gid", Array(4).fill(ids.gid).join("\t")],
    ["FDSize", "64"],
    ["Groups", ids.groups.map((g) => `${g} `).join("")],
    ["NStgid", String(t.pid)],
    ["NSpid", String(t.pid)],
    ["NSpgid", String(t.ppid === 0 ? t.pid : t.ppid)],
    ["NSsid", String(t.ppid === 0 ? t.pid : t.ppid)],
    ["VmPeak", kB(Math.round(vsz * 1.02))],
    ["VmSize", kB(vsz)],
    ["VmLck", kB(0)],
    ["VmPin", kB(0)],
    ["VmHWM", kB(rss)],
    ["VmRSS", kB(rss)],
    ["RssAnon", kB(anon)],
    ["RssFile", kB(rss - anon)],
    ["RssShmem", kB(0)],
    ["VmData", kB(Math.max(anon, Math.round(vsz * 0.4)))],
    ["VmStk", kB(132 * 1024)],
    ["VmExe", kB(2_600 * 1024)],
    ["VmLib", kB(Math.min(vsz, 6_800 * 1024))],
    ["VmPTE", kB(Math.max(48 * 1024, Math.round(rss / 500)))],
    ["VmSwap", kB(0)],
    ["HugetlbPages", kB(0)],
    ["CoreDumping", "0"],
    ["THP_enabled", "1"],
    ["Threads", String(t.threads)],
    ["SigQ", "0/514739"],
    ["SigPnd", "0000000000000000"],
    ["ShdPnd", "0000000000000000"],
    ["SigBlk", "0000000000000000"],
    ["SigIgn", "0000000000000000"],
    ["SigCgt", "0000000000000000"],
    ["CapInh", NO_CAPS],
    ["CapPrm", caps],
    ["CapEff", caps],
    ["CapBnd", own ? DEFAULT_CAPS : ALL_CAPS],
    ["CapAmb", NO_CAPS],
    ["NoNewPrivs", "0"],
    ["Seccomp", "0"],
    ["Seccomp_filters", "0"],
    ["Speculation_Store_Bypass", "thread vulnerable"],
    ["SpeculationIndirectBranch", "conditional enabled"],
    ["Cpus_allowed", mask],
    ["Cpus_allowed_list", list],
    ["Mems_allowed", `${"00000000,".repeat(31)}00000001`],
    ["Mems_allowed_list", "0"],
    ["voluntary_ctxt_switches", String(switches)],
    ["nonvoluntary_ctxt_switches", String(Math.floor(switches / 7))],
  ];
  return rows.map(([k, v]) => `${k}:\t${v}\n`).join("");
}

/** /proc/<pid>/stat: the 52 fields, times in ticks, starttime counted from boot. */
export function renderStat(t: TaskView, bootAt: number, cpus: number): string {
  const utime = Math.floor(t.cpuSeconds * HZ * 0.85);
  const stime = Math.floor(t.cpuSeconds * HZ) - utime;
  const start = Math.max(0, Math.floor(((t.startedAt - bootAt) / 1000) * HZ));
  const group = t.ppid === 0 ? t.pid : t.ppid;
  const fields = [
    t.pid,
    `(${t.comm})`,
    t.state,
    t.ppid,
    group,
    group,
    0,
    -1,
    4194560,
    Math.floor(t.rssBytes / 4096) + 120,
    0,
    3,
    0,
    utime,
    stime,
    0,
    0,
    20,
    0,
    t.threads,
    0,
    start,
    Math.max(t.vszBytes, t.rssBytes),
    Math.floor(t.rssBytes / 4096),
    "18446744073709551615",
    "94000000000000",
    "94000002600000",
    "140720000000000",
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    17,
    t.pid % cpus,
    0,
    0,
    0,
    0,
    0,
    "94000002700000",
    "94000002800000",
    "94000010000000",
    "140720000100000",
    "140720000100100",
    "140720000100100",
    "140720000200000",
    0,
  ];
  return `${fields.join(" ")}\n`;
}
