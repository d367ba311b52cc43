// The single-step commands keep to namespaces MicroRemed manages, like `run`: deploy, inject,
// verify and restore refuse kube-system, chaos-mesh and any namespace MicroRemed has no record of
// with a typed one-line error and its fix, and change nothing there; restore removes only the
// chaos the harness created (labelled app.kubernetes.io/managed-by=microremed in Chaos Mesh's
// namespace), never another's. The record of a namespace is kept out of an agent's sight (a
// ConfigMap in microremed-system): the namespace itself carries no label of the harness.
// Drives the built CLI against `microremed sim`, and looks at the cluster with kubectl.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  CHAOS_KINDS,
  checkBuilt,
  cli,
  lastLine,
  type SimCluster,
  startSim,
  tmp,
  write,
} from "./cli-helpers.js";

let dir: string;
let sim: SimCluster;
let conn: string[];

/** Someone else's chaos: a StressChaos without MicroRemed's label. */
const foreignChaos = (ns: string, name: string) => `apiVersion: chaos-mesh.org/v1alpha1
kind: StressChaos
metadata: {name: ${name}, namespace: ${ns}}
spec:
  mode: one
  selector: {namespaces: [${ns}], labelSelectors: {app: nothing-here}}
  stressors: {cpu: {workers: 1, load: 10}}
`;

/** What a command could change in a namespace: its workloads and its chaos. */
const state = async (ns: string) =>
  (await sim.kubectl(["get", `deployments,statefulsets,services,${CHAOS_KINDS}`, "-n", ns, "-o", "name"]))
    .stdout;

beforeAll(async () => {
  checkBuilt();
  dir = tmp("mr-namespaces-");
  sim = await startSim(dir, 60);
  conn = ["--cluster", "kube", "--kubeconfig", sim.kubeconfig, "--env", "simple-micro"];
  await sim.kubectl(["create", "namespace", "team-a"]);
  await sim.kubectl(["create", "namespace", "chaos-mesh"], { reject: false });
  for (const ns of ["kube-system", "chaos-mesh", "team-a"])
    await sim.kubectl(["apply", "-f", write(dir, `${ns}.yaml`, foreignChaos(ns, `theirs-${ns}`))]);
}, 120_000);

afterAll(async () => {
  await sim?.stop();
});

describe("single-step commands outside MicroRemed's namespaces", { timeout: 120_000 }, () => {
  const commands: [string, string[]][] = [
    ["restore", ["restore", "time-service"]],
    ["inject", ["inject", "cpu-stress", "time-service"]],
    ["verify", ["verify", "cpu-stress", "time-service"]],
    ["deploy", ["deploy", "simple-micro"]],
  ];

  it.each(
    commands.flatMap(([name, args]) =>
      ["kube-system", "chaos-mesh"].map((ns): [string, string, string[]] => [name, ns, args]),
    ),
  )("%s --namespace %s refuses and changes nothing", async (_name, ns, args) => {
    const before = await state(ns);
    const r = await cli([...args, ...conn, "--namespace", ns]);
    expect(r.exitCode, r.stderr).not.toBe(0);
    const line = lastLine(r.stderr);
    expect(line).toMatch(/^error E_FORBIDDEN_NAMESPACE: .*namespace "[a-z-]+".*\(fix: /);
    expect(r.stderr).not.toMatch(/\n\s+at /); // one line, no stack
    expect(await state(ns)).toBe(before);
    expect(before).toContain(`stresschaos.chaos-mesh.org/theirs-${ns}`);
  });

  it.each(commands)("%s in an existing namespace MicroRemed did not deploy refuses", async (_name, args) => {
    const before = await state("team-a");
    const r = await cli([...args, ...conn, "--namespace", "team-a"]);
    expect(r.exitCode).not.toBe(0);
    expect(lastLine(r.stderr)).toMatch(
      /E_FORBIDDEN_NAMESPACE: namespace "team-a" .*not deployed by MicroRemed/,
    );
    expect(lastLine(r.stderr)).toContain(
      "kubectl create configmap team-a -n microremed-system --from-literal=env=simple-micro",
    );
    expect(await state("team-a")).toBe(before);
  });

  it("inject into a namespace that does not exist says to deploy it first, and creates nothing", async () => {
    const r = await cli(["inject", "cpu-stress", "time-service", ...conn, "--namespace", "nowhere"]);
    expect(lastLine(r.stderr)).toContain(
      "fix: deploy it first: microremed deploy simple-micro --namespace nowhere",
    );
    expect((await sim.kubectl(["get", "ns", "nowhere"], { reject: false })).exitCode).not.toBe(0);
  });
});

describe("in a namespace MicroRemed deployed", { timeout: 300_000 }, () => {
  it("deploy creates and records it, with no label of ours on it; restore removes the harness's chaos and leaves another's", async () => {
    const ns = "mr-own";
    const d = await cli(["deploy", "simple-micro", ...conn, "--namespace", ns], { timeout: 240_000 });
    expect(d.exitCode, d.stderr).toBe(0);
    const own = await sim.kubectl(["get", "ns", ns, "-o", "json"]);
    expect(own.stdout).not.toMatch(/microremed/i);
    const record = await sim.kubectl([
      "get",
      "configmap",
      ns,
      "-n",
      "microremed-system",
      "-o",
      "jsonpath={.data.env}",
    ]);
    expect(record.stdout).toBe("simple-micro");

    const i = await cli(["inject", "cpu-stress", "time-service", ...conn, "--namespace", ns]);
    expect(i.exitCode, i.stderr).toBe(0);
    await sim.kubectl(["apply", "-f", write(dir, "mine.yaml", foreignChaos(ns, "someone-elses"))]);

    const r = await cli(["restore", "time-service", ...conn, "--namespace", ns], { timeout: 240_000 });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toContain("removed 1 chaos object(s)");
    const left = await sim.kubectl(["get", CHAOS_KINDS, "-n", ns, "-o", "name"]);
    expect(left.stdout.trim()).toBe("stresschaos.chaos-mesh.org/someone-elses");
  });

  it("inject takes an expert type's values from env.yaml, and restore puts back what the change added", async () => {
    const ns = "mr-own";
    // liveness-bad adds a probe the source lacks (tcpSocket on a port nothing listens on)
    const i = await cli(["inject", "liveness-bad", "time-service", ...conn, "--namespace", ns]);
    expect(i.exitCode, i.stderr).toBe(0);
    const probe = () =>
      sim.kubectl([
        "get",
        "deployment",
        "time-service",
        "-n",
        ns,
        "-o",
        "jsonpath={.spec.template.spec.containers[0].livenessProbe.tcpSocket.port}",
      ]);
    expect((await probe()).stdout).toBe("5006");
    const r = await cli(["restore", "time-service", ...conn, "--namespace", ns], { timeout: 240_000 });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toContain("time-service restored");
    expect((await probe()).stdout).toBe("");
  });
});
