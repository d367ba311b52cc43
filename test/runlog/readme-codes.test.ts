// The README's table of reason codes is the one users read: every code of the table in
// src/outcome.ts must appear in it, so a new code cannot go undocumented.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { REASON_CODES } from "../../src/outcome.js";

describe("README", () => {
  it("documents every reason code", () => {
    const readme = readFileSync(join(import.meta.dirname, "../../README.md"), "utf8");
    const section = readme.slice(
      readme.indexOf("### How a case ends"),
      readme.indexOf("### Experiment files"),
    );
    for (const code of Object.keys(REASON_CODES)) expect(section, code).toContain(`\`${code}\``);
  });
});
