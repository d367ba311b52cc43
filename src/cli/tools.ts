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
      process.env.MICROREMED_ANSIBLE_PLAYBOOK || "ansible-playbook",
      ["--version"],
      "install Ansible: scripts/setup.sh, or apt-get install ansible python3-kubernetes",
    ),
  ]);
}

/**
 * kubectl is needed by everything (the probe, the playbooks); a missing ansible-playbook is
 * said at once, and each case that needs it ends as an error of the run (tool-missing), which the
 * next `run` re-runs once it is installed. (A cmd: agent that acts by itself needs no ansible.)
 */
export async function checkTools(warn: (line: string) => void = () => {}): Promise<void> {
  for (const t of await toolStatus()) {
    if (t.found) continue;
    if (t.name === "kubectl") throw missingTool(t.name, t.fix);
    warn(
      `warning: ${t.name} was not found: cases that run a playbook will end as errors (tool-missing); ${t.fix}`,
    );
  }
}
