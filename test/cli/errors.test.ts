// Bad input to the CLI: one line with the fix, a non-zero exit code, nothing started.
import { existsSync, mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import { describe, expect, it } from "vitest";

const dir = mkdtempSync(join(tmpdir(), "mr-cli-"));
const cli = (args: string[], env: Record<string, string> = {}) =>
  execa(process.execPath, ["dist/src/cli/main.js", ...args], { reject: false, env, timeout: 60_000 });
const file = (name: string, text: string) => {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
};
const base = [
  "run",
  "--env",
  "simple-micro",
  "--save-path",
  dir,
  "--remediate-method",
  "SoloGen",
  "--model",
  "oracle",
];

function oneLine(r: { stderr: unknown; exitCode?: number }, code: string, fix: RegExp) {
  const err = String(r.stderr).trim();
  expect(err.split("\n")).toHaveLength(1);
  expect(err).toMatch(new RegExp(`^error ${code}: `));
  expect(err).toMatch(fix);
  expect(r.exitCode).not.toBe(0);
}

describe("run refuses bad input with one line", () => {
  it("an experiment file with an unknown failure", async () => {
    oneLine(
      await cli([...base, "--experiment-path", file("bad.txt", "cpu-stress\nno-such\n")]),
      "E_EXPERIMENT_FILE",
      /bad\.txt:2.*fix: write one failure id per line/,
    );
  });
  it("a target where the failure cannot take effect", async () => {
    oneLine(
      await cli([
        "run",
        "--env",
        "online-boutique",
        "--model",
        "oracle",
        "--save-path",
        dir,
        "--experiment-path",
        file("io.yaml", "cases:\n  - {failure: disk-io, target: redis-cart}\n"),
      ]),
      "E_EXPERIMENT_FILE",
      /disk-io cannot take effect on "redis-cart" in online-boutique; its targets are adservice, .*fix: pick one of them/,
    );
  });
  it("a missing experiment file", async () => {
    oneLine(
      await cli([...base, "--experiment-path", join(dir, "nope.txt")]),
      "E_EXPERIMENT_FILE",
      /cannot read experiment file/,
    );
  });
  it("an unknown env, method or model", async () => {
    oneLine(
      await cli(["run", "--env", "nope", "--model", "oracle", "--save-path", dir]),
      "E_UNKNOWN_ENV",
      /use one of: online-boutique, simple-micro, train-ticket/,
    );
    oneLine(
      await cli([...base, "--remediate-method", "Magic"]),
      "E_UNKNOWN_METHOD",
      /use one of: SoloGen, ThinkRemed/,
    );
    oneLine(
      await cli(["run", "--env", "simple-micro", "--model", "vllm/", "--save-path", dir]),
      "E_UNKNOWN_MODEL",
      /fix:/,
    );
  });
  it("a provider model without its key", async () => {
    oneLine(
      await cli(["run", "--env", "simple-micro", "--model", "gpt-4o", "--save-path", dir], {
        OPENAI_API_KEY: "",
        LLM_API_KEY: "",
        PATH: process.env.PATH ?? "",
      }),
      "E_MISSING_API_KEY",
      /OPENAI_API_KEY/,
    );
  });
  it("bad flag values", async () => {
    oneLine(await cli([...base, "--speed", "fast"]), "E_USAGE", /--speed must be a positive number/);
    oneLine(await cli([...base, "--cluster", "k8s"]), "E_USAGE", /--cluster must be sim or kube/);
  });
  it("a missing tool", async () => {
    // PATH with node but without kubectl and ansible-playbook
    const bin = join(dir, "bin");
    mkdirSync(bin, { recursive: true });
    if (!existsSync(join(bin, "node"))) symlinkSync(process.execPath, join(bin, "node"));
    oneLine(
      await cli([...base], { PATH: bin }),
      "E_MISSING_TOOL",
      /(kubectl|ansible-playbook) was not found on PATH/,
    );
  });
  it("a kubeconfig that does not exist", async () => {
    oneLine(
      await cli([...base, "--cluster", "kube", "--kubeconfig", join(dir, "none")]),
      "E_CLUSTER_UNREACHABLE",
      /no kubeconfig at/,
    );
  });
});
