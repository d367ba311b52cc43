// Parallel cases: `--parallel N` runs cases at once in N copies of the system, each in
// its own namespace (<ns>, <ns>-2, ...); with the same seed the results name the same cases as a
// serial run, and the oracle scores the same. Against `microremed sim` (a cluster reached through
// a kubeconfig), so kubectl can look at every namespace afterwards.
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type CliResult,
  checkBuilt,
  cli,
  expectCleanNamespace,
  readCases,
  readJson,
  type SimCluster,
  startSim,
  tmp,
  write,
} from "./cli-helpers.js";

let dir: string;
let sim: SimCluster;
let exp: string;

beforeAll(async () => {
  checkBuilt();
  dir = tmp("mr-parallel-");
  sim = await startSim(dir, 400);
  // six cases, targets drawn with the seed (every type but disk-io)
  exp = write(
    dir,
    "six.txt",
    "cpu-stress\npod-fail\nnetwork-delay\nmemory-stress\npod-config-error\nnetwork-loss\n",
  );
});
afterAll(async () => {
  await sim?.stop();
});

const run = (name: string, ns: string, extra: string[]) =>
  cli([
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
      "--save-path",
      dir,
      "--run-name",
      name,
    ],
    ...[
      "--experiment-path",
      exp,
      "--remediate-method",
      "SoloGen",
      "--model",
      "oracle",
      "--seed",
      "5",
      "--settle",
      "5",
      ...extra,
    ],
  ]);
const named = (name: string) =>
  readCases(join(dir, name))
    .sort((a, b) => a.index - b.index)
    .map((r) => ({ index: r.index, failure: r.failure, target: r.target }));
const ok = (r: CliResult) => expect(r.exitCode, r.stderr.slice(-3000)).toBe(0);

describe("--parallel", { timeout: 180_000 }, () => {
  let serial: ReturnType<typeof named>;

  it("a serial run: the reference", async () => {
    const r = await run("serial", "par", []);
    ok(r);
    serial = named("serial");
    expect(serial).toHaveLength(6);
    // the seed draws both services across the file
    expect(new Set(serial.map((c) => c.target)).size).toBe(2);
    expect(readJson(join(dir, "serial", "summary.json"))).toMatchObject({
      cases: 6,
      successes: 6,
      successRate: 1,
      injectionFailures: 0,
    });
  });

  for (const n of [2, 3]) {
    it(`--parallel ${n} names the same cases, scores the same, in namespaces <ns>..<ns>-${n}`, async () => {
      const ns = `par${n}`;
      const r = await run(`p${n}`, ns, ["--parallel", String(n)]);
      ok(r);
      const namespaces = [ns, ...Array.from({ length: n - 1 }, (_, i) => `${ns}-${i + 2}`)];
      expect(r.stderr).toContain(`(namespaces ${namespaces.join(", ")}, cluster from kubeconfig)`);
      // cases ran in every copy
      for (const x of namespaces)
        expect(r.stderr, x).toMatch(new RegExp(`^\\[\\d/6\\] \\(${x}\\) .*: (success|failure)`, "m"));
      expect(named(`p${n}`)).toEqual(serial);
      expect(readJson(join(dir, `p${n}`, "summary.json"))).toMatchObject({
        cases: 6,
        successes: 6,
        successRate: 1,
        injectionFailures: 0,
      });
      expect(readJson(join(dir, `p${n}`, "run.json")).options).toMatchObject({ parallel: n });
      // each copy is a whole system, left clean and healthy
      for (const x of namespaces) await expectCleanNamespace(sim, x, expect);
      const all = (await sim.kubectl(["get", "ns", "-o", "name"])).stdout;
      expect(all).not.toContain(`namespace/${ns}-${n + 1}`);
    });
  }
});
