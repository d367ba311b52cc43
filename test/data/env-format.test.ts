// The env folder format: the three built-in systems load through the same schema a user's folder
// does (env.yaml, topology.yaml), and a mistake in a folder is named by file, line and fix.
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { envsDir, listEnvs, loadEnv } from "../../src/envs/env.js";
import { MicroRemedError } from "../../src/errors.js";

function errorOf(fn: () => unknown): MicroRemedError {
  try {
    fn();
  } catch (e) {
    if (e instanceof MicroRemedError) return e;
    throw e;
  }
  throw new Error("expected an error");
}

/** A copy of simple-micro in a temp folder with one file's text changed. */
function brokenCopy(file: string, edit: (text: string) => string): string {
  const dir = join(mkdtempSync(join(tmpdir(), "mr-env-")), "mine");
  cpSync(join(envsDir(), "simple-micro"), dir, { recursive: true });
  const p = join(dir, file);
  writeFileSync(p, edit(readFileSync(p, "utf8")));
  return dir;
}

const lineOf = (dir: string, file: string, needle: string) =>
  readFileSync(join(dir, file), "utf8")
    .split("\n")
    .findIndex((l) => l.includes(needle)) + 1;

describe("env folders", () => {
  it("the built-in systems are in the format a user writes", () => {
    expect(listEnvs()).toEqual(["online-boutique", "simple-micro", "train-ticket"]);
    for (const name of listEnvs()) {
      const env = loadEnv(name);
      expect(env.topology.system).toBe(name);
      expect(Object.keys(env.topology.services).length).toBeGreaterThan(1);
    }
  });

  it("a folder given by path loads the same as the built-in one", () => {
    const dir = brokenCopy("env.yaml", (t) => t);
    const mine = loadEnv(dir);
    const builtin = loadEnv("simple-micro");
    expect(mine.dir).toBe(dir);
    expect(mine.topology).toEqual(builtin.topology);
    expect(mine.manifests).toEqual(builtin.manifests);
  });

  it.each([
    [
      "a typo in the topology",
      "topology.yaml",
      (t: string) =>
        t.replace(
          "    protocol: http\n    lang: python\n    calls: [time-service]",
          "    protocol: http\n    lang: python\n    cals: [time-service]",
        ),
      "cals: [time-service]",
      /services\.hello-service: unknown field "cals"/,
      /remove "cals"; allowed here: kind, container, services, port, protocol, lang, calls/,
    ],
    [
      "a runtime figure of the wrong type",
      "topology.yaml",
      (t: string) => t.replace("memory: 40,", "memory: forty,"),
      "memory: forty",
      /services\.hello-service\.runtime\.memory: must be number/,
      /working set in Mi/,
    ],
    [
      "a call to a service the topology lacks",
      "topology.yaml",
      (t: string) => t.replace("calls: [time-service]", "calls: [clock-service]"),
      "calls: [clock-service]",
      /services\.hello-service\.calls: "clock-service" is not a service of this topology/,
      /call one of: hello-service, time-service/,
    ],
    [
      "a fault target the manifests do not deploy",
      "env.yaml",
      (t: string) =>
        t.replace("pod-fail: [hello-service, time-service]", "pod-fail: [hello-service, tme-service]"),
      "pod-fail: [hello-service, tme-service]",
      /faultTargets\.pod-fail: "tme-service" is not a Deployment of the manifests/,
      /use one of: time-service, hello-service/,
    ],
    [
      "a missing field",
      "env.yaml",
      (t: string) => t.replace("defaultNamespace: simple-micro\n", ""),
      "name: simple-micro",
      /\(top level\): "defaultNamespace" is missing/,
      /add "defaultNamespace": a DNS-1123 namespace name/,
    ],
  ])("%s is named by file, line and fix", (_what, file, edit, needle, message, fix) => {
    const dir = brokenCopy(file, edit);
    const e = errorOf(() => loadEnv(dir));
    expect(e.code).toBe("E_CONFIG");
    expect(e.message.startsWith(`${join(dir, file)}:${lineOf(dir, file, needle)}: `), e.message).toBe(true);
    expect(e.message).toMatch(message);
    expect(e.fix).toMatch(fix);
  });

  it("a folder without env.yaml, and an unknown name, say what to pass", () => {
    const empty = mkdtempSync(join(tmpdir(), "mr-env-"));
    expect(errorOf(() => loadEnv(empty)).message).toBe(`${empty} has no env.yaml`);
    expect(errorOf(() => loadEnv("nope")).fix).toMatch(/simple-micro.*or a folder with an env.yaml/);
  });
});
