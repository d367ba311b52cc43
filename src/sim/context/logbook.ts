// What containers write to stdout: one bounded buffer per container instance, kept for the
// current and the previous instance (kubectl logs --previous), with followers for -f.

import type { LogRequest, LogSource } from "../api/hooks.js";
import { type Clock, parseStamp } from "../core/clock.js";

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

  constructor(private readonly clock: Clock) {}

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
