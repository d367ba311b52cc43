// BusyBox nc's server side (`nc -l [-k] -p PORT [-e PROG]`): it binds the port in the pod's
// network namespace and holds it until the process ends, so an application of the pod that opens
// the same port later fails with EADDRINUSE (workloads/topology/binds.ts), and netstat shows nc
// listening. A port already bound fails as BusyBox's xbind does: `nc: bind: Address already in
// use`, exit 1. Connections are not modelled (the listener answers as an echo server would).
// The client side (`nc HOST PORT`) is not modelled here: it prints the usage.

import type { CommandRegistry, Proc } from "../userland/process.js";
import { gated } from "../userland/toolbox.js";
import { bindBook } from "../workloads/topology/binds.js";
import { listeners } from "../workloads/topology/listeners.js";
import { parseArgs } from "./args.js";

const USAGE =
  "BusyBox v1.35.0 multi-call binary.\n\nUsage: nc [OPTIONS] HOST PORT  - connect\nnc [OPTIONS] -l -p PORT [HOST] [PORT]  - listen\n";
/** The longest wait a timer takes (2^31-1 ms); a listener waits in such steps. */
const MAX_WAIT = 2 ** 31 - 1;

async function nc(args: string[], p: Proc): Promise<number> {
  const { flags, values } = parseArgs(args, ["p", "e", "w", "s", "i", "q"]);
  const port = Number(values.get("p"));
  if (!flags.has("l") || !Number.isInteger(port) || port <= 0 || port > 65535) {
    p.stderr.write(USAGE);
    return 1;
  }
  const uid = p.pod.metadata.uid ?? "";
  const now = p.clock.now();
  const bind = {
    port,
    container: p.container.name,
    restartCount: p.restartCount,
    comm: "nc",
    since: now,
  };
  const taken = listeners(p.ctx, p.pod, now).some((l) => l.port === port);
  if (taken || !bindBook(p.ctx).bind(uid, bind)) return p.fail("bind: Address already in use");
  try {
    // the port is held until the process ends (the container stops, or the exec goes away)
    while (await p.sleep(MAX_WAIT));
  } finally {
    bindBook(p.ctx).release(bind, p.clock.now());
  }
  return 130;
}

export function registerNc(r: CommandRegistry): void {
  r.register("nc", gated("nc", nc));
}
