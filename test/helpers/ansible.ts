// ansible-playbook against a test cluster, as a user runs it: a local inventory, the cluster's
// kubeconfig for kubectl and kubernetes.core, no colour. Never rejects: the exit code and the
// whole output (stdout then stderr) come back for the test to judge.
import { execa } from "execa";
import type { TestCluster } from "./cluster.js";

const INVENTORY = "[local]\nlocalhost ansible_connection=local ansible_python_interpreter=/usr/bin/python3\n";

export async function playbook(
  t: TestCluster,
  file: string,
): Promise<{ out: string; code: number | undefined }> {
  const r = await execa("ansible-playbook", ["-i", t.file("inventory.ini", INVENTORY), file], {
    env: {
      KUBECONFIG: t.kubeconfig,
      K8S_AUTH_KUBECONFIG: t.kubeconfig,
      ANSIBLE_NOCOLOR: "1",
      ANSIBLE_LOCALHOST_WARNING: "0",
    },
    reject: false,
    timeout: 240_000,
  });
  return { out: `${r.stdout}\n${r.stderr}`, code: r.exitCode };
}
