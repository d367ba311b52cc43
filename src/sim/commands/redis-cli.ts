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
import { DENIAL_TEXT, requiredPassword } from "../workloads/topology/store-auth.js";
import { parseArgs } from "./args.js";

const AUTH_WARNING =
  "Warning: Using a password with '-a' or '-u' option on the command line interface may not be safe.\n";

type Reply =
  | { error: string }
  | { status: string }
  | { bulk: string | null }
  | { int: number }
  | { list: string[] };

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

/** What redis-server answers to one command on a connection that sent `auth` (or none). */
function reply(need: string | undefined, auth: string | undefined, argv: string[]): Reply {
  const cmd = argv[0].toLowerCase();
  if (cmd === "auth") {
    const pw = argv[argv.length - 1];
    if (argv.length < 2 || argv.length > 3)
      return { error: "ERR wrong number of arguments for 'auth' command" };
    if (need === undefined)
      return {
        error:
          "ERR AUTH <password> called without any password configured for the default user. Are you sure your configuration is correct?",
      };
    return pw === need ? { status: "OK" } : { error: DENIAL_TEXT.WRONGPASS };
  }
  if (need !== undefined && auth !== need) return { error: DENIAL_TEXT.NOAUTH };
  if (cmd === "ping") return argv[1] === undefined ? { status: "PONG" } : { bulk: argv[1] };
  if (cmd === "get" && argv.length === 2) return { bulk: null };
  if (cmd === "dbsize") return { int: 0 };
  if (cmd === "keys" && argv.length === 2) return { list: [] };
  if (cmd === "config" && argv[1]?.toLowerCase() === "get" && argv[2] === "requirepass")
    return { list: ["requirepass", need ?? ""] };
  const rest = argv
    .slice(1)
    .map((a) => `'${a}' `)
    .join("");
  return { error: `ERR unknown command '${argv[0]}', with args beginning with: ${rest}` };
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
  const pod = at.pod;
  const need = requiredPassword(pod.spec?.containers?.find((c) => c.name === at.container));
  // redis-cli sends AUTH on connect when -a is given; its error is printed as a warning
  if (auth !== undefined && need !== undefined && auth !== need)
    p.stderr.write(`AUTH failed: ${DENIAL_TEXT.WRONGPASS}\n`);
  // a failed AUTH leaves the connection unauthenticated: its commands answer NOAUTH
  const authed = auth !== undefined && auth === need ? auth : undefined;
  // no command: redis-cli reads one per line from a stdin that is not a terminal
  const lines = rest.length ? [rest] : await stdinCommands(p);
  for (const argv of lines) p.out(format(reply(need, authed, argv), raw));
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
