// A one-off Job from a playbook, as kubernetes.core's own integration tests wait for one: the k8s
// module with `wait: true` and a `wait_condition` (plugins/module_utils/k8s/waiter.py has no Job
// predicate of its own, so a Job is waited for by its Complete / Failed condition), then
// k8s_info on its pods and k8s_log on the job. Conditions as kube's job controller sets them
// (pkg/controller/job/job_controller.go): Complete / CompletionsReached, Failed /
// BackoffLimitExceeded. The waiter sleeps wait_sleep seconds of wall time between checks (5
// unless told); the plays check every second, the least it takes.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { playbook } from "../../helpers/ansible.js";
import { startTestCluster, type TestCluster } from "../../helpers/cluster.js";

const PLAYBOOK = `
- hosts: localhost
  gather_facts: false
  vars:
    ns: batch-test
  tasks:
    - name: namespace
      kubernetes.core.k8s:
        state: present
        definition: {apiVersion: v1, kind: Namespace, metadata: {name: "{{ ns }}"}}
    - name: run a job to completion
      kubernetes.core.k8s:
        state: present
        wait: true
        wait_condition: {type: Complete, status: "True"}
        wait_timeout: 120
        wait_sleep: 1
        definition:
          apiVersion: batch/v1
          kind: Job
          metadata: {name: migrate, namespace: "{{ ns }}"}
          spec:
            backoffLimit: 2
            template:
              spec:
                restartPolicy: Never
                containers:
                  - name: migrate
                    image: busybox:1.36
                    command: [sh, -c, "echo migrating; sleep 5; echo done"]
      register: job
    - name: the job succeeded
      ansible.builtin.assert:
        that:
          - job.result.status.succeeded == 1
          - (job.result.status.conditions | selectattr('type', 'equalto', 'Complete') | first).reason == 'CompletionsReached'
    - name: its pod
      kubernetes.core.k8s_info:
        kind: Pod
        namespace: "{{ ns }}"
        label_selectors: ["job-name=migrate"]
      register: pods
    - name: one pod that succeeded
      ansible.builtin.assert:
        that:
          - pods.resources | length == 1
          - pods.resources[0].status.phase == 'Succeeded'
    - name: its log
      kubernetes.core.k8s_log:
        namespace: "{{ ns }}"
        name: "{{ pods.resources[0].metadata.name }}"
      register: log
    - name: the log has what it printed
      ansible.builtin.assert:
        that:
          # the log ends with a newline, so k8s_log's last line is empty (as against any cluster)
          - "log.log_lines | select | list == ['migrating', 'done']"
    - name: a job that fails
      kubernetes.core.k8s:
        state: present
        wait: true
        wait_condition: {type: Failed, status: "True"}
        wait_timeout: 120
        wait_sleep: 1
        definition:
          apiVersion: batch/v1
          kind: Job
          metadata: {name: broken, namespace: "{{ ns }}"}
          spec:
            backoffLimit: 0
            template:
              spec:
                restartPolicy: Never
                containers: [{name: c, image: busybox:1.36, command: [/bin/false]}]
      register: broken
    - name: it failed for its backoff limit
      ansible.builtin.assert:
        that:
          - (broken.result.status.conditions | selectattr('type', 'equalto', 'Failed') | first).reason == 'BackoffLimitExceeded'
`;

const CLEANUP = `
- hosts: localhost
  gather_facts: false
  tasks:
    - kubernetes.core.k8s:
        state: absent
        api_version: batch/v1
        kind: Job
        name: "{{ item }}"
        namespace: batch-test
        delete_options: {propagationPolicy: Background}
        wait: true
        wait_sleep: 1
      loop: [migrate, broken]
`;

let t: TestCluster;
const play = (file: string) => playbook(t, file);

beforeAll(async () => {
  t = await startTestCluster(30);
});
afterAll(() => t?.stop());

describe("a Job from ansible-playbook with kubernetes.core", () => {
  it("waits for Complete and Failed, reads the pod and its log; a second run changes nothing", async () => {
    const file = t.file("jobs.yml", PLAYBOOK);
    const first = await play(file);
    expect(first.code, first.out).toBe(0);
    expect(first.out).toMatch(/localhost\s+:\s+ok=\d+\s+changed=3\s+unreachable=0\s+failed=0/);
    const second = await play(file);
    expect(second.code, second.out).toBe(0);
    expect(second.out).toMatch(/localhost\s+:\s+ok=\d+\s+changed=0\s+unreachable=0\s+failed=0/);
  }, 300_000);

  it("deletes the jobs and their pods with state: absent", async () => {
    const r = await play(t.file("cleanup.yml", CLEANUP));
    expect(r.code, r.out).toBe(0);
    const left = await t.kubectl(["-n", "batch-test", "get", "jobs,pods", "-o", "name"]);
    expect(left.stdout).toBe("");
  }, 300_000);
});
