// Bring your own system and failure, through the built CLI: `env init` writes a system
// into a folder, `run --env <folder>` deploys it on the embedded cluster (which models it from the
// folder's topology.yaml, not from the package), injects, lets the oracle remediate and verifies;
// a mistake in the folder is named by file, line and fix; a user's Chaos Mesh template runs a case;
// experiment params that would retarget a fault are refused before anything starts.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import { beforeAll, describe, expect, it } from "vitest";
import { CLI, checkBuilt, cli, lastLine, ROOT, readCases, readJson, tmp, write } from "./cli-helpers.js";

beforeAll(checkBuilt);

function runArgs(env: string, dir: string, exp: string, name: string): string[] {
  return [
    "run",
    "--env",
    env,
    "--model",
    "oracle",
    "--remediate-method",
    "SoloGen",
    "--experiment-path",
    exp,
    "--experiments",
    "1",
    "--speed",
    "600",
    "--settle",
    "5",
    "--save-path",
    dir,
    "--run-name",
    name,
  ];
}

describe("a system from a folder", () => {
  it("env init writes one that is deployed, injected, remediated and verified", async () => {
    const dir = tmp("mr-env-cli-");
    const sys = join(dir, "shop");
    const init = await cli(["env", "init", sys]);
    expect(init.exitCode, init.stderr).toBe(0);
    expect(init.stdout).toMatch(
      /wrote shop to .*shop: env\.yaml, manifests\.yaml, source-config\.yaml, topology\.yaml/,
    );
    const check = await cli(["env", "check", sys]);
    expect(check.stdout).toMatch(
      /^shop \(.*\): 2 workloads, 2 modelled, failures cpu-stress, .*; namespace shop$/m,
    );

    const r = await cli(runArgs(sys, dir, "experiments/pod-fail.txt", "own"), { timeout: 300_000 });
    expect(r.exitCode, r.stderr).toBe(0);
    const run = readJson(join(dir, "own", "run.json"));
    expect(run.config).toMatchObject({ env: sys, namespace: "shop" });
    const [c] = readCases(join(dir, "own"));
    expect(c).toMatchObject({ failure: "pod-fail", status: "success", injected: true });
  });

  it("a mistake in the folder stops the run before any cluster, naming file, line and fix", async () => {
    const dir = tmp("mr-env-cli-");
    const sys = join(dir, "shop");
    await cli(["env", "init", sys]);
    const topo = join(sys, "topology.yaml");
    const text = readFileSync(topo, "utf8").replace("memory: 40,", "memory: 40Mi,");
    writeFileSync(topo, text);
    const line = text.split("\n").findIndex((l) => l.includes("memory: 40Mi")) + 1;
    const r = await cli(runArgs(sys, dir, "experiments/pod-fail.txt", "bad"));
    expect(r.exitCode).toBe(1);
    expect(lastLine(r.stderr)).toBe(
      `error E_CONFIG: ${topo}:${line}: services.hello-service.runtime.memory: must be number (fix: working set in Mi, e.g. 40)`,
    );
    const again = await cli(["env", "init", sys]);
    expect(lastLine(again.stderr)).toMatch(
      /already holds an env\.yaml \(fix: pick an empty folder, or pass --force/,
    );
  });
});

describe("the embedded cluster models the folder's system", () => {
  it("`sim --env DIR` runs the pods as the folder's topology.yaml says (its log lines)", async () => {
    const dir = tmp("mr-env-sim-");
    const sys = join(dir, "shop");
    await cli(["env", "init", sys]);
    const topo = join(sys, "topology.yaml");
    writeFileSync(
      topo,
      readFileSync(topo, "utf8").replace(
        "hello-service: hello-service ready, listening on 0.0.0.0:{port}",
        "shop front door open on {port}",
      ),
    );
    const kubeconfig = join(dir, "kubeconfig");
    const sim = execa(
      process.execPath,
      [CLI, "sim", "--env", sys, "--kubeconfig", kubeconfig, "--speed", "60"],
      {
        cwd: ROOT,
        reject: false,
        timeout: 300_000,
      },
    );
    try {
      await new Promise<void>((resolve, reject) => {
        let out = "";
        sim.stdout?.on("data", (b: Buffer) => {
          out += b.toString();
          if (out.includes("embedded cluster ready")) resolve();
        });
        sim.once("exit", () => reject(new Error(`microremed sim exited: ${out}`)));
      });
      const deployed = await cli(["deploy", sys, "--cluster", "kube", "--kubeconfig", kubeconfig]);
      expect(deployed.exitCode, deployed.stderr).toBe(0);
      expect(deployed.stdout).toMatch(/is Ready in namespace shop: /);
      const logs = await execa(
        "kubectl",
        ["logs", "-n", "shop", "deploy/hello-service", "-c", "hello-service"],
        {
          env: { KUBECONFIG: kubeconfig },
        },
      );
      expect(String(logs.stdout)).toContain("shop front door open on 5000");
    } finally {
      sim.kill("SIGTERM");
      await sim;
    }
  });
});

describe("a failure of the user's", () => {
  it("a Chaos Mesh template with its check runs a case, aimed at the case's target by the harness", async () => {
    const dir = tmp("mr-tpl-cli-");
    write(
      dir,
      "cpu-spike.yaml",
      "apiVersion: chaos-mesh.org/v1alpha1\nkind: StressChaos\nmetadata: {name: cpu-spike}\nspec:\n  mode: one\n  stressors:\n    cpu: {workers: 4, load: 100}\n",
    );
    const exp = write(
      dir,
      "mine.yaml",
      "cases:\n  - {template: cpu-spike.yaml, check: cpu, target: time-service, params: {duration: 10m}}\n",
    );
    const r = await cli(runArgs("simple-micro", dir, exp, "tpl"), { timeout: 300_000 });
    expect(r.exitCode, r.stderr).toBe(0);
    const [c] = readCases(join(dir, "tpl"));
    expect(c).toMatchObject({
      failure: "template:cpu-spike",
      target: "time-service",
      injected: true,
      status: "success",
    });
  });

  it("params that would retarget a fault are refused, naming the field and the fix", async () => {
    const dir = tmp("mr-tpl-cli-");
    const exp = write(
      dir,
      "retarget.yaml",
      "cases:\n  - failure: pod-fail\n    target: time-service\n    params:\n      selector: {namespaces: [kube-system]}\n",
    );
    const r = await cli(runArgs("simple-micro", dir, exp, "retarget"));
    expect(r.exitCode).toBe(1);
    expect(lastLine(r.stderr)).toMatch(
      new RegExp(
        `^error E_EXPERIMENT_FILE: ${exp}:5: params\\.selector would retarget the pod-fail fault \\(fix: remove it: params tune a fault`,
      ),
    );
  });
});
