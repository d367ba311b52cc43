// What a model sees when it looks, gathered by a cmd: agent acting as the case's identity: its own
// sandbox (environment, working folder, processes), its kubeconfig, every object and event of
// the namespace, the node, and inside every container its processes, mounts, disk use, the
// usual scratch folders, its volumes and its log; then the playbook it prints looks at its own
// environment and processes as ansible runs it. The fingerprint tests read it for any trace of the harness.
import { chmodSync, existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { expect } from "vitest";
import { cli, readCases, tmp, write } from "../cli/cli-helpers.js";

const LOOK = `#!/bin/sh
cat >/dev/null
{
echo "== whoami"; kubectl auth whoami 2>&1
echo "== config"; kubectl config view 2>&1
echo "== namespace"; kubectl get namespace "$(kubectl config view --minify -o jsonpath='{..namespace}')" -o yaml 2>&1
echo "== objects"; kubectl get all,events,serviceaccounts,roles,rolebindings,configmaps,networkpolicies,endpoints,endpointslices,persistentvolumeclaims -o yaml 2>&1
echo "== nodes"; kubectl describe nodes 2>&1
echo "== describe"; kubectl describe pods 2>&1
for p in $(kubectl get pods -o name); do
  for c in $(kubectl get "$p" -o jsonpath='{.spec.containers[*].name}'); do
    echo "== $p $c"
    mounts=$(kubectl get "$p" -o jsonpath="{.spec.containers[?(@.name=='$c')].volumeMounts[*].mountPath}")
    kubectl exec "$p" -c "$c" -- sh -c 'ps -ef 2>/dev/null || ps; cat /proc/mounts; df 2>&1; ls -la / /tmp /var/tmp /var/log /dev/shm "$@" 2>&1; hostname' sh $mounts 2>&1
    kubectl logs "$p" -c "$c" --tail=40 2>&1
  done
done
echo "== self"; env | sort; pwd; ls -la . / /tmp "$HOME" 2>&1; ps -ef 2>&1
} >&2
# and a playbook that looks at its own run: what ansible's environment and processes show
cat <<'YAML'
- hosts: localhost
  gather_facts: false
  tasks:
    - name: look
      ansible.builtin.shell: 'env | sort; pwd; ls -la . "$HOME" /tmp; ps -ef'
      register: looked
    - ansible.builtin.debug:
        var: looked.stdout_lines
YAML
`;

/** Words that would tell a test from an incident, besides the run's own folder. */
export const TELLTALES = /microremed|harness|benchmark|case-\d{3}|oracle|noop|chaos-?check/i;

export interface Looked {
  /** What the agent saw, per case, in the experiment's order. */
  seen: string[];
  /** The run's folder on the host: it must not show inside either. */
  saveDir: string;
}

/** Runs the looking agent over `experiment` (YAML) on the embedded cluster. */
export async function look(env: string, experiment: string, extra: string[] = []): Promise<Looked> {
  const saveDir = tmp("mr-fp-");
  // the agent is the user's own program, from a folder of its own
  const script = write(tmp("agent-"), "look.sh", LOOK);
  chmodSync(script, 0o755);
  const exp = write(saveDir, "exp.yaml", experiment);
  const r = await cli(
    [
      "run",
      "--env",
      env,
      "--model",
      "noop",
      "--remediate-method",
      `cmd:${script}`,
      "--experiment-path",
      exp,
      "--save-path",
      saveDir,
      "--run-name",
      "look",
      "--speed",
      "600",
      "--settle",
      "5",
      ...extra,
    ],
    { timeout: 1_800_000 },
  );
  expect(r.exitCode, r.stderr).toBe(0);
  const runDir = join(saveDir, "look");
  const cases = readCases(runDir);
  // a case whose fault did not show never reached the agent
  const seen = cases
    .map((_, i) => join(runDir, `case-${String(i + 1).padStart(3, "0")}`))
    .filter((d) => existsSync(join(d, "agent.stderr")))
    .map((d) => {
      const played = join(d, "playbook-1.log");
      const playbook = existsSync(played) ? readFileSync(played, "utf8") : "(no playbook ran)\n";
      return `${readFileSync(join(d, "agent.stderr"), "utf8")}== playbook\n${playbook}`;
    });
  return { seen, saveDir };
}

/** The lines of `seen` that name the harness or the run's folder. */
export function traces(seen: string, saveDir: string): string[] {
  return (
    seen
      .split("\n")
      .filter((l) => TELLTALES.test(l) || l.includes(saveDir))
      // Kubernetes' own wording for a projected volume ("contains injected data") is not ours
      .filter((l) => !/Projected \(a volume that contains injected data/.test(l))
  );
}
