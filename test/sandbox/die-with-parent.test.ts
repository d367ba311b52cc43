// Nothing outlives the case, even when the runner itself is killed mid-playbook
// (SIGKILL leaves it no chance to clean up): bwrap's --die-with-parent ends the sandbox's PID
// namespace, and with it every process of the playbook.
// https://github.com/containers/bubblewrap/blob/main/bwrap.xml (--die-with-parent: PR_SET_PDEATHSIG)
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, expect, it } from "vitest";
import { checkBuilt, ROOT } from "../cli/cli-helpers.js";
import { startTestCluster, type TestCluster } from "../helpers/cluster.js";
import { caseDir, processesWith } from "./helpers.js";

let tc: TestCluster;
beforeAll(async () => {
  checkBuilt();
  tc = await startTestCluster(30, 9);
});
afterAll(() => tc.stop());

/** The two sleeps themselves (not the shell or ansible's wrappers that name them). */
const sleeps = () => processesWith("sleep 779").filter((p) => /^\d+: sleep 779\d $/.test(p));

const until = async (ok: () => boolean, limitMs: number) => {
  const end = Date.now() + limitMs;
  while (!ok() && Date.now() < end) await new Promise((r) => setTimeout(r, 50));
  return ok();
};

it("a runner killed with SIGKILL mid-playbook leaves no process of it behind", async () => {
  const dir = caseDir();
  const script = join(dir, "runner.mjs");
  writeFileSync(
    script,
    `import { AnsibleExecutor } from ${JSON.stringify(join(ROOT, "dist/src/ansible/executor.js"))};
const ex = new AnsibleExecutor({ inventory: ${JSON.stringify(join(ROOT, "inventory.ini"))}, kubeconfig: ${JSON.stringify(tc.kubeconfig)}, timeoutMs: 600000, sandbox: "bwrap" });
await ex.run("- hosts: localhost\\n  gather_facts: false\\n  tasks:\\n    - ansible.builtin.shell: setsid sleep 7791 & sleep 7792\\n", { caseDir: ${JSON.stringify(dir)}, name: "playbook-1", namespace: "default" });
`,
  );
  const runner = execa(process.execPath, [script], { reject: false });
  expect(await until(() => sleeps().length === 2, 120_000)).toBe(true);
  runner.kill("SIGKILL");
  await runner;
  expect(await until(() => sleeps().length === 0, 20_000)).toBe(true);
}, 180_000);
