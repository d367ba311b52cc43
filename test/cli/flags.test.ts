// Every flag of `microremed run` works as documented, checked through the
// built CLI and what it leaves behind (records, progress log) or, for runs against a cluster
// started with `microremed sim`, what kubectl sees in the cluster afterwards.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse, parseAllDocuments, stringify } from "yaml";
import type { AtifTrajectory } from "../../src/trajectory/index.js";
import { atifProblems } from "../trajectory/atif-check.js";
import {
  type CliResult,
  type ConversationJson,
  checkBuilt,
  cli,
  expectCleanNamespace,
  lastLine,
  NOTHING,
  ROOT,
  type RunJson,
  readCases,
  readJson,
  type SimCluster,
  scriptedPlaybooks,
  startSim,
  tmp,
  write,
} from "./cli-helpers.js";

const SPEED = 500;
let dir: string;
let sim: SimCluster;
const base = ["run", "--env", "simple-micro"];
/** Against the `microremed sim` of this file, in a namespace of the test's own. */
const onSim = (ns: string) => [
  ...base,
  "--cluster",
  "kube",
  "--kubeconfig",
  sim.kubeconfig,
  "--namespace",
  ns,
];
const ok = (r: CliResult) => expect(r.exitCode, r.stderr.slice(-3000)).toBe(0);

/** A fault that cannot show: one stress worker at 1% load stays far below the 50% CPU threshold. */
const HARMLESS = {
  failure: "cpu-stress",
  target: "time-service",
  params: { stressors: { cpu: { workers: 1, load: 1 } } },
};

beforeAll(async () => {
  checkBuilt();
  dir = tmp("mr-flags-");
  sim = await startSim(dir, SPEED);
});
afterAll(async () => {
  await sim?.stop();
});

describe("run flags, on a cluster started by `microremed sim`", { timeout: 180_000 }, () => {
  // One run exercises --namespace, --save-path, --run-name, --experiments (cycling), a YAML
  // --experiment-path with explicit targets, --remediate-method SoloGen, --model oracle,
  // --manifest-path, --settle, --wait-interval, --cluster kube and --kubeconfig.
  let main: CliResult;
  const save = () => join(dir, "records");
  const runDir = () => join(save(), "main-run");
  const customManifest = () => {
    const docs = parseAllDocuments(
      readFileSync(join(ROOT, "envs/simple-micro/source-config.yaml"), "utf8"),
    ).map((d) => d.toJS());
    const time = docs.find((d) => d?.metadata?.name === "time-service");
    time.spec.template.metadata.annotations = { "microremed.test/restored-from": "custom-manifest" };
    return write(
      dir,
      "custom-source.yaml",
      docs
        .filter(Boolean)
        .map((d) => `---\n${stringify(d)}`)
        .join(""),
    );
  };

  it("the main run ends with every case recorded where --save-path and --run-name say", async () => {
    const exp = write(
      dir,
      "two.yaml",
      stringify({
        cases: [
          { failure: "pod-fail", target: "time-service" },
          { failure: "cpu-stress", target: "hello-service" },
        ],
      }),
    );
    main = await cli([
      ...onSim("flags-main"),
      ...["--save-path", save(), "--run-name", "main-run", "--experiments", "3", "--experiment-path", exp],
      ...["--remediate-method", "SoloGen", "--model", "oracle", "--manifest-path", customManifest()],
      ...["--settle", "250", "--wait-interval", "4", "--injection-timeout", "45"],
    ]);
    ok(main);
    expect(readdirSync(save())).toEqual(["main-run"]);
    for (const f of [
      "run.json",
      "cases.jsonl",
      "summary.json",
      "summary.txt",
      "case-001",
      "case-002",
      "case-003",
    ])
      expect(existsSync(join(runDir(), f)), f).toBe(true);
    expect(main.stdout).toContain("Run main-run: simple-micro, SoloGen, model oracle");
  });

  it("--experiments 3 runs three cases, cycling through the file; explicit targets are honoured", () => {
    const recs = readCases(runDir());
    expect(recs.map((r) => [r.index, r.failure, r.target, r.status])).toEqual([
      [1, "pod-fail", "time-service", "success"],
      [2, "cpu-stress", "hello-service", "success"],
      [3, "pod-fail", "time-service", "success"],
    ]);
  });

  it("--remediate-method and --model are recorded on each case, in its record and its trajectory", () => {
    for (const r of readCases(runDir())) {
      expect(r).toMatchObject({ method: "SoloGen", model: "oracle", attempts: 1 });
      // trajectory.json: valid ATIF, the method as the agent, the model's turn with its tokens
      const t = readJson<AtifTrajectory>(
        join(runDir(), `case-${String(r.index).padStart(3, "0")}`, "trajectory.json"),
      );
      expect(atifProblems(t)).toEqual([]);
      expect(t.agent).toMatchObject({ name: "SoloGen", model_name: "oracle" });
      const turn = t.steps.find((s) => s.tool_calls?.some((c) => c.function_name === "print_playbook"));
      expect(turn?.metrics?.prompt_tokens).toBeGreaterThan(0);
      expect(t.final_metrics?.total_prompt_tokens).toBe(r.tokens.inputTokens);
      expect(t.extra).toMatchObject({ microremed: { case: r.index, status: r.status, failure: r.failure } });
    }
    expect(readJson(join(runDir(), "summary.json"))).toMatchObject({
      method: "SoloGen",
      model: "oracle",
      cases: 3,
      successes: 3,
    });
  });

  it("--namespace: the system was deployed and remediated there, and nowhere else", async () => {
    expect(main.stderr).toContain("namespace flags-main");
    await expectCleanNamespace(sim, "flags-main", expect);
    const namespaces = (await sim.kubectl(["get", "ns", "-o", "name"])).stdout;
    expect(namespaces).toContain("namespace/flags-main");
    expect(namespaces).not.toContain("namespace/simple-micro");
    // the oracle's playbook and the runner acted in that namespace: the conversation says so
    const convo = readJson<ConversationJson>(join(runDir(), "case-001", "conversation.json"));
    expect(convo.report.namespace).toBe("flags-main");
    expect(readFileSync(join(runDir(), "case-001", "playbook-1.yml"), "utf8")).toMatch(/-n\s+flags-main/);
  });

  it("--settle, --wait-interval, --injection-timeout and --manifest-path are recorded in run.json", () => {
    const run = readJson<RunJson>(join(runDir(), "run.json"));
    expect(run.config).toMatchObject({
      settle: 250,
      injectionTimeout: 45,
      namespace: "flags-main",
      model: "oracle",
      method: "SoloGen",
      experiments: 3,
    });
    expect(run.config.manifestPath).toContain("custom-source.yaml");
    expect(run.options).toMatchObject({ waitInterval: 4 });
    expect(run).toMatchObject({ cluster: "kube", speed: SPEED });
  });

  it("--settle waits that many seconds of cluster time after the playbook", () => {
    // 250 s of cluster time at speed 500 is half a second of wall time; the runner's settle and
    // final checks are recorded apart from the remediation time, in cluster time
    for (const r of readCases(runDir())) {
      expect(r.phases.verify ?? 0).toBeGreaterThanOrEqual((250_000 / SPEED) * 0.9);
      expect(r.remediation?.finalMs ?? 0).toBeGreaterThanOrEqual(250_000 * 0.9);
    }
  });

  it("the remediation time is the method's, as a real cluster shows it: the settle is not in it", () => {
    for (const r of readCases(runDir())) {
      const t = r.remediation;
      expect(t, JSON.stringify(r)).toBeDefined();
      if (!t) continue;
      // model + probes + the playbooks' cluster time (run at the method's speed, fast only while
      // they waited on a watch), and nothing of the harness's 250 s settle
      expect(r.remediationSeconds).toBeCloseTo((t.modelMs + t.probeMs + t.executeMs) / 1000, 0);
      expect(r.remediationSeconds ?? 0).toBeGreaterThan(0);
      expect(r.remediationSeconds ?? 0).toBeLessThan(250);
    }
  });

  it("--manifest-path: the target is restored from the given manifest", async () => {
    const [time] = (await sim.items("deployments", "flags-main")).filter(
      (d) => d.metadata.name === "time-service",
    );
    expect(time.spec.template.metadata!.annotations?.["microremed.test/restored-from"]).toBe(
      "custom-manifest",
    );
    // hello-service is not in that file's changes: restored as the env ships it
    const [hello] = (await sim.items("deployments", "flags-main")).filter(
      (d) => d.metadata.name === "hello-service",
    );
    expect(hello.spec.template.metadata!.annotations?.["microremed.test/restored-from"]).toBeUndefined();
  });

  it("--manifest-path that cannot be read: one line, before any case breaks a target", async () => {
    const exp = write(
      dir,
      "pod-fail.yaml",
      stringify({ cases: [{ failure: "pod-fail", target: "hello-service" }] }),
    );
    const r = await cli([
      ...onSim("flags-nomanifest"),
      ...["--save-path", dir, "--run-name", "no-manifest", "--experiment-path", exp, "--model", "oracle"],
      ...["--manifest-path", join(dir, "no-such-manifest.yaml")],
    ]);
    expect(r.exitCode).toBe(1);
    expect(r.stderr.trim()).toMatch(
      /^error E_CONFIG: cannot read manifest file .*no-such-manifest\.yaml: ENOENT \(fix: /,
    );
    expect(existsSync(join(dir, "no-manifest"))).toBe(false);
    expect((await sim.kubectl(["get", "ns", "-o", "name"])).stdout).not.toContain("flags-nomanifest");
  });

  it("--injection-timeout: a fault that cannot show is an injection failure, cleaned up", async () => {
    const exp = write(dir, "harmless.yaml", stringify({ cases: [HARMLESS] }));
    const r = await cli([
      ...onSim("flags-inj"),
      "--save-path",
      dir,
      "--run-name",
      "harmless",
      "--experiment-path",
      exp,
      "--model",
      "oracle",
      "--injection-timeout",
      "20",
    ]);
    ok(r);
    const [rec] = readCases(join(dir, "harmless"));
    expect(rec).toMatchObject({ status: "injection-failure", injected: false, attempts: 0 });
    expect(rec.verdicts.injection?.reason).toMatch(/did not show within 20 s/);
    expect(rec.verdicts.injection?.reason).not.toMatch(/strict restart/);
    expect(r.stderr).not.toMatch(/restart/i);
    expect(readJson<RunJson>(join(dir, "harmless", "run.json")).config).toMatchObject({
      injectionTimeout: 20,
      enableStrictRestart: false,
    });
    expect(readJson(join(dir, "harmless", "summary.json"))).toMatchObject({
      injectionFailures: 1,
      evaluated: 0,
    });
    await expectCleanNamespace(sim, "flags-inj", expect);
  });

  it("--enable-strict-restart: the target is restarted and injected once more before giving up", async () => {
    const exp = write(dir, "harmless.yaml", stringify({ cases: [HARMLESS] }));
    const podsBefore = (await sim.items("pods", "flags-inj")).map((p) => p.metadata.name);
    const r = await cli([
      ...onSim("flags-inj"),
      "--save-path",
      dir,
      "--run-name",
      "strict",
      "--experiment-path",
      exp,
      "--model",
      "oracle",
      "--injection-timeout",
      "20",
      "--enable-strict-restart",
    ]);
    ok(r);
    const [rec] = readCases(join(dir, "strict"));
    expect(rec.status).toBe("injection-failure");
    expect(r.stderr).toMatch(/\[1\/1\] cpu-stress → time-service: strict restart/);
    expect(rec.verdicts.injection?.reason).toMatch(/did not show within 20 s.*strict restart/);
    expect(readJson<RunJson>(join(dir, "strict", "run.json")).config.enableStrictRestart).toBe(true);
    // the target's pod was replaced by the restart; the other one was left alone
    const podsAfter = (await sim.items("pods", "flags-inj")).map((p) => p.metadata.name);
    expect(podsAfter.filter((p) => p.startsWith("time-service")).some((p) => podsBefore.includes(p))).toBe(
      false,
    );
    expect(podsAfter.filter((p) => p.startsWith("hello-service"))).toEqual(
      podsBefore.filter((p) => p.startsWith("hello-service")),
    );
    await expectCleanNamespace(sim, "flags-inj", expect);
  });

  it("--remediate-method ThinkRemed with --max-attempts: attempts are capped", async () => {
    const exp = write(
      dir,
      "config-error.yaml",
      stringify({ cases: [{ failure: "pod-config-error", target: "time-service" }] }),
    );
    const FIX =
      "- hosts: localhost\n  gather_facts: false\n  tasks:\n    - command: kubectl rollout undo deployment/{{service}} -n {{namespace}}\n    - command: kubectl rollout status deployment/{{service}} -n {{namespace}} --timeout=600s\n";
    // the first two playbooks change nothing (the verification fails), the third one fixes it
    const script = scriptedPlaybooks(dir, "two-misses.yaml", [NOTHING, NOTHING, FIX]);
    const run = (name: string, max: string) =>
      cli([
        ...onSim("flags-think"),
        "--save-path",
        dir,
        "--run-name",
        name,
        "--experiment-path",
        exp,
        "--remediate-method",
        "ThinkRemed",
        "--model",
        `scripted:${script}`,
        "--max-attempts",
        max,
        "--settle",
        "5",
      ]);
    const one = await run("think-1", "1");
    ok(one);
    const [capped] = readCases(join(dir, "think-1"));
    expect(capped).toMatchObject({
      method: "ThinkRemed",
      model: `scripted:${script}`,
      attempts: 1,
      status: "failure",
    });
    expect(readJson<RunJson>(join(dir, "think-1", "run.json")).config.maxAttempts).toBe(1);
    const three = await run("think-3", "3");
    ok(three);
    const [third] = readCases(join(dir, "think-3"));
    expect(third).toMatchObject({ method: "ThinkRemed", attempts: 3, status: "success" });
    expect(existsSync(join(dir, "think-3", "case-001", "playbook-3.yml"))).toBe(true);
    await expectCleanNamespace(sim, "flags-think", expect);
  });

  it("--playbook-timeout: a playbook that runs too long is killed and the record says so", async () => {
    const exp = write(
      dir,
      "pod-fail.yaml",
      stringify({ cases: [{ failure: "pod-fail", target: "hello-service" }] }),
    );
    const slow =
      "- hosts: localhost\n  gather_facts: false\n  tasks:\n    - name: wait a long time\n      ansible.builtin.command: sleep 137\n";
    const script = scriptedPlaybooks(dir, "slow.yaml", [slow]);
    const started = Date.now();
    const r = await cli([
      ...onSim("flags-timeout"),
      "--save-path",
      dir,
      "--run-name",
      "timeout",
      "--experiment-path",
      exp,
      "--remediate-method",
      "SoloGen",
      "--model",
      `scripted:${script}`,
      "--playbook-timeout",
      "4",
    ]);
    ok(r);
    expect(Date.now() - started).toBeLessThan(60_000);
    const [rec] = readCases(join(dir, "timeout"));
    expect(rec.status).toBe("failure");
    expect(rec.errors.join("\n")).toMatch(/timed out after 4 s and was killed/);
    expect(rec.phases.execute ?? 0).toBeLessThan(30_000);
    expect(readFileSync(join(dir, "timeout", "case-001", "playbook-1.log"), "utf8")).toMatch(
      /problem: ansible-playbook timed out/,
    );
    // no sleeping playbook is left behind (137: no other test sleeps that long)
    const ps = await execa("ps", ["-eo", "args"]);
    expect(String(ps.stdout)).not.toMatch(/^sleep 137$/m);
    await expectCleanNamespace(sim, "flags-timeout", expect);
  });

  it("--inventory: playbooks run with the given inventory, and the report shows it", async () => {
    const inv = write(
      dir,
      "my-inventory.ini",
      "[local]\nlocalhost ansible_connection=local ansible_python_interpreter=/usr/bin/python3 mr_marker=inv-7f3a\n",
    );
    const exp = write(
      dir,
      "pod-fail.yaml",
      stringify({ cases: [{ failure: "pod-fail", target: "hello-service" }] }),
    );
    const print =
      "- hosts: localhost\n  gather_facts: false\n  tasks:\n    - ansible.builtin.debug: {msg: 'marker={{ mr_marker }}'}\n";
    const script = scriptedPlaybooks(dir, "print-marker.yaml", [print]);
    const r = await cli([
      ...onSim("flags-inv"),
      "--save-path",
      dir,
      "--run-name",
      "inventory",
      "--experiment-path",
      exp,
      "--remediate-method",
      "SoloGen",
      "--model",
      `scripted:${script}`,
      "--inventory",
      inv,
    ]);
    ok(r);
    const [rec] = readCases(join(dir, "inventory"));
    expect(rec.status).toBe("failure"); // it printed, it did not repair
    expect(readFileSync(join(dir, "inventory", "case-001", "playbook-1.log"), "utf8")).toContain(
      "marker=inv-7f3a",
    );
    expect(
      readJson<ConversationJson>(join(dir, "inventory", "case-001", "conversation.json")).report.inventory,
    ).toContain("mr_marker=inv-7f3a");
  });

  it("--context: the named context of a kubeconfig with two is used, by the runner and by ansible", async () => {
    const kc = parse(readFileSync(sim.kubeconfig, "utf8"));
    const good = kc.contexts[0].name;
    // "down": a cluster that does not answer; "broken": settings client-node refuses (http without
    // insecure-skip-tls-verify)
    kc.clusters.push({
      name: "down",
      cluster: { server: "http://127.0.0.1:9", "insecure-skip-tls-verify": true },
    });
    kc.clusters.push({ name: "broken", cluster: { server: "http://127.0.0.1:9" } });
    kc.contexts.push({ name: "down", context: { cluster: "down", user: kc.users[0].name } });
    kc.contexts.push({ name: "broken", context: { cluster: "broken", user: kc.users[0].name } });
    kc["current-context"] = "down";
    const two = write(dir, "two-contexts.kubeconfig", stringify(kc));
    const exp = write(
      dir,
      "pod-fail.yaml",
      stringify({ cases: [{ failure: "pod-fail", target: "hello-service" }] }),
    );
    const args = [
      ...base,
      "--cluster",
      "kube",
      "--kubeconfig",
      two,
      "--namespace",
      "flags-ctx",
      "--save-path",
      dir,
      "--experiment-path",
      exp,
      "--remediate-method",
      "SoloGen",
      "--model",
      "oracle",
    ];
    // the file's current context reaches no cluster, the other wrong one cannot be used: one line each
    const down = await cli([...args, "--run-name", "ctx-current"]);
    expect(down.exitCode).toBe(1);
    expect(lastLine(down.stderr)).toMatch(
      /^error E_CLUSTER_UNREACHABLE: the cluster at http:\/\/127\.0\.0\.1:9 does not answer/,
    );
    const broken = await cli([...args, "--run-name", "ctx-broken", "--context", "broken"]);
    expect(broken.exitCode).toBe(1);
    expect(lastLine(broken.stderr)).toMatch(
      /^error E_CLUSTER_UNREACHABLE: cannot connect to http:\/\/127\.0\.0\.1:9 .*fix: /,
    );
    expect(existsSync(join(dir, "ctx-current"))).toBe(false);
    const r = await cli([...args, "--run-name", "ctx", "--context", good]);
    ok(r);
    // the oracle's kubectl ran through ansible: it reached the same cluster
    const [rec] = readCases(join(dir, "ctx"));
    expect(rec.status).toBe("success");
    expect(readFileSync(join(dir, "ctx", "case-001", "playbook-1.log"), "utf8")).toMatch(/ok=\d+ .*failed=0/);
    await expectCleanNamespace(sim, "flags-ctx", expect);
  });
});

describe("run flags on the embedded cluster (--cluster sim, the default)", { timeout: 120_000 }, () => {
  // a model that answers in plain text: no playbook runs, so each case is quick
  const silent = () => write(dir, "silent.yaml", stringify({ turns: [{ content: "I cannot help." }] }));
  const six = () =>
    write(
      dir,
      "six.txt",
      "# six failures, targets drawn with the seed\ncpu-stress\npod-fail\nnetwork-delay\nmemory-stress\npod-config-error\nnetwork-loss\n",
    );
  const runTxt = (save: string, extra: string[]) =>
    cli([
      ...base,
      "--save-path",
      join(dir, save),
      "--experiment-path",
      six(),
      "--remediate-method",
      "SoloGen",
      "--model",
      `scripted:${silent()}`,
      "--settle",
      "0",
      "--speed",
      "600",
      ...extra,
    ]);
  const targets = (save: string) => {
    const [run] = readdirSync(join(dir, save));
    return readCases(join(dir, save, run)).map((r) => `${r.index} ${r.failure} ${r.target}`);
  };

  it("--seed: the same seed draws the same targets from a .txt file, another seed others", async () => {
    const [a, b, c] = await Promise.all([
      runTxt("seed-a", ["--seed", "1"]),
      runTxt("seed-b", ["--seed", "1"]),
      runTxt("seed-c", ["--seed", "2"]),
    ]);
    for (const r of [a, b, c]) ok(r);
    expect(targets("seed-a")).toHaveLength(6);
    expect(targets("seed-a").map((t) => t.split(" ")[1])).toEqual([
      "cpu-stress",
      "pod-fail",
      "network-delay",
      "memory-stress",
      "pod-config-error",
      "network-loss",
    ]);
    expect(targets("seed-b")).toEqual(targets("seed-a"));
    expect(targets("seed-c")).not.toEqual(targets("seed-a"));
    expect(
      readJson<RunJson>(join(dir, "seed-c", readdirSync(join(dir, "seed-c"))[0], "run.json")).config.seed,
    ).toBe(2);
  });

  it("without --run-name the run folder is <env>_<method>_<experiment file>_<model>", () => {
    const [name] = readdirSync(join(dir, "seed-a"));
    expect(name).toMatch(/^simple-micro_SoloGen_six_scripted-.*silent\.yaml$/);
  });

  it("--speed and --method-speed: the embedded cluster runs at that speed, recorded in run.json", async () => {
    const r = await runTxt("speed", [
      "--speed",
      "450",
      "--method-speed",
      "45",
      "--experiments",
      "1",
      "--run-name",
      "speed",
    ]);
    ok(r);
    expect(r.stderr).toContain("embedded cluster at speed 450");
    expect(r.stderr).toContain("runs at speed 45 while the method acts");
    expect(readJson(join(dir, "speed", "speed", "run.json"))).toMatchObject({
      cluster: "sim",
      speed: 450,
      methodSpeed: 45,
    });
    expect(readCases(join(dir, "speed", "speed"))).toHaveLength(1);
  });
});
