// netstat (BusyBox or net-tools) and ss (iproute2): the pod's sockets. The network namespace is
// the pod's, so every container sees the ports all containers listen on (listeners.ts: open
// once the application started); -p names only processes of the caller's own container (its
// PID namespace), others show "-". Established connections: the pooled client connections of
// the application to the dependencies that have a Ready endpoint (to the Service's ClusterIP,
// which is what the socket sees before kube-proxy's DNAT).
import { R } from "../api/resources.js";
import { systemOf } from "../context/catalog.js";
import type { Service } from "../core/objects.js";
import type { CommandRegistry, Proc } from "../userland/process.js";
import { gated } from "../userland/toolbox.js";
import { type Listener, listeners } from "../workloads/topology/listeners.js";
import { trafficOf } from "../workloads/topology/traffic.js";
import { parseArgs } from "./args.js";

interface Sock {
  local: string;
  peer: string;
  state: "LISTEN" | "ESTABLISHED";
  proto: "tcp" | "tcp6";
  /** The owning process if the caller can see it. */
  proc?: string;
}

function sockets(p: Proc): Sock[] {
  const now = p.clock.now();
  const own = (l: Listener) => (l.container === p.container.name ? l.comm : undefined);
  const ls = listeners(p.ctx, p.pod, now);
  const out: Sock[] = ls.map((l) => ({
    local: l.family === "tcp6" ? `:::${l.port}` : `0.0.0.0:${l.port}`,
    peer: l.family === "tcp6" ? ":::*" : "0.0.0.0:*",
    state: "LISTEN",
    proto: l.family,
    proc: own(l),
  }));
  const app = p.pod.metadata.labels?.app;
  const m = app ? p.ctx.catalog.byApp.get(app) : undefined;
  const main = m && ls.find((l) => l.container === m.container);
  if (!m || !main || /^python/.test(m.lang)) return out;
  const st = trafficOf(p.ctx).state(p.pod.metadata.namespace ?? "");
  let port = 40000 + ((p.pod.metadata.uid ?? "").charCodeAt(0) % 50) * 100;
  for (const e of systemOf(m).edges.get(m.key) ?? []) {
    if (!st.services.get(e.to)?.serving.length) continue;
    const svc = p.ctx.registry.tryGet(R("Service"), p.pod.metadata.namespace, e.dep) as Service | undefined;
    const ip =
      svc?.spec?.clusterIP === "None"
        ? st.services.get(e.to)!.serving[0].status?.podIP
        : svc?.spec?.clusterIP;
    const sp = svc?.spec?.ports?.[0]?.port;
    if (!ip || !sp) continue;
    port += 7;
    out.push({
      local: `${p.pod.status?.podIP}:${port}`,
      peer: `${ip}:${sp}`,
      state: "ESTABLISHED",
      proto: "tcp",
      proc: own(main),
    });
  }
  return out;
}

function netstat(args: string[], p: Proc): number {
  const { flags } = parseArgs(args);
  const listening = flags.has("l");
  const all = flags.has("a");
  const withProc = flags.has("p");
  const socks = sockets(p).filter(
    (s) => all || (listening ? s.state === "LISTEN" : s.state === "ESTABLISHED"),
  );
  p.out(
    `Active Internet connections (${all ? "servers and established" : listening ? "only servers" : "w/o servers"})\n`,
  );
  p.out(
    `Proto Recv-Q Send-Q Local Address           Foreign Address         State      ${withProc ? " PID/Program name    " : ""}\n`,
  );
  for (const s of socks) {
    const row = `${s.proto.padEnd(5)}      0      0 ${s.local.padEnd(23)} ${s.peer.padEnd(23)} ${s.state.padEnd(11)}`;
    p.out(`${row}${withProc ? ` ${s.proc ? `1/${s.proc}` : "-"}` : ""}\n`.replace(/ +\n$/, "\n"));
  }
  return 0;
}

function ss(args: string[], p: Proc): number {
  const { flags } = parseArgs(args);
  const listening = flags.has("l");
  const all = flags.has("a");
  const withProc = flags.has("p");
  const socks = sockets(p).filter(
    (s) => all || (listening ? s.state === "LISTEN" : s.state === "ESTABLISHED"),
  );
  const v6 = (a: string) => a.replace(/^:::/, "[::]:").replace(/^:::\*$/, "[::]:*");
  p.out(
    `${"State".padEnd(6)} Recv-Q Send-Q ${"Local Address:Port".padStart(20)} ${"Peer Address:Port".padStart(20)}${withProc ? " Process" : ""}\n`,
  );
  for (const s of socks) {
    const state = s.state === "LISTEN" ? "LISTEN" : "ESTAB";
    const q = s.state === "LISTEN" ? "128" : "0";
    const proc = withProc && s.proc ? ` users:(("${s.proc}",pid=1,fd=${s.state === "LISTEN" ? 3 : 7}))` : "";
    p.out(
      `${state.padEnd(6)} 0      ${q.padEnd(6)} ${v6(s.local).padStart(20)} ${v6(s.peer.replace("0.0.0.0:*", "0.0.0.0:*")).padStart(20)}${proc}\n`,
    );
  }
  return 0;
}

export function registerNet(r: CommandRegistry): void {
  r.register("netstat", gated("netstat", netstat)).register("ss", gated("ss", ss));
}
