// The run's options are declared once (runner/options.ts): commander's flags, RunConfig and the
// resume identity are read off that table, and every default is applied there, once.
import { Command } from "commander";
import { describe, expect, it } from "vitest";
import { addRunOptions, toRunConfig } from "../../src/cli/run-options.js";
import { isMicroRemedError } from "../../src/errors.js";
import { freeOptions, identity } from "../../src/runner/config.js";

function parse(args: string[], skip: Parameters<typeof addRunOptions>[1] = []) {
  const cmd = addRunOptions(new Command().exitOverride(), skip);
  cmd.parse(args, { from: "user" });
  return toRunConfig(cmd.opts());
}

describe("the run's configuration", () => {
  it("has every default when only --model is given", () => {
    const c = parse(["--model", "oracle"]);
    expect(c).toMatchObject({
      env: "train-ticket",
      namespace: "train-ticket",
      method: "ThinkRemed",
      model: "oracle",
      savePath: "conversations",
      waitInterval: 10,
      injectionTimeout: 30,
      enableStrictRestart: false,
      seed: 42,
      settle: 10,
      playbookTimeout: 600,
      cluster: "sim",
      speed: 60,
      egress: "internet",
      methodSpeed: 1,
      parallel: 1,
      trials: 1,
      agentAccess: "namespace",
      sandbox: "bwrap",
    });
    expect(c.experimentPath).toMatch(/experiments\/easy\.txt$/);
    expect(c.inventory).toMatch(/inventory\.ini$/);
    for (const absent of [
      "experiments",
      "manifestPath",
      "maxAttempts",
      "kubeconfig",
      "context",
      "runName",
      "shard",
      "baseUrl",
    ] as const)
      expect(c[absent], absent).toBeUndefined();
  });

  it("reads each flag under its config name (--remediate-method is method) with its parser", () => {
    const c = parse([
      ...["--model", "noop", "--remediate-method", "SoloGen", "--env", "simple-micro", "--shard", "2/3"],
      ...["--trials", "3", "--method-speed", "5", "--agent-access", "cluster-admin", "--sandbox", "none"],
    ]);
    expect(c).toMatchObject({
      method: "SoloGen",
      namespace: "simple-micro",
      shard: { index: 2, count: 3 },
      trials: 3,
      methodSpeed: 5,
      agentAccess: "cluster-admin",
      sandbox: "none",
    });
  });

  it("records the identity a resume must match and the options free to differ, absent values as null", () => {
    const c = parse(["--model", "oracle", "--shard", "1/2", "--max-attempts", "3"]);
    expect(Object.keys(identity(c)).sort()).toEqual(
      [
        "env",
        "namespace",
        "experimentPath",
        "experiments",
        "method",
        "model",
        "seed",
        "maxAttempts",
        "settle",
        "injectionTimeout",
        "enableStrictRestart",
        "manifestPath",
        "agentAccess",
        "trials",
        "shard",
        "hold",
        "report",
        "noise",
      ].sort(),
    );
    expect(identity(c)).toMatchObject({
      shard: "1/2",
      maxAttempts: 3,
      experiments: null,
      manifestPath: null,
      hold: null,
    });
    expect(freeOptions(c)).toEqual({
      waitInterval: 10,
      context: null,
      playbookTimeout: 600,
      inventory: c.inventory,
      parallel: 1,
      sandbox: "bwrap",
    });
  });

  it("refuses a missing --model and a bad value with one line and the fix", () => {
    const usage = (args: string[], message: RegExp) => {
      try {
        parse(args);
        expect.unreachable();
      } catch (e) {
        expect(isMicroRemedError(e) && e.code).toBe("E_USAGE");
        expect((e as Error).message).toMatch(message);
      }
    };
    usage([], /^--model is required$/);
    usage(["--model", "oracle", "--cluster", "k8s"], /^--cluster must be sim or kube, got "k8s"$/);
    usage(["--model", "oracle", "--egress", "offline"], /^--egress must be internet or none/);
  });

  it("run-all leaves out the flags it sets itself", () => {
    const cmd = addRunOptions(new Command(), [
      "env",
      "model",
      "savePath",
      "experimentPath",
      "method",
      "runName",
    ]);
    expect(cmd.options.map((o) => o.long)).not.toContain("--remediate-method");
    expect(cmd.options.map((o) => o.long)).toContain("--trials");
  });
});
