// A playbook runs in a bubblewrap sandbox — it cannot read the user's files,
// write outside its case's folder, see the runner's environment, reach the network (only the
// cluster's API, through the proxy that logs each request), or leave a process behind.
// Through the real executor, real bwrap and real ansible-playbook on the embedded cluster.
// bwrap's options: https://github.com/containers/bubblewrap/blob/main/bwrap.xml
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { homedir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestCluster, type TestCluster } from "../helpers/cluster.js";
import { caseDir, executor, localPlay, play, processesWith } from "./helpers.js";

let tc: TestCluster;
beforeAll(async () => {
  tc = await startTestCluster(30, 7);
  await tc.kubectl(["create", "namespace", "sbx"]);
});
afterAll(() => tc.stop());

describe("a sandboxed playbook", () => {
  it("cannot read a file in the user's HOME or in /root", async () => {
    const secret = join(homedir(), `.microremed-secret-${process.pid}`);
    writeFileSync(secret, "the-user-secret-42");
    try {
      const r = await play(
        executor(tc.kubeconfig),
        localPlay(`    - name: read home
      ansible.builtin.slurp: {src: "${secret}"}
      ignore_errors: true
    - name: read root
      ansible.builtin.shell: cat /root/.bashrc ${secret} ; ls -a /root ${homedir()}
      ignore_errors: true
`),
      );
      expect(r.tasks.map((t) => [t.name, t.status])).toEqual([
        ["read home", "failed"],
        ["read root", "failed"],
      ]);
      expect(r.tasks[0].message).toMatch(/not found|No such file/i);
      expect(r.output).not.toContain("the-user-secret-42");
      expect(readFileSync(join(r.dir, "playbook-1.tasks.jsonl"), "utf8")).not.toContain("the-user-secret-42");
    } finally {
      rmSync(secret, { force: true });
    }
  }, 120_000);

  it("writes only inside its case's folder", async () => {
    const outside = caseDir("mr-outside-");
    const escaped = `/usr/microremed-escape-${process.pid}`;
    const r = await play(
      executor(tc.kubeconfig),
      localPlay(`    - name: write outside
      ansible.builtin.shell: echo x > ${outside}/planted
      ignore_errors: true
    - name: remount the system read-write
      ansible.builtin.shell: mount -o remount,rw,bind /usr && touch ${escaped}
      ignore_errors: true
    - name: write into the system
      ansible.builtin.copy: {content: "x", dest: /usr/local/bin/planted}
      ignore_errors: true
    - name: write into the case folder
      ansible.builtin.copy: {content: "kept", dest: "{{ playbook_dir }}/note.txt"}
`),
    );
    expect(r.tasks.map((t) => t.status)).toEqual(["failed", "failed", "failed", "changed"]);
    expect(r.tasks[1].message).toMatch(/permission denied/);
    expect(existsSync(escaped)).toBe(false);
    expect(existsSync(join(outside, "planted"))).toBe(false);
    expect(existsSync("/usr/local/bin/planted")).toBe(false);
    expect(readFileSync(join(r.dir, "note.txt"), "utf8")).toBe("kept");
    expect(r.ok).toBe(true);
  }, 120_000);

  it("cannot make the runner write through a link or hang on a FIFO it left in the case folder", async () => {
    const victim = join(caseDir("mr-victim-"), "precious");
    writeFileSync(victim, "untouched");
    const dir = caseDir();
    const ex = executor(tc.kubeconfig);
    // links where the runner writes next (this run's log, the audit log, the next playbook) and a
    // FIFO where it reads this run's task results
    const first = await play(
      ex,
      localPlay(`    - name: plant
      ansible.builtin.shell: |
        ln -sf ${victim} playbook-2.yml
        ln -sf ${victim} api-audit.jsonl
        ln -sf ${victim} playbook-1.log
        rm -f playbook-1.tasks.jsonl; mkfifo playbook-1.tasks.jsonl
`),
      { dir },
    );
    expect(first.ok, first.output).toBe(true);
    const second = await ex.run(localPlay("    - ansible.builtin.debug: {msg: second}\n"), {
      caseDir: dir,
      name: "playbook-2",
      namespace: "default",
    });
    expect(second.ok, second.output).toBe(true);
    expect(readFileSync(victim, "utf8")).toBe("untouched");
    expect(readFileSync(join(dir, "playbook-2.yml"), "utf8")).toContain("msg: second");
  }, 120_000);

  it("sees none of the runner's environment", async () => {
    process.env.OPENAI_API_KEY = "sk-test-not-for-playbooks";
    try {
      const r = await play(
        executor(tc.kubeconfig),
        localPlay(`    - name: key
      ansible.builtin.debug: {msg: "key=[{{ lookup('env', 'OPENAI_API_KEY') }}]"}
    - name: environ
      ansible.builtin.shell: cat /proc/self/environ /proc/1/environ | tr '\\0' '\\n'
      register: environ
    - name: show
      ansible.builtin.debug: {var: environ.stdout_lines}
`),
      );
      expect(r.tasks[0]).toMatchObject({
        name: "key",
        module: "ansible.builtin.debug",
        status: "ok",
        message: "key=[]",
      });
      expect(r.output).not.toContain("sk-test-not-for-playbooks");
      expect(r.output).toContain("KUBECONFIG=");
      expect(r.output).not.toMatch(/OPENAI|ANTHROPIC|LLM_API_KEY/);
    } finally {
      delete process.env.OPENAI_API_KEY;
    }
  }, 120_000);

  it("cannot reach an address outside (no network but the cluster's API)", async () => {
    let hits = 0;
    const server: Server = createServer((_req, res) => {
      hits++;
      res.end("outside");
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const port = (server.address() as { port: number }).port;
    try {
      const r = await play(
        executor(tc.kubeconfig),
        localPlay(`    - name: call out
      ansible.builtin.uri: {url: "http://127.0.0.1:${port}/", timeout: 5}
      ignore_errors: true
    - name: call the cluster's own address
      ansible.builtin.uri: {url: "${tc.cluster.url}/version", timeout: 5}
      ignore_errors: true
`),
      );
      expect(r.tasks.map((t) => t.status)).toEqual(["failed", "failed"]);
      expect(r.tasks[0].message).toMatch(/refused|unreachable|Request failed/i);
      expect(hits).toBe(0);
    } finally {
      server.close();
    }
  }, 120_000);

  it("leaves no process behind: async tasks and setsid children end with the run", async () => {
    const r = await play(
      executor(tc.kubeconfig),
      localPlay(`    - name: async
      ansible.builtin.command: sleep 7771
      async: 3600
      poll: 0
    - name: setsid
      ansible.builtin.shell: setsid nohup sleep 7772 > /dev/null 2>&1 &
    - name: double fork
      ansible.builtin.shell: (sh -c 'sleep 7773 &' &)
    - name: they run while the playbook does
      ansible.builtin.shell: ps -eo args | grep -c '^sleep 777[123]'
      register: running
    - ansible.builtin.assert: {that: ["running.stdout | int == 3"]}
`),
    );
    expect(r.ok, r.output).toBe(true);
    expect(processesWith("sleep 777")).toEqual([]);
  }, 120_000);

  it("reaches the cluster only through the proxy, which logs every API request", async () => {
    const r = await play(
      executor(tc.kubeconfig),
      localPlay(`    - name: create
      kubernetes.core.k8s:
        state: present
        definition: {apiVersion: v1, kind: ConfigMap, metadata: {name: made-inside, namespace: sbx}, data: {a: "1"}}
    - name: kubectl too
      ansible.builtin.command: kubectl -n sbx get configmap made-inside -o jsonpath={.data.a}
      register: got
    - ansible.builtin.assert: {that: ['got.stdout == "1"']}
    - name: forge the log
      ansible.builtin.shell: echo '{"method":"FORGED"}' >> api-audit.jsonl
`),
      { namespace: "sbx" },
    );
    expect(r.ok, r.output).toBe(true);
    expect((await tc.kubectl(["-n", "sbx", "get", "cm", "made-inside", "-o", "name"])).stdout.trim()).toBe(
      "configmap/made-inside",
    );
    // the proxy's lines only: what the playbook wrote into the log is gone
    expect(readFileSync(join(r.dir, "api-audit.jsonl"), "utf8")).not.toContain("FORGED");
    const audit = readFileSync(join(r.dir, "api-audit.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    // ansible's create, named by the proxy from its body (a create's path names no object)
    expect(audit).toContainEqual(
      expect.objectContaining({
        method: "POST",
        path: "/api/v1/namespaces/sbx/configmaps",
        status: 201,
        name: "made-inside",
      }),
    );
    expect(audit).toContainEqual(
      expect.objectContaining({
        method: "GET",
        path: "/api/v1/namespaces/sbx/configmaps/made-inside",
        userAgent: expect.stringMatching(/^kubectl/),
      }),
    );
    for (const e of audit)
      expect(Object.keys(e).sort()).toEqual([
        "method",
        ...(e.method === "POST" && e.name ? ["name"] : []),
        "path",
        "query",
        "status",
        "time",
        "userAgent",
      ]);
  }, 120_000);
});

describe("--sandbox none", () => {
  it("still gives the allowlisted environment and the audit log, and is recorded", async () => {
    process.env.OPENAI_API_KEY = "sk-test-not-for-playbooks";
    const dir = caseDir();
    mkdirSync(join(dir, "sub"));
    try {
      const r = await play(
        executor(tc.kubeconfig, "none"),
        localPlay(`    - name: key
      ansible.builtin.debug: {msg: "key=[{{ lookup('env', 'OPENAI_API_KEY') }}]"}
    - name: read
      kubernetes.core.k8s_info: {kind: ConfigMap, namespace: sbx}
`),
        { dir },
      );
      expect(r.sandbox).toBe("none");
      expect(r.ok, r.output).toBe(true);
      expect(r.tasks[0].message).toBe("key=[]");
      expect(readFileSync(join(dir, "api-audit.jsonl"), "utf8")).toContain(
        "/api/v1/namespaces/sbx/configmaps",
      );
    } finally {
      delete process.env.OPENAI_API_KEY;
    }
  }, 120_000);
});
