// netstat (BusyBox or net-tools) and ss (iproute2): the pod's sockets (workloads/topology/
// sockets.ts, what /proc/net/tcp holds too). -p names only processes of the caller's own
// container (its PID namespace), others show "-".
import type { CommandRegistry, Proc } from "../userland/process.js";
import { gated } from "../userland/toolbox.js";
import { podSockets } from "../workloads/topology/sockets.js";
import { parseArgs } from "./args.js";

interface Sock {
  local: string;
  peer: string;
  state: "LISTEN" | "ESTABLISHED";
  proto: "tcp" | "tcp6";
  /** The owning process if the caller can see it. */
  proc?: string;
}

/** The pod's sockets as netstat writes addresses; -p names only the caller's container's. */
function sockets(p: Proc): Sock[] {
  return podSockets(p.ctx, p.pod).map((s) => {
    const listen = s.state === "LISTEN";
    const v6 = s.family === "tcp6";
    return {
      local: listen ? (v6 ? `:::${s.localPort}` : `0.0.0.0:${s.localPort}`) : `${s.localIp}:${s.localPort}`,
      peer: listen ? (v6 ? ":::*" : "0.0.0.0:*") : `${s.peerIp}:${s.peerPort}`,
      state: s.state,
      proto: s.family,
      proc: s.container === p.container.name ? s.comm : undefined,
    };
  });
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
