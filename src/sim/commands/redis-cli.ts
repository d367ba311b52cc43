// redis-cli as the redis images ship it, one command per run (`redis-cli [-h H] [-p P] [-a PW]
// [--no-auth-warning] [--raw] CMD ARGS...`), against the redis-server the host and port reach
// (127.0.0.1 is the pod's own; a name goes through the cluster's DNS, kube-proxy and the pod's
// network: resolve.ts, the one resolver curl, wget and the applications' calls use). The server
// answers as redis does when its command line says `--requirepass` (store-auth.ts): every command
// but AUTH, HELLO and QUIT gets `NOAUTH Authentication required.` until the connection has sent
// the password, a wrong one `WRONGPASS ...`. redis-cli.c prints replies raw when stdout is not a
// terminal (kubectl exec without -t): an error as its text and a newline, then the command
// delimiter; on a terminal `(error) ...`, `(nil)`, `(integer) n`. An error reply does not change
// the exit status (cliReadReply exits 1 only with -e); a failed connect prints `Could not connect
// to Redis at host:port: Connection refused` and exits 1. `-a` warns on stderr first.

import type { Pod } from "../core/objects.js";
import type { CommandRegistry, Proc } from "../userland/process.js";
import { readAll } from "../userland/stream.js";
import { gated } from "../userland/toolbox.js";
import { open, place } from "../workloads/topology/resolve.js";
import { DENIAL_TEXT, storePassword } from "../workloads/topology/store-auth.js";
import { type Reply, reply, session } from "../workloads/topology/store-commands.js";
import { connectOnce, MAXCLIENTS_TEXT } from "../workloads/topology/store-runtime.js";
import { parseArgs } from "./args.js";

const AUTH_WARNING =
  "Warning: Using a password with '-a' or '-u' option on the command line interface may not be safe.\n";

/** The redis-server listening at host:port as seen from the pod, or why none answers. */
function server(p: Proc, host: string, port: number): { pod: Pod; container: string } | { error: string } {
  const to = place({ pod: p.pod, ctx: p.ctx }, host, port);
  if (to.kind === "dns") return { error: "Name does not resolve" };
  if (to.kind === "refused") return { error: "Connection refused" };
  if (to.kind !== "pods") return { error: "Connection timed out" };
  const landing = to.pods[Math.floor(p.ctx.rng.next() * to.pods.length)];
  const v = open(p.ctx, p.pod, landing);
  if (v.kind === "timeout") return { error: "Connection timed out" };
  if (v.kind === "refused" || v.listener.protocol !== "redis") return { error: "Connection refused" };
  return { pod: landing.pod, container: v.listener.container };
}

/** redis-cli's cliFormatReplyRaw plus the delimiter, or cliFormatReplyTTY. */
function format(r: Reply, raw: boolean): string {
  if ("error" in r) return raw ? `${r.error}\n\n` : `(error) ${r.error}\n`;
  if ("status" in r) return `${r.status}\n`;
  if ("int" in r) return raw ? `${r.int}\n` : `(integer) ${r.int}\n`;
  if ("bulk" in r) return r.bulk === null ? (raw ? "\n" : "(nil)\n") : raw ? `${r.bulk}\n` : `"${r.bulk}"\n`;
  if (!r.list.length) return raw ? "\n" : "(empty array)\n";
  return raw ? `${r.list.join("\n")}\n` : r.list.map((x, i) => `${i + 1}) "${x}"\n`).join("");
}

async function redisCli(args: string[], p: Proc): Promise<number> {
  const { flags, values, rest } = parseArgs(args, ["h", "p", "a", "n", "pass", "user"]);
  const host = values.get("h") ?? "127.0.0.1";
  const port = Number(values.get("p") ?? 6379);
  const auth = values.get("a") ?? values.get("pass");
  const raw = flags.has("raw") || (!p.tty && !flags.has("no-raw"));
  if (auth !== undefined && !flags.has("no-auth-warning")) p.stderr.write(AUTH_WARNING);
  const at = server(p, host, port);
  if ("error" in at) {
    p.stderr.write(`Could not connect to Redis at ${host}:${port}: ${at.error}\n`);
    return 1;
  }
  const s = session(p.ctx, at.pod, at.container, p.pod);
  // no command: redis-cli reads one per line from a stdin that is not a terminal
  const lines = rest.length ? [rest] : await stdinCommands(p);
  // over maxclients the server writes its error and closes: the first reply redis-cli reads
  if (!connectOnce(s.proc, p.ctx)) {
    if (auth !== undefined) p.stderr.write(`AUTH failed: ${MAXCLIENTS_TEXT}\n`);
    else if (lines.length) p.out(format({ error: MAXCLIENTS_TEXT }, raw));
    return 0;
  }
  const need = storePassword(p.ctx, at.pod, at.container);
  // redis-cli sends AUTH on connect when -a is given; its error is printed as a warning
  if (auth !== undefined && need !== undefined && auth !== need)
    p.stderr.write(`AUTH failed: ${DENIAL_TEXT.WRONGPASS}\n`);
  // a failed AUTH leaves the connection unauthenticated: its commands answer NOAUTH
  if (auth !== undefined && auth === need) s.auth = auth;
  for (const argv of lines) {
    const r = reply(s, argv);
    // INFO and CLIENT LIST print raw even on a terminal (cliSendCommand's output_raw)
    const cmd = argv.slice(0, 2).join(" ").toLowerCase();
    p.out(format(r, raw || cmd === "info" || cmd.startsWith("info ") || cmd === "client list"));
  }
  return 0;
}

async function stdinCommands(p: Proc): Promise<string[][]> {
  if (p.tty) return [];
  const text = (await readAll(p.stdin)).toString();
  return text
    .split("\n")
    .map((l) => l.trim().split(/\s+/).filter(Boolean))
    .filter((a) => a.length);
}

export function registerRedisCli(r: CommandRegistry): void {
  r.register("redis-cli", gated("redis-cli", redisCli));
}
