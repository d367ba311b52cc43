import { describe, expect, it } from "vitest";
import { checkPlaybook } from "../../src/ansible/check.js";
import { NOOP_PLAYBOOK } from "../../src/llm/builtin/noop.js";
import { oraclePlaybook } from "../../src/llm/builtin/oracle.js";

const play = (task: string) => `- hosts: localhost\n  gather_facts: false\n  tasks:\n    - ${task}\n`;

describe("playbook checks", () => {
  it("accepts the built-in models' playbooks", () => {
    expect(checkPlaybook(oraclePlaybook([{ failure: "cpu-stress", service: "a" }], "ns1"), "ns1").ok).toBe(
      true,
    );
    expect(checkPlaybook(NOOP_PLAYBOOK, "ns1").ok).toBe(true);
  });

  it("rejects what is not a playbook", () => {
    expect(checkPlaybook("a: [", "ns").problems[0]).toMatch(/not valid YAML/);
    expect(checkPlaybook("hosts: localhost\n", "ns").problems[0]).toMatch(/list of plays/);
  });

  it("keeps changes inside the target namespace", () => {
    expect(checkPlaybook(play("shell: kubectl -n other delete pod x"), "ns").ok).toBe(false);
    expect(checkPlaybook(play("shell: kubectl --namespace=kube-system get pods"), "ns").ok).toBe(false);
    expect(checkPlaybook(play("shell: kubectl delete pods --all -A"), "ns").ok).toBe(false);
    expect(checkPlaybook(play("shell: kubectl delete namespace ns"), "ns").ok).toBe(false);
    expect(
      checkPlaybook(play("kubernetes.core.k8s: {state: absent, kind: Pod, name: x, namespace: other}"), "ns")
        .ok,
    ).toBe(false);
    expect(
      checkPlaybook(play("kubernetes.core.k8s: {state: absent, kind: Pod, name: x, namespace: ns}"), "ns").ok,
    ).toBe(true);
    expect(checkPlaybook(play("shell: kubectl -n ns rollout restart deploy/a"), "ns").ok).toBe(true);
  });
});
