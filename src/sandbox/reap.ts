// bwrap exits as soon as the command does, while the kernel is still killing what was left in the
// sandbox's PID namespace (async tasks, setsid children). The namespace's PID 1 finishes exiting
// only once every process in it is gone, so waiting for that PID 1 makes "nothing outlives the
// run" hold when the executor returns.
import { readFileSync } from "node:fs";

/** The sandbox's PID 1 from what bwrap wrote to its --info-fd. */
export function sandboxInit(info: string): number | undefined {
  const m = /"child-pid"\s*:\s*(\d+)/.exec(info);
  return m ? Number(m[1]) : undefined;
}

function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // the state follows the command name in parentheses; a zombie has finished exiting
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    return false;
  }
}

/** Resolves once `pid` has exited (true), or after `limitMs` (false). */
export async function waitExited(pid: number, limitMs = 10_000): Promise<boolean> {
  const until = Date.now() + limitMs;
  while (alive(pid)) {
    if (Date.now() > until) return false;
    await new Promise((r) => setTimeout(r, 10));
  }
  return true;
}
