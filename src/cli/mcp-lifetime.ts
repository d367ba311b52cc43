// How `microremed mcp` ends, and that nothing it started outlives it: it ends on SIGINT or
// SIGTERM, and over stdio on stdin's end (the client closed the pipe or died) and when its parent,
// the client, exits (the kernel re-parents it: a client killed while something else holds the
// pipe open). Then
// whatever its tools started that is still running (ansible-playbook, kubectl, bubblewrap) is
// killed, found as this process's descendants in /proc, and waited for.
import { readdirSync, readFileSync } from "node:fs";

/** Resolves with why the server should end. */
export function untilEnd(o: { stdio: boolean }): Promise<string> {
  return new Promise((resolve) => {
    process.once("SIGINT", () => resolve("SIGINT")).once("SIGTERM", () => resolve("SIGTERM"));
    if (!o.stdio) return;
    process.stdin.once("end", () => resolve("the client closed stdin"));
    // over stdio the parent is the client
    const parent = process.ppid;
    const watch = setInterval(() => {
      if (process.ppid !== parent) resolve("the client (its parent process) exited");
    }, 500);
    watch.unref();
  });
}

/** Parent pid of each live process in /proc (a zombie has finished exiting: left out). */
function parents(): Map<number, number> {
  const ppid = new Map<number, number>();
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      // the fields after the command name (in parentheses): state, ppid, ...
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (fields[0] !== "Z") ppid.set(Number(name), Number(fields[1]));
    } catch {
      // it exited while we looked
    }
  }
  return ppid;
}

/** This process's descendants, children first. */
export function descendants(root = process.pid): number[] {
  const ppid = parents();
  const found: number[] = [];
  let frontier = [root];
  while (frontier.length) {
    const next = [...ppid].filter(([, p]) => frontier.includes(p)).map(([pid]) => pid);
    found.push(...next);
    frontier = next;
  }
  return found;
}

/** Kill every descendant (bubblewrap's --die-with-parent takes its sandbox along) and wait. */
export async function stopDescendants(limitMs = 10_000): Promise<void> {
  const until = Date.now() + limitMs;
  for (let left = descendants(); left.length && Date.now() < until; left = descendants()) {
    for (const pid of left) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // already gone
      }
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}
