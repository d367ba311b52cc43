// The probe's contract as the model reads it in the tool's description: every limit it will meet
// and every kind of refusal, with the numbers the probe enforces.
import { describe, expect, it } from "vitest";
import { URL_RULE } from "../../src/probe/exec-net.js";
import { BIN_DIRS, EXEC_RULES } from "../../src/probe/exec-rules.js";
import { FILTER_RULES } from "../../src/probe/filters.js";
import { cut, DEFAULT_PROBE_LIMITS, probeContract } from "../../src/probe/index.js";
import { READ_VERBS } from "../../src/probe/kubectl.js";
import { OUTPUT_FORMATS, REFUSED } from "../../src/probe/kubectl-flags.js";
import { CAPTURE_BYTES, MIN_SHARE } from "../../src/probe/limits.js";
import { MAX_PROGRAM } from "../../src/probe/regex.js";
import { MAX_REPEAT } from "../../src/probe/regex-parse.js";
import { MAX_STAGES } from "../../src/probe/tokenize.js";

describe("the probe's contract", () => {
  const text = probeContract({ timeoutSeconds: 7, maxOutput: 5000, maxCommands: 4 });

  it("states the time limit, the output limit and the commands per call it was given", () => {
    expect(text).toContain("stopped after 7 s");
    expect(text).toContain("at most 5000 characters");
    expect(text).toContain("at most 4 per call");
  });

  it("names every command it allows and every kind of refusal", () => {
    for (const verb of READ_VERBS) expect(text).toContain(verb);
    for (const syntax of [
      "$(...)",
      "backticks",
      "$VAR",
      "&&",
      "||",
      "(...)",
      ">, >>, <",
      "--watch",
      "--follow",
    ])
      expect(text).toContain(syntax);
    expect(text).toContain("2>&1");
    expect(text).toContain("2>/dev/null");
  });

  it("says how long output is cut, so a model knows to narrow it", () => {
    expect(text).toMatch(/first and last lines/);
    expect(text).toContain("how many lines were cut");
  });

  // an audit of the contract found the URL rules, ping's bounds, print-only date/hostname, env
  // without arguments, the bin folders, grep's limits and the capture cap enforced but unstated
  it("has a line for every exec rule, each starting with its program", () => {
    for (const [name, rule] of Object.entries(EXEC_RULES)) {
      expect(rule.usage.split(" ")[0], name).toBe(name);
      expect(text, name).toContain(rule.usage);
    }
    expect(text).toContain(URL_RULE);
    expect(text).toContain(BIN_DIRS.join(" "));
    for (const bound of ["N from 1 to 10", "-i 0.2 s or more", "-w 30 s or less", "env (no arguments)"])
      expect(text).toContain(bound);
  });

  it("has a line for every filter, grep's limits and every refused kubectl flag and output format", () => {
    for (const [name, rule] of Object.entries(FILTER_RULES)) {
      expect(rule.usage.split(" ")[0], name).toBe(name);
      expect(text, name).toContain(rule.usage);
    }
    expect(text).toContain(`up to ${MAX_STAGES - 1} after kubectl`);
    expect(text).toContain("no backreferences");
    expect(text).toContain(`repetition counts up to ${MAX_REPEAT}`);
    expect(text).toContain(`at most ${MAX_PROGRAM} states`);
    for (const [flag] of REFUSED) expect(text).toMatch(new RegExp(`--${flag.long}[ .]`));
    expect(text).toContain(OUTPUT_FORMATS.join("|"));
  });

  it("states the capture cap and each command's least share of the output", () => {
    expect(text).toContain(`after ${CAPTURE_BYTES} bytes of output`);
    expect(text).toContain(`at least ${MIN_SHARE} each`);
  });

  it("is short enough for a tool's description", () => {
    expect(probeContract(DEFAULT_PROBE_LIMITS).length).toBeLessThan(4000);
  });
});

describe("cut", () => {
  it("keeps a short output whole", () => {
    expect(cut("a\nb", 10)).toBe("a\nb");
  });

  it("cuts one line longer than the budget in its middle, keeping both ends", () => {
    const line = `${"a".repeat(500)}${"z".repeat(500)}`;
    const out = cut(line, 100);
    expect(out.startsWith("a".repeat(50))).toBe(true);
    expect(out.endsWith("z".repeat(50))).toBe(true);
    expect(out).toContain("900 characters cut from the middle of this 1000-character line");
  });
});
