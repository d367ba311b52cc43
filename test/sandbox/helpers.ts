// Shared by the sandbox and executor tests: a case folder, an executor on the embedded cluster,
// and a look at the host's process table.
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse, stringify } from "yaml";
import { AnsibleExecutor, type ExecutionResult } from "../../src/ansible/executor.js";
import type { SandboxMode } from "../../src/sandbox/support.js";
import { packageRoot } from "../../src/util/paths.js";

export function caseDir(prefix = "mr-case-"): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

export function executor(
  kubeconfig: string,
  sandbox: SandboxMode = "bwrap",
  timeoutMs = 120_000,
  ansiblePlaybook?: string,
) {
  return new AnsibleExecutor({
    inventory: join(packageRoot(), "inventory.ini"),
    kubeconfig,
    timeoutMs,
    sandbox,
    ansiblePlaybook,
  });
}

export async function play(
  ex: AnsibleExecutor,
  playbook: string,
  o: { dir?: string; namespace?: string; signal?: AbortSignal } = {},
): Promise<ExecutionResult & { dir: string }> {
  const dir = o.dir ?? caseDir();
  const r = await ex.run(playbook, {
    caseDir: dir,
    name: "playbook-1",
    namespace: o.namespace ?? "default",
    signal: o.signal,
  });
  return { ...r, dir };
}

/** Host processes whose command line contains `text` (read from /proc). */
export function processesWith(text: string): string[] {
  const found: string[] = [];
  for (const pid of readdirSync("/proc")) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      const cmd = readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " ");
      if (cmd.includes(text)) found.push(`${pid}: ${cmd}`);
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

/** A play on localhost with these tasks (YAML, indented for the tasks list). */
export const localPlay = (tasks: string) => `- hosts: localhost
  gather_facts: false
  tasks:
${tasks}`;

/**
 * A kubeconfig for ServiceAccount `name` of `namespace` (a token from the TokenRequest API, as
 * `kubectl create token` asks for it), with the cluster entry of the admin kubeconfig.
 */
export async function serviceAccountKubeconfig(
  kubectl: (args: string[]) => Promise<{ stdout: string }>,
  adminKubeconfig: string,
  namespace: string,
  name: string,
): Promise<string> {
  const token = (await kubectl(["-n", namespace, "create", "token", name])).stdout.trim();
  const doc = parse(readFileSync(adminKubeconfig, "utf8")) as { users: { user: Record<string, string> }[] };
  doc.users[0].user = { token };
  const path = join(caseDir("mr-sa-"), "kubeconfig");
  writeFileSync(path, stringify(doc), { mode: 0o600 });
  return path;
}
