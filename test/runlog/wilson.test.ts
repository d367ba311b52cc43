// The 95% Wilson interval against published values: Newcombe (1998), "Two-sided confidence
// intervals for the single proportion", Statistics in Medicine 17:857-872, table I, method 3
// (the score interval without continuity correction), and statsmodels' proportion_confint(...,
// method="wilson") for 8/10.
import { describe, expect, it } from "vitest";
import { wilson, Z95 } from "../../src/runlog/wilson.js";

const cases: [number, number, number, number][] = [
  [81, 263, 0.2553, 0.3662],
  [15, 148, 0.0624, 0.1605],
  [0, 20, 0, 0.1611],
  [1, 29, 0.0061, 0.1718],
  [8, 10, 0.4902, 0.9433],
];

describe("wilson", () => {
  it.each(cases)("%i/%i → [%f, %f]", (s, n, low, high) => {
    const i = wilson(s, n)!;
    expect(i.low).toBeCloseTo(low, 4);
    expect(i.high).toBeCloseTo(high, 4);
  });

  it("is exactly 0 or 1 at the ends, and contains the rate", () => {
    expect(wilson(10, 10)).toEqual({ low: expect.closeTo(0.7225, 4), high: 1 });
    expect(wilson(0, 4)!.low).toBe(0);
    const i = wilson(3, 4)!;
    expect(i.low).toBeLessThan(0.75);
    expect(i.high).toBeGreaterThan(0.75);
  });

  it("has no interval for no evaluated case, and refuses impossible counts", () => {
    expect(wilson(0, 0)).toBeNull();
    expect(() => wilson(5, 4)).toThrow(RangeError);
  });

  it("uses the two-sided 95% normal quantile", () => {
    expect(Z95).toBeCloseTo(1.96, 2);
  });
});
