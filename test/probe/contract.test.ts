// The probe's contract as the model reads it in the tool's description: every limit it will meet
// and every kind of refusal, with the numbers the probe enforces.
import { describe, expect, it } from "vitest";
import { cut, probeContract } from "../../src/probe/index.js";
import { READ_VERBS } from "../../src/probe/kubectl.js";

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
