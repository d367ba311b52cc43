// Through the built CLI: where bubblewrap cannot run, `run` refuses with a
// typed error that says what to do, unless --sandbox none, which run.json records; `doctor`
// says which applies. "Cannot run" is made real by a PATH that holds every tool but bwrap.
import {
  existsSync,
  lstatSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import { beforeAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { findTool } from "../../src/sandbox/tools.js";
import { CLI, checkBuilt, ROOT } from "../cli/cli-helpers.js";

/** A PATH with kubectl, ansible-playbook and python3, and no bwrap. */
function pathWithoutBwrap(): string {
  const dir = mkdtempSync(join(tmpdir(), "mr-nobwrap-"));
  for (const tool of ["kubectl", "ansible-playbook", "ansible-galaxy", "python3"]) {
    const found = findTool(tool);
    if (found) symlinkSync(found, join(dir, tool));
  }
  return dir;
}

const run = (args: string[], path?: string) =>
  execa(process.execPath, [CLI, ...args], {
    reject: false,
    timeout: 240_000,
    cwd: ROOT,
    env: path ? { PATH: path } : {},
  });

const CASE = [
  "--env",
  "simple-micro",
  "--model",
  "oracle",
  "--remediate-method",
  "SoloGen",
  "--experiment-path",
  "experiments/pod-fail.txt",
  "--experiments",
  "1",
];

beforeAll(() => checkBuilt());

describe("--sandbox", () => {
  it("run refuses with E_SANDBOX where bwrap is missing, and says what to do", async () => {
    const save = mkdtempSync(join(tmpdir(), "mr-runs-"));
    const r = await run(["run", ...CASE, "--save-path", save], pathWithoutBwrap());
    expect(r.exitCode).not.toBe(0);
    expect(String(r.stderr)).toMatch(
      /error E_SANDBOX: playbooks cannot be sandboxed: bubblewrap \(bwrap\) is not installed \(fix: apt-get install bubblewrap .*or pass --sandbox none\)/,
    );
  }, 240_000);

  it("--sandbox none runs there, and run.json records it", async () => {
    const save = mkdtempSync(join(tmpdir(), "mr-runs-"));
    const r = await run(["run", ...CASE, "--save-path", save, "--sandbox", "none"], pathWithoutBwrap());
    expect(r.exitCode, String(r.stderr)).toBe(0);
    const [runDir] = readdirSync(save);
    const recorded = JSON.parse(readFileSync(join(save, runDir, "run.json"), "utf8"));
    expect(recorded.options.sandbox).toBe("none");
    const [rec] = readFileSync(join(save, runDir, "cases.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(rec.status).toBe("success");
  }, 240_000);

  it("run records bwrap by default", async () => {
    const save = mkdtempSync(join(tmpdir(), "mr-runs-"));
    const r = await run(["run", ...CASE, "--save-path", save]);
    expect(r.exitCode, String(r.stderr)).toBe(0);
    const [runDir] = readdirSync(save);
    expect(JSON.parse(readFileSync(join(save, runDir, "run.json"), "utf8")).options.sandbox).toBe("bwrap");
    // the playbook's API requests are in the case's audit log
    expect(readFileSync(join(save, runDir, "case-001", "api-audit.jsonl"), "utf8")).toMatch(/"path":"\/api/);
  }, 240_000);

  it("a link a playbook leaves in its case folder does not make the runner write to the host", async () => {
    const save = mkdtempSync(join(tmpdir(), "mr-runs-"));
    const victim = join(mkdtempSync(join(tmpdir(), "mr-victim-")), "precious");
    writeFileSync(victim, "untouched");
    // the runner writes conversation.json into the case folder after the playbook ran
    const model = join(save, "plant.yaml");
    writeFileSync(
      model,
      stringify({
        turns: [
          {
            toolCalls: [
              {
                name: "print_playbook",
                arguments: {
                  playbook: `- hosts: localhost\n  gather_facts: false\n  tasks:\n    - ansible.builtin.shell: ln -sf ${victim} conversation.json; mkdir -p sub; ln -sf /etc/hostname sub/link\n`,
                },
              },
            ],
            usage: { inputTokens: 10, outputTokens: 10 },
          },
        ],
      }),
    );
    const r = await run([
      "run",
      ...CASE.map((a) => (a === "oracle" ? `scripted:${model}` : a)),
      "--save-path",
      save,
      "--run-name",
      "plant",
    ]);
    expect(r.exitCode, String(r.stderr)).toBe(0);
    expect(readFileSync(victim, "utf8")).toBe("untouched");
    const caseDir = join(save, "plant", "case-001");
    expect(lstatSync(join(caseDir, "conversation.json")).isFile()).toBe(true);
    expect(existsSync(join(caseDir, "sub", "link"))).toBe(false);
  }, 240_000);

  it("an unknown mode is a usage error", async () => {
    const r = await run(["run", ...CASE, "--sandbox", "docker"]);
    expect(r.exitCode).not.toBe(0);
    expect(String(r.stderr)).toContain('--sandbox must be bwrap or none, not "docker"');
  }, 60_000);
});

describe("doctor", () => {
  it("says whether playbooks can be sandboxed here", async () => {
    const ok = await run(["doctor"]);
    expect(String(ok.stdout)).toMatch(/^ok {3}sandbox: playbooks run in bubblewrap \(bubblewrap [\d.]+\)$/m);
    const missing = await run(["doctor"], pathWithoutBwrap());
    expect(String(missing.stdout)).toMatch(
      /^FAIL sandbox: bubblewrap \(bwrap\) is not installed, so run refuses unless --sandbox none — fix: apt-get install bubblewrap/m,
    );
    expect(missing.exitCode).toBe(1);
  }, 120_000);
});
