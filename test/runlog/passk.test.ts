// The estimators of repeated trials against values worked by hand:
//   pass@k = 1 − C(n−c, k) / C(n, k)   (Chen et al. 2021, "Evaluating Large Language Models
//            Trained on Code", eq. 1 — https://arxiv.org/abs/2107.03374)
//   pass^k = C(c, k) / C(n, k)         (Yao et al. 2024, τ-bench — https://arxiv.org/abs/2406.12045)
import { describe, expect, it } from "vitest";
import { passAtK, passHatK, passK } from "../../src/runlog/passk.js";
import { wilson } from "../../src/runlog/wilson.js";

describe("pass@k and pass^k of one case", () => {
  it("n=3, c=1, k=3: some trial passed, not all", () => {
    expect(passAtK(3, 1, 3)).toBe(1);
    expect(passHatK(3, 1, 3)).toBe(0);
  });

  it("n=5, c=2, k=2: 1 − C(3,2)/C(5,2) = 0.7 and C(2,2)/C(5,2) = 0.1", () => {
    expect(passAtK(5, 2, 2)).toBeCloseTo(0.7, 12);
    expect(passHatK(5, 2, 2)).toBeCloseTo(0.1, 12);
  });

  it("k=1 is the success rate, for both", () => {
    for (const [n, c] of [
      [4, 0],
      [4, 1],
      [4, 3],
      [4, 4],
    ]) {
      expect(passAtK(n, c, 1)).toBeCloseTo(c / n, 12);
      expect(passHatK(n, c, 1)).toBeCloseTo(c / n, 12);
    }
  });

  it("n=10, c=3, k=5: 1 − C(7,5)/C(10,5) = 1 − 21/252, C(3,5) = 0", () => {
    expect(passAtK(10, 3, 5)).toBeCloseTo(1 - 21 / 252, 12);
    expect(passHatK(10, 3, 5)).toBe(0);
    // all passed: both are 1; none passed: both are 0
    expect([passAtK(6, 6, 3), passHatK(6, 6, 3)]).toEqual([1, 1]);
    expect([passAtK(6, 0, 3), passHatK(6, 0, 3)]).toEqual([0, 0]);
  });
});

describe("passK over cases", () => {
  const T = true;
  const F = false;

  it("averages the per-case estimates", () => {
    // case 1: 1 of 3; case 2: 3 of 3; case 3: 0 of 3
    const p = passK(
      [
        [T, F, F],
        [T, T, T],
        [F, F, F],
      ],
      3,
    )!;
    expect(p).toMatchObject({ k: 3, cases: 3, passAt1: 0.444, passAtK: 0.667, passHatK: 0.333 });
    // with n = k each case's estimate is 0 or 1: the interval is Wilson's over those counts
    const w = wilson(2, 3)!;
    expect(p.intervals.passAtK).toEqual([Math.round(w.low * 1000) / 1000, Math.round(w.high * 1000) / 1000]);
    expect(p.intervals.passHatK[0]).toBeLessThan(p.passHatK);
    expect(p.intervals.passHatK[1]).toBeGreaterThan(p.passHatK);
  });

  it("leaves out cases with fewer than k evaluated trials; nothing to estimate is undefined", () => {
    const p = passK([[T, T, T], [F, F], [T]], 3)!;
    expect(p).toMatchObject({ cases: 1, passAt1: 1, passAtK: 1, passHatK: 1 });
    expect(passK([[T, F]], 3)).toBeUndefined();
    expect(passK([], 2)).toBeUndefined();
    expect(passK([[T]], 0)).toBeUndefined();
  });

  it("uses every trial of a case run more than k times (n=5, c=2, k=2)", () => {
    expect(passK([[T, T, F, F, F]], 2)).toMatchObject({ passAt1: 0.4, passAtK: 0.7, passHatK: 0.1 });
  });
});
