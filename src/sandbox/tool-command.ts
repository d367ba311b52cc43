// How the probe starts kubectl: with the allowlisted environment (no API key can be printed from
// /proc/self/environ), and in bubblewrap a read-only system, an empty private HOME and /tmp, no
// writable path, and only the kubeconfig of the runner's files (flattened, so the certificates
// it names come along). It keeps the host's network: kubectl must reach the API server, and the
// probe's own rules (src/probe) decide which server and which flags.
import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, isAbsolute, join } from "node:path";
import { parse, stringify } from "yaml";
import { bwrapArgs, INSIDE } from "./bwrap.js";
import { sandboxEnv } from "./env.js";
import type { SandboxCommand } from "./session.js";
import type { SandboxMode } from "./support.js";
import { findTool, toolFolders } from "./tools.js";

let privateDir: string | undefined;

/** One private folder per runner process (HOME, TMPDIR, flattened kubeconfigs), removed at exit. */
function ownDir(): string {
  if (privateDir) return privateDir;
  const dir = mkdtempSync(join(tmpdir(), "tools-"));
  for (const d of ["home", "tmp"]) mkdirSync(join(dir, d), { mode: 0o700 });
  process.once("exit", () => rmSync(dir, { recursive: true, force: true }));
  privateDir = dir;
  return dir;
}

type Entry = Record<string, unknown>;

/** The kubeconfig with every file it names read in (certificate-authority → -data, ...). */
export function flattenKubeconfig(path: string): string {
  const doc = (parse(readFileSync(path, "utf8")) ?? {}) as Entry;
  const base = dirname(path);
  const read = (p: unknown) => readFileSync(isAbsolute(String(p)) ? String(p) : join(base, String(p)));
  const inline = (o: Entry | undefined, file: string, data: string) => {
    if (o && typeof o[file] === "string") {
      o[data] = read(o[file]).toString("base64");
      delete o[file];
    }
  };
  for (const c of (doc.clusters ?? []) as Entry[])
    inline(c.cluster as Entry, "certificate-authority", "certificate-authority-data");
  for (const u of (doc.users ?? []) as Entry[]) {
    const user = u.user as Entry | undefined;
    inline(user, "client-certificate", "client-certificate-data");
    inline(user, "client-key", "client-key-data");
    if (user && typeof user.tokenFile === "string") {
      user.token = read(user.tokenFile).toString("utf8").trim();
      delete user.tokenFile;
    }
  }
  return stringify(doc);
}

function flattened(kubeconfig: string): string {
  const text = flattenKubeconfig(kubeconfig);
  const file = join(ownDir(), `kubeconfig-${createHash("sha256").update(text).digest("hex").slice(0, 16)}`);
  writeFileSync(file, text, { mode: 0o600 });
  return file;
}

export function toolCommand(
  mode: SandboxMode,
  kubeconfig: string,
  bin: string,
  args: string[],
): SandboxCommand {
  const dir = ownDir();
  if (mode === "none") {
    const env = sandboxEnv({ home: join(dir, "home"), tmp: join(dir, "tmp"), kubeconfig });
    return { file: bin, args, env };
  }
  // flattened each time: the runner rewrites a case's kubeconfig with a new identity
  const flat = flattened(kubeconfig);
  const inside = join(INSIDE.io, "kubeconfig");
  const tool = findTool(bin);
  // not installed: started as is, so the caller meets ENOENT and says so
  if (!tool) return { file: bin, args, env: sandboxEnv({ home: join(dir, "home"), tmp: join(dir, "tmp") }) };
  const folders = toolFolders(tool);
  return {
    file: "bwrap",
    args: bwrapArgs({
      mounts: [[flat, inside]],
      readOnly: folders,
      network: true,
      command: [tool, ...args],
    }),
    env: sandboxEnv({ home: INSIDE.home, tmp: INSIDE.tmp, kubeconfig: inside, pathFirst: folders }),
  };
}
