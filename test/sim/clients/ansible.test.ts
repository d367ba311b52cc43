// Debian's ansible-playbook with kubernetes.core against the embedded cluster.
// The collection's waiter (plugins/module_utils/k8s/waiter.py, clock()) sleeps wait_sleep seconds
// of wall time between its checks, 5 unless told: the plays check every second, the least it takes.
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestCluster, type TestCluster } from "../../helpers/cluster.js";

const PLAYBOOK = `
- hosts: localhost
  gather_facts: false
  vars:
    ns: ansible-test
  tasks:
    - name: namespace
      kubernetes.core.k8s:
        state: present
        definition: {apiVersion: v1, kind: Namespace, metadata: {name: "{{ ns }}"}}
    - name: deployment
      kubernetes.core.k8s:
        state: present
        wait: true
        wait_timeout: 60
        wait_sleep: 1
        definition:
          apiVersion: apps/v1
          kind: Deployment
          metadata: {name: api, namespace: "{{ ns }}"}
          spec:
            replicas: 1
            selector: {matchLabels: {app: api}}
            template:
              metadata: {labels: {app: api}}
              spec:
                containers:
                  - {name: api, image: "nginx:1.25", resources: {limits: {cpu: 200m, memory: 128Mi}}}
    - name: chaos
      kubernetes.core.k8s:
        state: present
        definition:
          apiVersion: chaos-mesh.org/v1alpha1
          kind: StressChaos
          metadata: {name: cpu-stress, namespace: "{{ ns }}"}
          spec:
            mode: one
            selector: {namespaces: ["{{ ns }}"], labelSelectors: {app: api}}
            stressors: {cpu: {workers: 1, load: 50}}
    - name: read pods
      kubernetes.core.k8s_info:
        kind: Pod
        namespace: "{{ ns }}"
        label_selectors: [app=api]
      register: pods
    - name: there is one pod
      ansible.builtin.assert:
        that: [pods.resources | length == 1]
    - name: scale
      kubernetes.core.k8s_scale:
        kind: Deployment
        name: api
        namespace: "{{ ns }}"
        replicas: 2
        wait_timeout: 60
        wait_sleep: 1
    - name: kubectl through the shell
      ansible.builtin.shell: kubectl -n {{ ns }} get deploy api -o jsonpath='{.status.readyReplicas}'
      register: ready
      changed_when: false
    - name: both ready
      ansible.builtin.assert:
        that: [ready.stdout == "2"]
    - name: scale back
      kubernetes.core.k8s_scale: {kind: Deployment, name: api, namespace: "{{ ns }}", replicas: 1, wait_timeout: 60, wait_sleep: 1}
`;

const CLEANUP = `
- hosts: localhost
  gather_facts: false
  tasks:
    - kubernetes.core.k8s:
        state: absent
        api_version: chaos-mesh.org/v1alpha1
        kind: StressChaos
        name: cpu-stress
        namespace: ansible-test
    - kubernetes.core.k8s:
        state: absent
        api_version: apps/v1
        kind: Deployment
        name: api
        namespace: ansible-test
        wait: true
        wait_sleep: 1
`;

let t: TestCluster;
const inventory = "[local]\nlocalhost ansible_connection=local ansible_python_interpreter=/usr/bin/python3\n";

async function play(file: string) {
  const r = await execa("ansible-playbook", ["-i", t.file("inventory.ini", inventory), file], {
    env: {
      KUBECONFIG: t.kubeconfig,
      K8S_AUTH_KUBECONFIG: t.kubeconfig,
      ANSIBLE_NOCOLOR: "1",
      ANSIBLE_LOCALHOST_WARNING: "0",
    },
    reject: false,
    timeout: 240_000,
  });
  return { out: String(r.stdout), code: r.exitCode };
}

const recap = (out: string) =>
  out.match(/localhost\s+:\s+ok=(\d+)\s+changed=(\d+)\s+unreachable=(\d+)\s+failed=(\d+)/);

beforeAll(async () => {
  t = await startTestCluster(30);
});
afterAll(() => t?.stop());

describe("ansible-playbook with kubernetes.core", () => {
  it("creates, reads, scales and shells out; a second run changes nothing", async () => {
    const file = t.file("site.yml", PLAYBOOK);
    const first = await play(file);
    expect(first.code, first.out).toBe(0);
    expect(recap(first.out)?.[4]).toBe("0");
    expect(Number(recap(first.out)?.[2])).toBeGreaterThan(0);
    const second = await play(file);
    expect(second.code, second.out).toBe(0);
    // k8s and k8s_info report no change; the two scale tasks change replicas 1 -> 2 -> 1 each run
    const changed = [...second.out.matchAll(/changed: \[localhost\]/g)].length;
    expect(second.out).toMatch(/TASK \[deployment\][\s\S]*?ok: \[localhost\]/);
    expect(second.out).toMatch(/TASK \[chaos\][\s\S]*?ok: \[localhost\]/);
    expect(changed).toBe(2);
  }, 300_000);

  it("deletes with state: absent", async () => {
    const r = await play(t.file("cleanup.yml", CLEANUP));
    expect(r.code, r.out).toBe(0);
    expect((await t.kubectl(["-n", "ansible-test", "get", "deploy,stresschaos", "-o", "name"])).stdout).toBe(
      "",
    );
  }, 300_000);
});
