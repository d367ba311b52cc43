// grep's patterns matched by an automaton (src/probe/regex.ts): GNU grep's syntax (basic by
// default, extended with -E; GNU grep manual, "Regular Expressions": \w \W \s \S \b \B \< \>,
// \| \+ \? in basic syntax, a leading * literal), and patterns that make a backtracking engine
// take exponential time answered at once, or stopped by the work budget; outcomes, not times.
import { describe, expect, it } from "vitest";
import { compileGrep, type PatternOptions } from "../../src/probe/regex.js";

const m = (p: string, line: string, o: PatternOptions = {}) => compileGrep([p], o).test(line);
const e = { extended: true };

describe("GNU grep syntax", () => {
  it.each([
    ["cart\\|redis", "redis Running", {}, true],
    ["a|b", "ab", {}, false],
    ["a|b", "x a|b", {}, true],
    ["a|b", "b", e, true],
    ["a\\{2\\}", "xaay", {}, true],
    ["a{2}", "xaay", {}, false],
    ["a{2,3}", "xaay", e, true],
    ["a{,2}b", "b", e, true],
    ["^Name:", "Name: web", {}, true],
    ["^Name:", " Name: web", {}, false],
    ["a^b", "a^b", {}, true],
    ["a$b", "a$b", {}, true],
    ["x$", "abx", {}, true],
    ["[[:digit:]]+x", "12x", e, true],
    ["[^a-c]", "abc", {}, false],
    ["[]x]", "]", {}, true],
    ["[a\\]", "\\", {}, true],
    ["\\<Run", "cart Running", {}, true],
    ["\\bunning", "cart Running", {}, false],
    ["\\w+-\\w+", "cart-7d9", e, true],
    ["*a", "*a", {}, true],
    ["+a", "+a", e, true],
    ["a)", "a)", e, true],
    ["(ab)*c", "c", e, true],
    ["\\(ab\\)*c$", "ababc", {}, true],
    ["", "anything", {}, true],
    ["OOMKilled|Error", "Reason: OOMKilled", e, true],
  ])("%s on %s (%o) is %s", (p, line, o, want) => {
    expect(m(p, line, o)).toBe(want);
  });

  it("-i, -w, -x and -F", () => {
    expect(m("CART", "cart Running", { icase: true })).toBe(true);
    expect(m("[A-C]art", "cart", { icase: true })).toBe(true);
    expect(m("Run", "cart Running", { word: true })).toBe(false);
    expect(m("Run", "Run: 1", { word: true })).toBe(true);
    expect(m("cart", "cart", { line: true })).toBe(true);
    expect(m("cart", "cart x", { line: true })).toBe(false);
    expect(m("a.b", "axb", { fixed: true })).toBe(false);
    expect(m("a.b", "a.b", { fixed: true })).toBe(true);
    expect(compileGrep(["nope", "cart"]).test("cart")).toBe(true);
    expect(compileGrep(["nope\ncart"]).test("cart")).toBe(true);
  });

  it.each([
    ["(a)\\1", e, "backreferences"],
    ["\\(a\\)\\1", {}, "backreferences"],
    ["[abc", {}, "unmatched ["],
    ["(a", e, "unmatched ("],
    ["a\\)", {}, "unmatched \\)"],
    ["a{1,1000}", e, "repetition counts above 255"],
    ["a{3,1}", e, "invalid content"],
    ["[[:nope:]]", {}, "invalid character class"],
    ["((a{0,255}){0,255}){0,255}", e, "too large"],
  ])("refuses %s", (p, o, why) => {
    expect(() => compileGrep([p], o)).toThrow(why);
  });
});

describe("patterns that backtracking engines take exponential time on", () => {
  const long = `${"a".repeat(50_000)}b`;
  it.each([
    ["(a+)+$", long, false],
    ["^(a|aa)*$", long, false],
    ["(a*)*c", long, false],
    ["(.*a){12}$", long, false],
    ["(a+)+b$", long, true],
    ["(x+x+)+y", "x".repeat(50_000), false],
  ])("%s answers", (p, line, want) => {
    expect(m(p, line, e)).toBe(want);
  });

  it("a pattern whose work outruns the budget stops with undefined (the filter says so)", () => {
    const re = compileGrep(["(.*a){200}x"], { extended: true, budget: 1_000_000 });
    const answers = Array.from({ length: 50 }, () => re.test("a".repeat(2000)));
    expect(answers[0]).toBe(false);
    expect(answers.at(-1)).toBeUndefined();
  });
});
