// The executor names how a run ended (timeout,
// interrupted, tool-missing, syntax, task-failed, unreachable) and returns ansible's task results
// as data. Tiny real executables stand in for ansible-playbook where its behaviour is the point
// (a run that never ends, one that is not installed); real ansible-playbook everywhere else.
// ansible-playbook's exit codes: https://docs.ansible.com/ansible/latest/cli/ansible-playbook.html
// (0 ok, 2 a host failed, 3 a host unreachable, 4 parser error).
import { chmodSync, existsSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AnsibleExecutor } from "../../src/ansible/executor.js";
import type { SandboxMode } from "../../src/sandbox/support.js";
import { startTestCluster, type TestCluster } from "../helpers/cluster.js";
import { caseDir, executor, localPlay, play, serviceAccountKubeconfig } from "../sandbox/helpers.js";

let tc: TestCluster;
beforeAll(async () => {
  tc = await startTestCluster(30, 11);
  await tc.kubectl(["create", "namespace", "exec-test"]);
});
afterAll(() => tc.stop());

/** An ansible-playbook that passes the syntax check, says it started (in its working folder, the case's), and never ends. */
function hangingAnsible(): string {
  const bin = join(mkdtempSync(join(tmpdir(), "mr-fake-ansible-")), "ansible-playbook");
  writeFileSync(
    bin,
    `#!/bin/sh\ncase "$1" in --syntax-check) exit 0;; esac\necho started > started\nexec sleep 3600\n`,
  );
  chmodSync(bin, 0o755);
  return bin;
}

const MODES: SandboxMode[] = ["bwrap", "none"];

describe.each(MODES)("causes (--sandbox %s)", (mode) => {
  it("a playbook past its limit ends with cause timeout", async () => {
    const r = await play(
      executor(tc.kubeconfig, mode, 1500, hangingAnsible()),
      localPlay("    - ansible.builtin.ping:\n"),
    );
    expect(r).toMatchObject({ cause: "timeout", timedOut: true, ok: false, accepted: true, sandbox: mode });
    expect(r.problems[0]).toMatch(/timed out after 2 s and was killed/);
  }, 60_000);

  it("a run stopped by the caller's signal ends with cause interrupted", async () => {
    const dir = caseDir();
    const ac = new AbortController();
    const pending = play(
      executor(tc.kubeconfig, mode, 600_000, hangingAnsible()),
      localPlay("    - ansible.builtin.ping:\n"),
      {
        dir,
        signal: ac.signal,
      },
    );
    while (!existsSync(join(dir, "started"))) await new Promise((res) => setTimeout(res, 20));
    ac.abort();
    const r = await pending;
    expect(r).toMatchObject({ cause: "interrupted", ok: false, timedOut: false });
  }, 60_000);

  it("a missing ansible-playbook is cause tool-missing, an error of the run", async () => {
    const r = await play(
      executor(tc.kubeconfig, mode, 60_000, join(tmpdir(), "no-such-dir", "ansible-playbook")),
      localPlay("    - ansible.builtin.ping:\n"),
    );
    expect(r).toMatchObject({ cause: "tool-missing", exitCode: 127, accepted: false, ok: false, tasks: [] });
    expect(r.output).toMatch(/ansible-playbook was not found on PATH/);
  }, 60_000);
});

describe("ansible's results as data", () => {
  it("lists each task's name, module, status and message", async () => {
    const r = await play(
      executor(tc.kubeconfig),
      localPlay(`    - name: say hello
      ansible.builtin.debug: {msg: hello}
    - name: read pods
      kubernetes.core.k8s_info: {kind: Pod, namespace: exec-test}
    - name: make a config map
      kubernetes.core.k8s:
        state: present
        definition: {apiVersion: v1, kind: ConfigMap, metadata: {name: c1, namespace: exec-test}}
    - name: never
      ansible.builtin.command: "true"
      when: false
    - name: allowed to fail
      ansible.builtin.fail: {msg: tolerated}
      ignore_errors: true
`),
      { namespace: "exec-test" },
    );
    expect(r.ok, r.output).toBe(true);
    expect(r.cause).toBeUndefined();
    expect(r.tasks.map(({ name, module, status }) => [name, module, status])).toEqual([
      ["say hello", "ansible.builtin.debug", "ok"],
      ["read pods", "kubernetes.core.k8s_info", "ok"],
      ["make a config map", "kubernetes.core.k8s", "changed"],
      ["never", "ansible.builtin.command", "skipped"],
      ["allowed to fail", "ansible.builtin.fail", "failed"],
    ]);
    expect(r.tasks[0].message).toBe("hello");
    expect(r.tasks[4]).toMatchObject({ message: "tolerated", ignored: true, host: "localhost" });
    for (const t of r.tasks) expect(t.durationMs).toBeGreaterThanOrEqual(0);
    // the plain output is kept as before
    expect(r.output).toContain("PLAY RECAP");
  }, 120_000);

  it("a failing task is cause task-failed, named with its module and message", async () => {
    const r = await play(
      executor(tc.kubeconfig),
      localPlay(`    - name: scale what is not there
      ansible.builtin.command: kubectl -n exec-test scale deployment ghost --replicas=2
`),
    );
    expect(r).toMatchObject({ accepted: true, ok: false, cause: "task-failed", exitCode: 2 });
    expect(r.tasks).toEqual([
      expect.objectContaining({
        name: "scale what is not there",
        module: "ansible.builtin.command",
        status: "failed",
      }),
    ]);
    expect(r.tasks[0].message).toMatch(
      /^non-zero return code: error: (no objects passed to scale|.*"ghost" not found)/,
    );
    expect(r.problems[0]).toMatch(
      /^task "scale what is not there" \(ansible.builtin.command\) failed: non-zero return code: error: /,
    );
  }, 120_000);

  it("a playbook ansible cannot parse is cause invalid-playbook (a reason code), with ansible's message", async () => {
    const r = await play(
      executor(tc.kubeconfig),
      localPlay("    - name: nope\n      no.such.module: {x: 1}\n"),
    );
    expect(r).toMatchObject({ accepted: false, ok: false, cause: "invalid-playbook", tasks: [] });
    expect(r.problems[0]).toMatch(/could not parse the playbook: .*no.such.module/);
  }, 120_000);

  it("a host it cannot reach is cause unreachable", async () => {
    const dir = caseDir();
    const inventory = join(dir, "inventory.ini");
    writeFileSync(inventory, "[far]\nfaraway ansible_host=127.0.0.1 ansible_port=1 ansible_connection=ssh\n");
    const ex = new AnsibleExecutor({
      inventory,
      kubeconfig: tc.kubeconfig,
      timeoutMs: 120_000,
      sandbox: "bwrap",
    });
    const r = await ex.run("- hosts: far\n  gather_facts: false\n  tasks:\n    - ansible.builtin.ping:\n", {
      caseDir: dir,
      name: "playbook-1",
      namespace: "exec-test",
    });
    expect(r).toMatchObject({ accepted: true, ok: false, cause: "unreachable" });
    expect(r.tasks).toEqual([expect.objectContaining({ host: "faraway", status: "unreachable" })]);
  }, 120_000);
});

describe("collections installed outside ansible's own package", () => {
  it("are found in the sandbox at the paths the user's ansible uses (ANSIBLE_COLLECTIONS_PATH)", async () => {
    // ansible finds a collection as ansible_collections/<namespace>/<name>/plugins/modules/<module>.py
    // under each collections path: https://docs.ansible.com/ansible/latest/collections_guide/collections_installing.html
    const root = mkdtempSync(join(tmpdir(), "mr-collections-"));
    const modules = join(root, "ansible_collections", "mrtest", "tools", "plugins", "modules");
    mkdirSync(modules, { recursive: true });
    writeFileSync(
      join(modules, "hello.py"),
      "from ansible.module_utils.basic import AnsibleModule\n" +
        "def main():\n    m = AnsibleModule(argument_spec={})\n    m.exit_json(changed=False, msg='hello from a collection')\n" +
        "if __name__ == '__main__':\n    main()\n",
    );
    process.env.ANSIBLE_COLLECTIONS_PATH = root;
    try {
      const r = await play(
        executor(tc.kubeconfig),
        localPlay("    - name: collection module\n      mrtest.tools.hello:\n"),
      );
      expect(r.ok, r.output).toBe(true);
      expect(r.tasks[0]).toMatchObject({
        module: "mrtest.tools.hello",
        status: "ok",
        message: "hello from a collection",
      });
    } finally {
      delete process.env.ANSIBLE_COLLECTIONS_PATH;
    }
  }, 120_000);
});

describe("without a usable kubeconfig", () => {
  it("the playbook still runs, with a warning that it had no cluster", async () => {
    const r = await play(
      executor("/nonexistent/kubeconfig"),
      localPlay("    - ansible.builtin.debug: {msg: hi}\n"),
    );
    expect(r.ok, r.output).toBe(true);
    expect(r.warnings).toEqual([
      expect.stringMatching(
        /^no cluster for the playbook: the kubeconfig \/nonexistent\/kubeconfig could not be used/,
      ),
    ]);
  }, 60_000);
});

describe("the denylist is a warning, not a guard", () => {
  it("runs a playbook that lists StressChaos objects, recording what check.ts noticed", async () => {
    const r = await play(
      executor(tc.kubeconfig),
      localPlay(`    - name: list chaos
      kubernetes.core.k8s_info:
        api_version: chaos-mesh.org/v1alpha1
        kind: StressChaos
        namespace: exec-test
    - name: look at another namespace
      ansible.builtin.command: kubectl -n kube-system get pods
`),
      { namespace: "exec-test" },
    );
    expect(r.accepted).toBe(true);
    expect(r.ok, r.output).toBe(true);
    expect(r.tasks.map((t) => t.status)).toEqual(["ok", "changed"]);
    expect(r.warnings).toEqual(expect.arrayContaining([expect.stringMatching(/kube-system/)]));
  }, 120_000);

  it("what the identity may not do is refused by the cluster's RBAC, and recorded as the cluster said it", async () => {
    // an identity that may edit workloads in exec-test and nothing on chaos-mesh.org, as a case's
    await tc.kubectl(["-n", "exec-test", "create", "serviceaccount", "agent"]);
    await tc.kubectl([
      "-n",
      "exec-test",
      "create",
      "rolebinding",
      "agent-edit",
      "--clusterrole=edit",
      "--serviceaccount=exec-test:agent",
    ]);
    const kubeconfig = await serviceAccountKubeconfig(
      (a) => tc.kubectl(a),
      tc.kubeconfig,
      "exec-test",
      "agent",
    );
    const r = await play(
      executor(kubeconfig),
      localPlay(`    - name: list chaos
      kubernetes.core.k8s_info: {api_version: chaos-mesh.org/v1alpha1, kind: StressChaos, namespace: exec-test}
`),
      { namespace: "exec-test" },
    );
    expect(r).toMatchObject({ accepted: true, ok: false, cause: "task-failed" });
    // the API's own Status message, as kubectl would print it, not the Python client's traceback
    expect(r.tasks[0].message).toBe(
      'Forbidden (403): stresschaos.chaos-mesh.org is forbidden: User "system:serviceaccount:exec-test:agent" cannot list resource "stresschaos" in API group "chaos-mesh.org" in the namespace "exec-test"',
    );
  }, 120_000);
});
