import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadEnv } from "../../src/envs/env.js";
import { MicroRemedError } from "../../src/errors.js";
import {
  loadExperimentFile,
  parseExperimentText,
  parseExperimentYaml,
  planCases,
} from "../../src/runner/experiments.js";
import { confirmation } from "../../src/runner/roles.js";

const dir = mkdtempSync(join(tmpdir(), "mr-exp-"));
const write = (name: string, text: string) => {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
};

describe("experiment files", () => {
  it("reads the reference's text format with comments", () => {
    const e = parseExperimentText("# header\ncpu-stress\n\n  pod-fail  # trailing\n", "x.txt");
    expect(e.cases.map((c) => c.faults[0].failure)).toEqual(["cpu-stress", "pod-fail"]);
  });

  it("names the line of an unknown failure type", () => {
    expect(() => parseExperimentText("cpu-stress\ncpu-stres\n", "bad.txt")).toThrow(
      /bad.txt:2: unknown failure type "cpu-stres"/,
    );
  });

  it("rejects an empty file", () => {
    expect(() => parseExperimentText("# nothing\n", "e.txt")).toThrow(MicroRemedError);
  });

  it("reads YAML with targets, several faults and parameters", () => {
    const e = parseExperimentYaml(
      "seed: 7\ncases:\n  - cpu-stress\n  - failure: network-delay\n    target: time-service\n    params: {delay: {latency: 500ms}}\n  - faults:\n      - {failure: cpu-stress, target: hello-service}\n      - {failure: pod-fail, target: time-service}\n",
      "x.yaml",
    );
    expect(e.seed).toBe(7);
    expect(e.cases[1].faults[0]).toEqual({
      failure: "network-delay",
      target: "time-service",
      params: { delay: { latency: "500ms" } },
    });
    expect(e.cases[2].faults).toHaveLength(2);
  });

  it("says what is wrong in a YAML file", () => {
    expect(() => parseExperimentYaml("cases:\n  - failure: cpu-stress\n    taget: x\n", "t.yaml")).toThrow(
      /unknown field "taget"/,
    );
    expect(() => parseExperimentYaml("cases: [", "t.yaml")).toThrow(/not valid YAML/);
    expect(() =>
      parseExperimentYaml(
        "cases:\n  - faults:\n    - {failure: cpu-stress, target: a}\n    - {failure: pod-fail, target: a}\n",
        "t.yaml",
      ),
    ).toThrow(/two faults on one service/);
  });

  it("a missing file is a clear error", () => {
    expect(() => loadExperimentFile(join(dir, "nope.txt"))).toThrow(/cannot read experiment file/);
  });

  it("the shipped tiers have the reference's sizes", () => {
    expect(loadExperimentFile("experiments/easy.txt").cases).toHaveLength(23);
    expect(loadExperimentFile("experiments/medium.txt").cases).toHaveLength(49);
    expect(loadExperimentFile("experiments/hard.txt").cases).toHaveLength(80);
  });
});

describe("planning cases", () => {
  const env = loadEnv("online-boutique");
  const exp = loadExperimentFile("experiments/hard.txt");

  it("draws targets from the env's lists, the same for the same seed", () => {
    const a = planCases(exp, env, 1);
    const b = planCases(exp, env, 1);
    const c = planCases(exp, env, 2);
    expect(a).toEqual(b);
    expect(a).not.toEqual(c);
    for (const pc of a) for (const f of pc.faults) expect(env.faultTargets[f.failure]).toContain(f.target);
  });

  it("cycles when asked for more cases than the file has, and cuts when fewer", () => {
    expect(planCases(exp, env, 1, 3)).toHaveLength(3);
    const more = planCases(loadExperimentFile(write("two.txt", "cpu-stress\npod-fail\n")), env, 1, 5);
    expect(more.map((c) => c.faults[0].failure)).toEqual([
      "cpu-stress",
      "pod-fail",
      "cpu-stress",
      "pod-fail",
      "cpu-stress",
    ]);
  });

  it("keeps explicit targets and refuses unknown ones", () => {
    const e = loadExperimentFile(write("t.yaml", "cases:\n  - {failure: cpu-stress, target: frontend}\n"));
    expect(planCases(e, env, 1)[0].faults[0].target).toBe("frontend");
    const bad = loadExperimentFile(write("b.yaml", "cases:\n  - {failure: cpu-stress, target: nosuch}\n"));
    expect(() => planCases(bad, env, 1)).toThrow(/not a workload of online-boutique/);
  });

  it("refuses a target where the failure cannot take effect, naming where it can", () => {
    // redis-cart mounts nothing at /var/log/mysql: an IOChaos there never takes effect
    const exp = loadExperimentFile(write("io.yaml", "cases:\n  - {failure: disk-io, target: redis-cart}\n"));
    const e = (() => {
      try {
        planCases(exp, env, 1);
      } catch (err) {
        return err as MicroRemedError;
      }
      throw new Error("planned");
    })();
    expect(e.code).toBe("E_EXPERIMENT_FILE");
    expect(e.message).toBe(
      'case 1: disk-io cannot take effect on "redis-cart" in online-boutique; its targets are adservice, cartservice, checkoutservice, currencyservice, emailservice, frontend, loadgenerator, paymentservice, productcatalogservice, recommendationservice, shippingservice',
    );
    expect(e.fix).toContain("faultTargets.disk-io");
  });
});

describe("confirmation", () => {
  const reading = {
    reason: "dd could not write /var/log/mysql/x: No such file or directory",
    measurements: {},
  };

  it("takes a check that finds the system unhealthy as the fault shown", () => {
    expect(confirmation({ pass: false, ...reading }, 30)).toMatchObject({ faultShown: true });
  });

  it("never takes an inconclusive check as the fault shown", () => {
    const v = confirmation({ pass: false, inconclusive: true, ...reading }, 30);
    expect(v.faultShown).toBe(false);
    expect(v.reason).toBe(
      "the fault's check could not measure within 30 s, so the fault was not seen to take effect: dd could not write /var/log/mysql/x: No such file or directory",
    );
  });

  it("says the fault did not show when the check still passes", () => {
    expect(confirmation({ pass: true, ...reading }, 30, true).reason).toMatch(
      /^the fault did not show within 30 s \(again after a strict restart of the target\): /,
    );
  });
});

describe("drawing the expert tier's targets", () => {
  it("leaves the user-facing check a pod to request from in every case with two faults", async () => {
    const { readFileSync } = await import("node:fs");
    const env = loadEnv("simple-micro");
    const exp = parseExperimentText(readFileSync("experiments/expert.txt", "utf8"), "expert.txt");
    for (const seed of [1, 2, 3, 42]) {
      const two = planCases(exp, env, seed).filter((c) => c.faults.length > 1);
      expect(two.length).toBeGreaterThan(0);
      for (const c of two) {
        const hit = new Set(c.faults.map((f) => f.target));
        expect(
          env.userCheck?.from.apps.some((a) => !hit.has(a)),
          JSON.stringify(c),
        ).toBe(true);
      }
    }
  });
});
