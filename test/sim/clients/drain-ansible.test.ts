// kubernetes.core's own drain and CRD flows against the embedded cluster, with
// Debian's ansible-playbook. The drain play follows the collection's integration target
// tests/integration/targets/k8s_drain/tasks/main.yml (cordon/uncordon idempotency, a drain refused
// for DaemonSet-managed, unmanaged and emptyDir pods, then forced); the CRD play applies a CRD,
// waits for Established and reads back a custom resource with its schema defaults.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { playbook } from "../../helpers/ansible.js";
import { startTestCluster, type TestCluster } from "../../helpers/cluster.js";

const DRAIN = `
- hosts: localhost
  gather_facts: false
  vars:
    ns: drain
    node: k3s-server
  tasks:
    - kubernetes.core.k8s: {kind: Namespace, name: "{{ ns }}"}
    - name: Wait for default serviceaccount to be created
      kubernetes.core.k8s_info: {kind: ServiceAccount, name: default, namespace: "{{ ns }}", wait: true}
    - kubernetes.core.k8s:
        namespace: "{{ ns }}"
        definition:
          apiVersion: apps/v1
          kind: DaemonSet
          metadata: {name: exporter}
          spec:
            selector: {matchLabels: {name: exporter}}
            template:
              metadata: {labels: {name: exporter}}
              spec: {containers: [{name: prometheus, image: "nginx:1.25"}]}
    - kubernetes.core.k8s:
        namespace: "{{ ns }}"
        wait: true
        definition:
          apiVersion: v1
          kind: Pod
          metadata: {name: pod-drain}
          spec: {containers: [{name: c0, image: "nginx:1.25"}]}
    - kubernetes.core.k8s:
        namespace: "{{ ns }}"
        wait: true
        definition:
          apiVersion: apps/v1
          kind: Deployment
          metadata: {name: emptydir}
          spec:
            replicas: 1
            selector: {matchLabels: {drain: emptyDir}}
            template:
              metadata: {labels: {drain: emptyDir}}
              spec:
                containers: [{name: c0, image: "nginx:1.25", volumeMounts: [{mountPath: /emptydir, name: emptydir}]}]
                volumes: [{name: emptydir, emptyDir: {}}]
    - name: Cordon node
      kubernetes.core.k8s_drain: {state: cordon, name: "{{ node }}"}
      register: cordon
    - name: Cordon again
      kubernetes.core.k8s_drain: {state: cordon, name: "{{ node }}"}
      register: cordon2
    - ansible.builtin.assert: {that: [cordon is changed, cordon2 is not changed]}
    - name: Uncordon node
      kubernetes.core.k8s_drain: {state: uncordon, name: "{{ node }}"}
      register: uncordon
    - name: Uncordon again
      kubernetes.core.k8s_drain: {state: uncordon, name: "{{ node }}"}
      register: uncordon2
    - ansible.builtin.assert: {that: [uncordon is changed, uncordon2 is not changed]}
    - name: Drain node
      kubernetes.core.k8s_drain: {state: drain, name: "{{ node }}"}
      ignore_errors: true
      register: refused
    - ansible.builtin.assert:
        that:
          - refused is failed
          - '"cannot delete DaemonSet-managed Pods" in refused.msg'
          - '"cannot delete Pods not managed by ReplicationController, ReplicaSet, Job, DaemonSet or StatefulSet" in refused.msg'
          - '"cannot delete Pods with local storage" in refused.msg'
    - name: Drain node with force, ignore_daemonsets and delete_emptydir_data
      kubernetes.core.k8s_drain:
        state: drain
        name: "{{ node }}"
        delete_options: {force: true, ignore_daemonsets: true, delete_emptydir_data: true, wait_timeout: 60}
      register: drained
    - ansible.builtin.assert:
        that: [drained is changed, "('node ' ~ node ~ ' marked unschedulable.') in drained.result"]
    - kubernetes.core.k8s_info: {namespace: "{{ ns }}", kind: Pod, name: pod-drain}
      register: unmanaged
    - kubernetes.core.k8s_info: {namespace: "{{ ns }}", kind: Pod, label_selectors: [name=exporter]}
      register: daemon
    - ansible.builtin.assert:
        that: [unmanaged.resources | length == 0, daemon.resources | length == 1]
    - kubernetes.core.k8s_drain: {state: uncordon, name: "{{ node }}"}
`;

const CRD = `
- hosts: localhost
  gather_facts: false
  tasks:
    - kubernetes.core.k8s:
        wait: true
        wait_condition: {type: Established, status: "True"}
        definition:
          apiVersion: apiextensions.k8s.io/v1
          kind: CustomResourceDefinition
          metadata: {name: certs.example.com}
          spec:
            group: example.com
            scope: Namespaced
            names: {plural: certs, kind: Cert}
            versions:
              - name: v1
                served: true
                storage: true
                schema:
                  openAPIV3Schema:
                    type: object
                    properties:
                      spec:
                        type: object
                        properties:
                          days: {type: integer, default: 90}
                          host: {type: string}
    - kubernetes.core.k8s:
        definition:
          apiVersion: example.com/v1
          kind: Cert
          metadata: {name: web, namespace: default}
          spec: {host: web.example.com}
    - kubernetes.core.k8s_info: {api_version: example.com/v1, kind: Cert, namespace: default, name: web}
      register: cert
    - ansible.builtin.assert:
        that:
          - cert.resources[0].spec.days == 90
          - cert.resources[0].spec.host == "web.example.com"
`;

let t: TestCluster;
const play = (file: string) => playbook(t, file);

beforeAll(async () => {
  t = await startTestCluster(30);
});
afterAll(() => t?.stop());

describe("kubernetes.core against the embedded cluster", () => {
  it("cordons, uncordons and drains as its k8s_drain integration target expects", async () => {
    const r = await play(t.file("drain.yml", DRAIN));
    expect(r.code, r.out).toBe(0);
  }, 300_000);

  it("applies a CRD, waits for Established and reads a custom resource with its defaults", async () => {
    const r = await play(t.file("crd.yml", CRD));
    expect(r.code, r.out).toBe(0);
  }, 300_000);
});
