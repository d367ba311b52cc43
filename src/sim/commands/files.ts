// Commands over the container's files: cat, ls, mkdir, touch, rm (GNU coreutils' messages).

import { type FileInfo, FsError } from "../userland/fs.js";
import type { CommandRegistry, Proc } from "../userland/process.js";
import { readAll } from "../userland/stream.js";
import { imageTools } from "../userland/toolbox.js";
import { parseArgs } from "./args.js";
import { formatDate } from "./basic.js";

const why = (e: unknown) => (e instanceof FsError ? e.message : (e as Error).message);

async function cat(args: string[], p: Proc): Promise<number> {
  const { rest } = parseArgs(args);
  let code = 0;
  for (const f of rest.length ? rest : ["-"]) {
    if (f === "-") {
      p.stdout.write(await readAll(p.stdin));
      continue;
    }
    try {
      p.stdout.write(p.fs.read(p.path(f)));
    } catch (e) {
      // BusyBox's cat (bb_perror_msg "can't open '%s'") and coreutils' differ
      const bb = imageTools(String(p.container?.image ?? "")).tools.ps === "busybox";
      code = p.fail(bb ? `can't open '${f}': ${why(e)}` : `${f}: ${why(e)}`);
    }
  }
  return code;
}

function mode(f: FileInfo): string {
  if (f.link !== undefined) return "lrwxrwxrwx";
  if (f.mode === undefined) {
    if (f.dir) return f.readOnly ? "dr-xr-xr-x" : "drwxr-xr-x";
    return f.readOnly ? "-r--r--r--" : "-rw-r--r--";
  }
  const m = f.mode;
  const rwx = (bits: number, special: boolean, s: string) =>
    `${bits & 4 ? "r" : "-"}${bits & 2 ? "w" : "-"}${special ? (bits & 1 ? s : s.toUpperCase()) : bits & 1 ? "x" : "-"}`;
  return `${f.dir ? "d" : "-"}${rwx(m >> 6, !!(m & 0o4000), "s")}${rwx(m >> 3, !!(m & 0o2000), "s")}${rwx(m, !!(m & 0o1000), "t")}`;
}

/** ls -l's date: the time within six months of now, else the year (coreutils ls.c, BusyBox). */
function lsDate(mtime: number, now: number): string {
  const recent = now - mtime < (365.2425 * 24 * 3600 * 1000) / 2 && mtime <= now + 1000;
  return formatDate(mtime, recent ? "%b %e %H:%M" : "%b %e  %Y");
}

/** Sizes as `ls -h` and `df -h` print them (1024-based, rounded up, one decimal below 10). */
export function human(n: number): string {
  if (n < 1024) return String(n);
  const units = ["K", "M", "G", "T"];
  let v = n;
  let i = -1;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${v < 10 ? Math.ceil(v * 10) / 10 : Math.ceil(v)}${units[i]}`;
}

interface Widths {
  size: number;
  nlink: number;
  user: number;
  group: number;
}

const ownerOf = (f: FileInfo) => (f.owner ?? "root:root").split(":");
const nlinkOf = (f: FileInfo) => f.nlink ?? (f.dir ? 2 : 1);

function widths(entries: FileInfo[], h: boolean): Widths {
  const max = (xs: string[]) => Math.max(1, ...xs.map((x) => x.length));
  return {
    size: max(entries.map((e) => (h ? human(e.size) : String(e.size)))),
    nlink: max(entries.map((e) => String(nlinkOf(e)))),
    user: max(entries.map((e) => ownerOf(e)[0])),
    group: max(entries.map((e) => ownerOf(e)[1] ?? ownerOf(e)[0])),
  };
}

/** A file's times are the cluster's instants; `shown` gives what ls prints of them. */
function longLine(f: FileInfo, h: boolean, w: Widths, now: number, shown: (ms: number) => number): string {
  const size = h ? human(f.size) : String(f.size);
  const [user, group = user] = ownerOf(f);
  const target = f.link !== undefined ? ` -> ${f.link}` : "";
  return `${mode(f)} ${String(nlinkOf(f)).padStart(w.nlink)} ${user.padEnd(w.user)} ${group.padEnd(w.group)} ${size.padStart(w.size)} ${lsDate(shown(f.mtime), shown(now))} ${f.name}${target}`;
}

function ls(args: string[], p: Proc): number {
  const { flags, rest } = parseArgs(args);
  const long = flags.has("l");
  const all = flags.has("a");
  const almost = flags.has("A");
  const h = flags.has("h");
  const targets = rest.length ? rest : ["."];
  let code = 0;
  const lines = (entries: FileInfo[]) => {
    const w = widths(entries, h);
    const now = p.ctx.clock.now();
    return entries.map((e) => (long ? longLine(e, h, w, now, (ms) => p.ctx.clock.toWall(ms)) : e.name));
  };
  const files: FileInfo[] = [];
  const dirs: { arg: string; entries: FileInfo[] }[] = [];
  for (const t of targets) {
    const path = p.path(t);
    // with -l (or -d) a symlink named on the command line is shown, not followed
    const st = (long || flags.has("d")) && !t.endsWith("/") ? p.fs.lstat(path) : p.fs.stat(path);
    if (!st) {
      p.stderr.write(`ls: cannot access '${t}': No such file or directory\n`);
      code = 2;
    } else if (!st.dir || flags.has("d") || st.link !== undefined) files.push({ ...st, name: t });
    else {
      let entries = p.fs.list(path).filter((e) => all || almost || !e.name.startsWith("."));
      const up = p.fs.stat(path === "/" ? "/" : path.slice(0, path.lastIndexOf("/")) || "/") ?? st;
      if (all) entries = [{ ...st, name: "." }, { ...up, name: ".." }, ...entries];
      dirs.push({ arg: t, entries });
    }
  }
  const out: string[] = [];
  const join = (ls: string[]) => (p.tty && !long ? (ls.length ? [ls.join("  ")] : []) : ls);
  out.push(...join(lines(files)));
  for (const [i, d] of dirs.entries()) {
    if (targets.length > 1) {
      if (out.length || i > 0) out.push("");
      out.push(`${d.arg}:`);
    }
    if (long) out.push(`total ${d.entries.reduce((n, e) => n + Math.ceil(e.size / 4096) * 4, 0)}`);
    out.push(...join(lines(d.entries)));
  }
  if (out.length) p.out(`${out.join("\n")}\n`);
  return code;
}

function mkdir(args: string[], p: Proc): number {
  const { flags, rest } = parseArgs(args, ["m", "mode"]);
  if (!rest.length) return p.fail("missing operand");
  let code = 0;
  for (const d of rest) {
    try {
      p.fs.mkdir(p.path(d), flags.has("p") || flags.has("parents"));
    } catch (e) {
      code = p.fail(`cannot create directory '${d}': ${why(e)}`);
    }
  }
  return code;
}

function touch(args: string[], p: Proc): number {
  const { rest } = parseArgs(args, ["d", "t", "r"]);
  if (!rest.length) return p.fail("missing file operand");
  let code = 0;
  for (const f of rest) {
    const path = p.path(f);
    try {
      const st = p.fs.stat(path);
      if (st?.dir) continue;
      // Rewriting the same bytes refreshes the modification time.
      p.fs.write(path, st ? p.fs.read(path) : "", false);
    } catch (e) {
      code = p.fail(`cannot touch '${f}': ${why(e)}`);
    }
  }
  return code;
}

function rm(args: string[], p: Proc): number {
  const { flags, rest } = parseArgs(args);
  const force = flags.has("f") || flags.has("force");
  const recursive = flags.has("r") || flags.has("R") || flags.has("recursive");
  if (!rest.length && !force) return p.fail("missing operand");
  let code = 0;
  for (const f of rest) {
    const path = p.path(f);
    const st = p.fs.stat(path);
    if (!st) {
      if (!force) code = p.fail(`cannot remove '${f}': No such file or directory`);
      continue;
    }
    if (st.dir && !recursive) {
      code = p.fail(`cannot remove '${f}': Is a directory`);
      continue;
    }
    try {
      p.fs.remove(path, recursive);
    } catch (e) {
      code = p.fail(`cannot remove '${f}': ${why(e)}`);
    }
  }
  return code;
}

export function registerFiles(r: CommandRegistry): void {
  r.register("cat", cat)
    .register("ls", ls)
    .register("mkdir", mkdir)
    .register("touch", touch)
    .register("rm", rm);
}
