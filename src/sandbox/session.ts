// One sandbox for one case's tool runs: the API proxy outside (with its audit log), a kubeconfig
// that points at the proxy and holds no credential, and the command line that starts a tool
// inside bubblewrap (mode bwrap) or directly with the allowlisted environment (mode none).
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { basename, join, resolve } from "node:path";
import { parse, stringify } from "yaml";
import { packageRoot } from "../util/paths.js";
import { type ApiProxy, startApiProxy } from "./api-proxy.js";
import { ARGS_FD, bwrapArgs, INSIDE } from "./bwrap.js";
import { readCaseFile, sanitizeCaseDir, writeCaseFile } from "./case-files.js";
import { sandboxEnv } from "./env.js";
import type { SandboxMode } from "./support.js";

/** The port the relay listens on inside the sandbox's own network namespace. */
const INSIDE_PORT = 6443;

export interface SandboxOptions {
  mode: SandboxMode;
  /** The only writable folder (the case's). */
  workDir: string;
  /** The identity the tools act as; its credentials stay with the proxy, outside. */
  kubeconfig: string;
  /** File for one JSON line per API request (default: api-audit.jsonl in workDir). */
  auditLog?: string;
  /** Host paths the tools may read (a tool installed outside /usr, an agent's own script). */
  readOnly?: string[];
  /** Host files copied into the sandbox's private folder (an inventory): inside, their host path
   * becomes that copy's, so no path of the package or the run shows. */
  copies?: string[];
  /** Told when the tools start and stop waiting on the cluster (ApiProxyOptions.onWaiting). */
  onWaiting?: (waiting: boolean) => void;
  /**
   * More unix sockets of the runner the tools may reach, each on a loopback port inside (bwrap);
   * an MCP server for an agent. Without bwrap the tools reach the runner's own loopback address.
   */
  relays?: { socket: string; port: number }[];
}

export interface SandboxCommand {
  file: string;
  args: string[];
  env: Record<string, string>;
  /** A file whose NUL-separated words bwrap reads as options (--args ARGS_FD). */
  argsFile?: string;
}

export interface Sandbox {
  readonly mode: SandboxMode;
  readonly auditLog: string;
  /** Why the tools run without a cluster, when they do. */
  readonly warning?: string;
  /** The package's ansible/ folder as the tools see it. */
  readonly lib: string;
  /** HOME and TMPDIR as the tools see them (private, removed with the sandbox). */
  readonly home: string;
  readonly tmp: string;
  /** How to start `bin args` inside; `env` is added to the allowlisted environment. */
  command(bin: string, args: string[], env?: Record<string, string>, pathFirst?: string[]): SandboxCommand;
  /** Wall ms the tools have waited on the cluster so far (a watch open: ApiProxy.waitedMs). */
  waitedMs(): number;
  close(): Promise<void>;
}

/** The namespace of the identity's current context, which the tools' kubeconfig keeps. */
function contextNamespace(kubeconfig: string): string | undefined {
  try {
    const doc = parse(readFileSync(kubeconfig, "utf8")) as {
      "current-context"?: string;
      contexts?: { name: string; context?: { namespace?: string } }[];
    };
    return doc.contexts?.find((c) => c.name === doc["current-context"])?.context?.namespace;
  } catch {
    return undefined;
  }
}

function kubeconfigFor(server: string, namespace?: string): string {
  const name = "cluster";
  return stringify({
    apiVersion: "v1",
    kind: "Config",
    clusters: [{ name, cluster: { server } }],
    // no credential: the proxy outside authenticates every request as the case's identity
    users: [{ name, user: {} }],
    contexts: [{ name, context: { cluster: name, user: name, ...(namespace ? { namespace } : {}) } }],
    "current-context": name,
  });
}

/**
 * The audit logs of the sandboxes open now, as the runner knows them: a sandbox that opens while
 * another of the same case is open (an agent's, and a playbook it asked for through MCP) starts
 * from the runner's copy, and each appends its lines to it when it closes, so neither drops the
 * other's lines, and what the tools wrote into the file meanwhile is still dropped.
 */
const openLogs = new Map<string, { text: string; open: number }>();

function takeLog(path: string): void {
  const known = openLogs.get(path);
  if (known) known.open++;
  else openLogs.set(path, { text: readCaseFile(path), open: 1 });
}

function appendLog(path: string, lines: string): void {
  const log = openLogs.get(path);
  if (!log) return;
  log.text += lines;
  log.open--;
  if (log.text) writeCaseFile(path, log.text);
  if (log.open === 0) openLogs.delete(path);
}

export async function openSandbox(given: SandboxOptions): Promise<Sandbox> {
  const o = { ...given, workDir: resolve(given.workDir) };
  const auditLog = o.auditLog ?? join(o.workDir, "api-audit.jsonl");
  // the proxy logs to the runner's private folder while the tools run, and the case's log gets
  // those lines when the sandbox closes: what a playbook writes into the log meanwhile is dropped
  takeLog(auditLog);
  // private to the runner: the socket and the kubeconfig the tools read
  const io = mkdtempSync(join(tmpdir(), "sandbox-"));
  chmodSync(io, 0o700);
  const privateLog = join(io, "api-audit.jsonl");
  const libDir = join(packageRoot(), "ansible");
  let proxy: ApiProxy | undefined;
  let warning: string | undefined;
  try {
    proxy = await startApiProxy({
      kubeconfig: o.kubeconfig,
      auditLog: privateLog,
      socketPath: o.mode === "bwrap" ? join(io, "api.sock") : undefined,
      onWaiting: o.onWaiting,
    });
  } catch (e) {
    // no cluster to reach: the tools still run, and every API call fails as unreachable
    warning = `no cluster for the playbook: the kubeconfig ${o.kubeconfig} could not be used (${(e as Error).message.split("\n")[0]})`;
  }
  if (o.mode === "bwrap")
    writeFileSync(
      join(io, "kubeconfig"),
      kubeconfigFor(`http://127.0.0.1:${INSIDE_PORT}`, contextNamespace(o.kubeconfig)),
      {
        mode: 0o600,
      },
    );
  else {
    writeFileSync(
      join(io, "kubeconfig"),
      kubeconfigFor(proxy?.url ?? "http://127.0.0.1:1", contextNamespace(o.kubeconfig)),
      {
        mode: 0o600,
      },
    );
    for (const d of ["home", "tmp"]) mkdirSync(join(io, d));
  }
  const readOnly = o.readOnly ?? [];
  const bwrap = o.mode === "bwrap";
  // the case's folder and the copies as the tools see them: host paths in words and values become
  // the inside ones (a playbook's path, the task log's, the inventory's)
  const renames: [string, string][] = [];
  if (bwrap) {
    for (const f of o.copies ?? []) {
      const copy = join(io, basename(f));
      copyFileSync(f, copy);
      renames.push([resolve(f), join(INSIDE.io, basename(f))]);
    }
    renames.push([o.workDir, INSIDE.work]);
  }
  const relays = o.relays ?? [];
  // the runner's other sockets (an MCP server), bound under neutral names
  const relaySocket = (i: number) => join(INSIDE.io, "..", `relay-${i}.sock`);
  const inside = (word: string) => renames.reduce((w, [host, there]) => w.split(host).join(there), word);
  let commands = 0;
  const argsFiles: string[] = [];
  const home = bwrap ? INSIDE.home : join(io, "home");
  const tmp = bwrap ? INSIDE.tmp : join(io, "tmp");
  return {
    mode: o.mode,
    auditLog,
    warning,
    lib: bwrap ? INSIDE.lib : libDir,
    home,
    tmp,
    command(bin, args, env = {}, pathFirst = []) {
      const base = sandboxEnv({
        home,
        tmp,
        kubeconfig: join(bwrap ? INSIDE.io : io, "kubeconfig"),
        pathFirst,
        extra: bwrap ? Object.fromEntries(Object.entries(env).map(([k, v]) => [k, inside(v)])) : env,
      });
      if (!bwrap) return { file: bin, args, env: base };
      const launch = [
        "/usr/bin/python3",
        join(INSIDE.lib, "sandbox", "launch.py"),
        join(INSIDE.io, "api.sock"),
        String(INSIDE_PORT),
        ...relays.flatMap((r, i) => [relaySocket(i), String(r.port)]),
        "--",
        bin,
        ...args.map(inside),
      ];
      const words = bwrapArgs({
        workDir: o.workDir,
        info: true,
        mounts: [
          [io, INSIDE.io],
          [libDir, INSIDE.lib],
          ...relays.map((r, i): [string, string] => [r.socket, relaySocket(i)]),
        ],
        readOnly: [...readOnly, ...pathFirst],
        command: launch,
      });
      // bwrap's options (host paths among them) go through a file beside the private folder, not
      // in it; its command line, PID 1's inside, keeps only the neutral launch line
      const options = words.slice(0, words.length - launch.length - 1);
      const argsFile = `${io}.args-${++commands}`;
      writeFileSync(argsFile, `${options.join("\0")}\0`, { mode: 0o600 });
      argsFiles.push(argsFile);
      return { file: "bwrap", args: ["--args", String(ARGS_FD), "--", ...launch], env: base, argsFile };
    },
    waitedMs: () => proxy?.waitedMs() ?? 0,
    async close() {
      await proxy?.close();
      const lines = existsSync(privateLog) ? readFileSync(privateLog, "utf8") : "";
      appendLog(auditLog, lines);
      // what the tools left in the case folder that is not a file or a folder (a symlink to a
      // file of the host) goes, before the runner writes its records there
      sanitizeCaseDir(o.workDir);
      rmSync(io, { recursive: true, force: true });
      for (const f of argsFiles) rmSync(f, { force: true });
    },
  };
}
