// The tools a run needs on PATH, checked before anything starts, with the fix for each.
import { execa } from "execa";
import { missingTool } from "../errors.js";

export interface ToolStatus {
  name: string;
  found: boolean;
  version?: string;
  fix: string;
}

async function probe(name: string, args: string[], fix: string): Promise<ToolStatus> {
  const r = await execa(name, args, { reject: false, timeout: 20_000 });
  const found = !(r.failed && (r as { code?: string }).code === "ENOENT") && r.exitCode !== 127;
  return {
    name,
    found,
    version: found
      ? String(r.stdout || r.stderr)
          .split("\n")[0]
          .trim()
      : undefined,
    fix,
  };
}

export async function toolStatus(): Promise<ToolStatus[]> {
  return Promise.all([
    probe("kubectl", ["version", "--client"], "install kubectl (scripts/setup.sh does it)"),
    probe(
      "ansible-playbook",
      ["--version"],
      "install Ansible: scripts/setup.sh, or apt-get install ansible python3-kubernetes",
    ),
  ]);
}

export async function checkTools(): Promise<void> {
  for (const t of await toolStatus()) if (!t.found) throw missingTool(t.name, t.fix);
}
