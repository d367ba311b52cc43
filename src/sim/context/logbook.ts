// What containers write to stdout: one bounded buffer per container instance, kept for the
// current and the previous instance (kubectl logs --previous), with followers for -f.

import type { LogRequest, LogSource } from "../api/hooks.js";
import { type Clock, parseStamp } from "../core/clock.js";
import { shiftLoggerStamps } from "../core/log-stamps.js";

interface Line {
  at: number;
  text: string;
}

interface Instance {
  lines: Line[];
  followers: Set<(line: string) => void>;
}

const MAX_LINES = 2000;

export class LogBook implements LogSource {
  private readonly current = new Map<string, Instance>();
  private readonly previous = new Map<string, Instance>();

  constructor(private readonly clock: Clock) {
    // the clock re-based: the times written inside the lines move with every other shown instant
    clock.onShift?.((delta) => {
      for (const m of [this.current, this.previous])
        for (const inst of m.values())
          for (const l of inst.lines) l.text = shiftStamps(l.text, -delta, this.clock.toWall(l.at) - delta);
    });
  }

  private key(podUid: string, container: string) {
    return `${podUid}/${container}`;
  }

  /** A container (re)started: its old output becomes --previous. */
  restart(podUid: string, container: string): void {
    const k = this.key(podUid, container);
    const cur = this.current.get(k);
    if (cur) this.previous.set(k, { lines: cur.lines, followers: new Set() });
    this.current.set(k, { lines: [], followers: cur?.followers ?? new Set() });
  }

  append(podUid: string, container: string, text: string): void {
    const k = this.key(podUid, container);
    let inst = this.current.get(k);
    if (!inst) {
      inst = { lines: [], followers: new Set() };
      this.current.set(k, inst);
    }
    for (const t of text.split("\n")) {
      inst.lines.push({ at: this.clock.now(), text: t });
      for (const f of inst.followers) f(t);
    }
    if (inst.lines.length > MAX_LINES) inst.lines.splice(0, inst.lines.length - MAX_LINES);
  }

  /**
   * A pod restored as started `ms` earlier (a lived-in namespace): what its containers wrote moves
   * back with it, the times written inside the lines too (ISO-8601, Unix ms and the loggers' own
   * formats, log-stamps.ts), so a start-up line keeps to the container's start.
   */
  dateBack(podUid: string, ms: number): void {
    for (const m of [this.current, this.previous])
      for (const [k, inst] of m)
        if (k.startsWith(`${podUid}/`))
          for (const l of inst.lines) {
            l.at -= ms;
            l.text = shiftStamps(l.text, ms, this.clock.toWall(l.at + ms));
          }
  }

  /** A line written at `at`, an instant before now (a lived-in pod's past output). */
  appendAt(podUid: string, container: string, text: string, at: number): void {
    const k = this.key(podUid, container);
    let inst = this.current.get(k);
    if (!inst) {
      inst = { lines: [], followers: new Set() };
      this.current.set(k, inst);
    }
    for (const t of text.split("\n")) inst.lines.push({ at, text: t });
    if (inst.lines.length > MAX_LINES) inst.lines.splice(0, inst.lines.length - MAX_LINES);
  }

  /** Forget a pod that left the cluster. */
  forget(podUid: string): void {
    for (const m of [this.current, this.previous])
      for (const k of [...m.keys()]) if (k.startsWith(`${podUid}/`)) m.delete(k);
  }

  logs(req: LogRequest) {
    const k = this.key(req.pod.metadata.uid!, req.container);
    const inst = (req.previous ? this.previous : this.current).get(k);
    let lines = inst?.lines ?? [];
    if (req.sinceSeconds !== undefined) {
      const since = this.clock.now() - req.sinceSeconds * 1000;
      lines = lines.filter((l) => l.at >= since);
    } else if (req.sinceTime) {
      // RFC 3339 in wall time, as the lines' timestamps (kubectl sends whole seconds)
      const since = parseStamp(this.clock, req.sinceTime);
      if (!Number.isNaN(since)) lines = lines.filter((l) => l.at >= since);
    }
    if (req.tailLines !== undefined && req.tailLines >= 0)
      lines = lines.slice(Math.max(0, lines.length - req.tailLines));
    const render = (l: Line) =>
      req.timestamps
        ? `${new Date(this.clock.toWall(l.at)).toISOString().replace("Z", "000000Z")} ${l.text}`
        : l.text;
    return {
      lines: lines.map(render),
      follow: req.previous
        ? undefined
        : (onLine: (line: string) => void) => {
            const cur = this.current.get(k) ?? { lines: [], followers: new Set<(l: string) => void>() };
            this.current.set(k, cur);
            const f = (t: string) =>
              onLine(
                req.timestamps
                  ? `${new Date(this.clock.toWall(this.clock.now())).toISOString().replace("Z", "000000Z")} ${t}`
                  : t,
              );
            cur.followers.add(f);
            return () => cur.followers.delete(f);
          },
    };
  }
}

const ISO = /\b(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(\.\d{1,9})?Z/g;
const EPOCH_MS = /\b1\d{12}\b/g;
const DAY = 86_400_000;

/**
 * The ISO-8601 stamps and Unix-ms instants of a line written at wall time `wrote`, `ms` earlier,
 * each in its own precision (a 13-digit number is an instant only within a day of the writing).
 */
export function shiftStamps(text: string, ms: number, wrote: number): string {
  return shiftLoggerStamps(text, ms)
    .replace(ISO, (all, whole: string, frac: string | undefined) => {
      const t = Date.parse(`${whole}${frac ? frac.slice(0, 4) : ""}Z`);
      if (Number.isNaN(t)) return all;
      const moved = new Date(t - ms).toISOString(); // yyyy-mm-ddThh:mm:ss.sssZ
      if (!frac) return `${moved.slice(0, 19)}Z`;
      return `${moved.slice(0, 19)}${`${moved.slice(19, 23)}${"0".repeat(9)}`.slice(0, frac.length)}Z`;
    })
    .replace(EPOCH_MS, (n) => (Math.abs(Number(n) - wrote) < DAY ? String(Number(n) - ms) : n));
}
