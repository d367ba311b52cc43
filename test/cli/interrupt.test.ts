// A run interrupted mid-case (SIGINT) cleans up the current case, records
// it as interrupted, exits with 130 and one line, and leaves no chaos object and a healthy
// namespace. The run goes against `microremed sim`, so kubectl can look at the cluster afterwards.
import { join } from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import {
  CLI,
  checkBuilt,
  expectCleanNamespace,
  lastLine,
  readCases,
  type SimCluster,
  scriptedPlaybooks,
  startCli,
  startSim,
  tmp,
  waitForStderr,
  write,
} from "./cli-helpers.js";

let dir: string;
let sim: SimCluster;

beforeAll(async () => {
  checkBuilt();
  dir = tmp("mr-interrupt-");
  sim = await startSim(dir, 300);
});
afterAll(async () => {
  await sim?.stop();
});

/** A playbook that is still running when the test interrupts the run. */
const SLOW =
  "- hosts: localhost\n  gather_facts: false\n  tasks:\n    - name: take a long time\n      ansible.builtin.command: sleep 97\n";

async function interruptMidCase(name: string, ns: string, fault: { failure: string; target: string }) {
  const exp = write(
    dir,
    `${name}.yaml`,
    stringify({ cases: [fault, { failure: "pod-fail", target: "hello-service" }] }),
  );
  const script = scriptedPlaybooks(dir, "slow.yaml", [SLOW]);
  const child = startCli([
    ...[
      "run",
      "--env",
      "simple-micro",
      "--cluster",
      "kube",
      "--kubeconfig",
      sim.kubeconfig,
      "--namespace",
      ns,
    ],
    ...[
      "--save-path",
      dir,
      "--run-name",
      name,
      "--experiment-path",
      exp,
      "--remediate-method",
      "SoloGen",
      "--model",
      `scripted:${script}`,
    ],
  ]);
  await waitForStderr(child, /^\[1\/2\] .*: method$/);
  // let the playbook start (the syntax check comes first), then interrupt
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    const ps = await execa("ps", ["-eo", "args"]);
    if (/^sleep 97$/m.test(String(ps.stdout))) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  const signalled = Date.now();
  child.kill("SIGINT");
  const r = await child;
  return { r, signalled, records: readCases(join(dir, name)) };
}

describe("SIGINT in the middle of a case", { timeout: 120_000 }, () => {
  it("a chaos fault: cleaned up, recorded as interrupted, exit 130 with one line", async () => {
    const { r, signalled, records } = await interruptMidCase("chaos", "int-chaos", {
      failure: "cpu-stress",
      target: "time-service",
    });
    expect(r.exitCode, String(r.stderr)).toBe(130);
    const err = String(r.stderr);
    expect(lastLine(err)).toMatch(
      /^error E_INTERRUPTED: .*recorded as interrupted.*\(fix: run the same command again to resume\)$/,
    );
    expect(err.split("\n").filter((l) => l.startsWith("error "))).toHaveLength(1);
    expect(err).toContain("[1/2] cpu-stress → time-service: restore");
    // the playbook was killed with its process group, not waited for
    expect(Date.now() - signalled).toBeLessThan(30_000);
    expect(String((await execa("ps", ["-eo", "args"])).stdout)).not.toMatch(/^sleep 97$/m);
    // the first case is recorded as interrupted, the second never started
    expect(records.map((c) => [c.index, c.status, c.injected])).toEqual([[1, "interrupted", true]]);
    expect(err).not.toContain("[2/2]");
    await expectCleanNamespace(sim, "int-chaos", expect);
    // the CPU stress is gone: the target is quiet again
    const verify = await execa(
      process.execPath,
      [
        CLI,
        "verify",
        "cpu-stress",
        "time-service",
        "--env",
        "simple-micro",
        "--cluster",
        "kube",
        "--kubeconfig",
        sim.kubeconfig,
        "--namespace",
        "int-chaos",
      ],
      { reject: false },
    );
    expect(verify.exitCode, String(verify.stdout)).toBe(0);
  });

  it("a configuration fault (no chaos object): the target is restored from its manifest", async () => {
    const { r, records } = await interruptMidCase("config", "int-config", {
      failure: "pod-config-error",
      target: "time-service",
    });
    expect(r.exitCode, String(r.stderr)).toBe(130);
    expect(lastLine(String(r.stderr))).toMatch(/^error E_INTERRUPTED: /);
    expect(records.map((c) => [c.index, c.status, c.injected])).toEqual([[1, "interrupted", true]]);
    await expectCleanNamespace(sim, "int-config", expect);
    const [time] = (await sim.items("deployments", "int-config")).filter(
      (d) => d.metadata.name === "time-service",
    );
    // the starving limits of the patch are gone
    expect(time.spec.template.spec!.containers[0].resources?.limits?.cpu).not.toBe("2m");
    const pods = (await sim.items("pods", "int-config")).filter(
      (p) => p.metadata.labels?.app === "time-service",
    );
    expect(pods).toHaveLength(1);
    expect(pods[0].spec.containers[0].resources?.limits?.cpu).not.toBe("2m");
  });

  it("while the system is being deployed: exit 130 with one line, nothing recorded", async () => {
    // a cluster at the speed of a real one, so the deployment takes seconds
    const slow = await startSim(tmp("mr-interrupt-slow-"), 1);
    try {
      const exp = write(
        dir,
        "one.yaml",
        stringify({ cases: [{ failure: "pod-fail", target: "time-service" }] }),
      );
      const child = startCli([
        ...["run", "--env", "simple-micro", "--cluster", "kube", "--kubeconfig", slow.kubeconfig],
        ...[
          "--namespace",
          "int-deploy",
          "--save-path",
          dir,
          "--run-name",
          "deploy",
          "--experiment-path",
          exp,
        ],
        ...["--remediate-method", "SoloGen", "--model", "oracle"],
      ]);
      await waitForStderr(child, /^deploying simple-micro into int-deploy$/);
      child.kill("SIGINT");
      const r = await child;
      expect(r.exitCode, String(r.stderr)).toBe(130);
      expect(String(r.stderr)).not.toContain("unexpected error");
      expect(lastLine(String(r.stderr))).toMatch(
        /^error E_INTERRUPTED: interrupted while deploying simple-micro into int-deploy, before any case started/,
      );
      expect(readCases(join(dir, "deploy"))).toEqual([]);
    } finally {
      await slow.stop();
    }
  });
});
