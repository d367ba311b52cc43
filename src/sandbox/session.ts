// One sandbox for one case's tool runs: the API proxy outside (with its audit log), a kubeconfig
// that points at the proxy and holds no credential, and the command line that starts a tool
// inside bubblewrap (mode bwrap) or directly with the allowlisted environment (mode none).
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { stringify } from "yaml";
import { packageRoot } from "../util/paths.js";
import { type ApiProxy, startApiProxy } from "./api-proxy.js";
import { bwrapArgs, INSIDE } from "./bwrap.js";
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
  /** Host paths the tools may read (an inventory, a tool installed outside /usr). */
  readOnly?: string[];
  /** Told when the tools start and stop waiting on the cluster (ApiProxyOptions.onWaiting). */
  onWaiting?: (waiting: boolean) => void;
}

export interface SandboxCommand {
  file: string;
  args: string[];
  env: Record<string, string>;
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

function kubeconfigFor(server: string): string {
  const name = "cluster";
  return stringify({
    apiVersion: "v1",
    kind: "Config",
    clusters: [{ name, cluster: { server } }],
    // no credential: the proxy outside authenticates every request as the case's identity
    users: [{ name, user: {} }],
    contexts: [{ name, context: { cluster: name, user: name } }],
    "current-context": name,
  });
}

export async function openSandbox(given: SandboxOptions): Promise<Sandbox> {
  const o = { ...given, workDir: resolve(given.workDir) };
  const auditLog = o.auditLog ?? join(o.workDir, "api-audit.jsonl");
  // the proxy logs to the runner's private folder while the tools run, and the case's log gets
  // those lines when the sandbox closes: what a playbook writes into the log meanwhile is dropped
  const before = readCaseFile(auditLog);
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
    writeFileSync(join(io, "kubeconfig"), kubeconfigFor(`http://127.0.0.1:${INSIDE_PORT}`), {
      mode: 0o600,
    });
  else {
    writeFileSync(join(io, "kubeconfig"), kubeconfigFor(proxy?.url ?? "http://127.0.0.1:1"), {
      mode: 0o600,
    });
    for (const d of ["home", "tmp"]) mkdirSync(join(io, d));
  }
  const readOnly = o.readOnly ?? [];
  const bwrap = o.mode === "bwrap";
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
        extra: env,
      });
      if (!bwrap) return { file: bin, args, env: base };
      const launch = [
        "/usr/bin/python3",
        join(INSIDE.lib, "sandbox", "launch.py"),
        join(INSIDE.io, "api.sock"),
        String(INSIDE_PORT),
        "--",
        bin,
        ...args,
      ];
      return {
        file: "bwrap",
        args: bwrapArgs({
          workDir: o.workDir,
          info: true,
          mounts: [
            [io, INSIDE.io],
            [libDir, INSIDE.lib],
          ],
          readOnly: [...readOnly, ...pathFirst],
          command: launch,
        }),
        env: base,
      };
    },
    waitedMs: () => proxy?.waitedMs() ?? 0,
    async close() {
      await proxy?.close();
      const lines = existsSync(privateLog) ? readFileSync(privateLog, "utf8") : "";
      if (before || lines) writeCaseFile(auditLog, before + lines);
      // what the tools left in the case folder that is not a file or a folder (a symlink to a
      // file of the host) goes, before the runner writes its records there
      sanitizeCaseDir(o.workDir);
      rmSync(io, { recursive: true, force: true });
    },
  };
}
