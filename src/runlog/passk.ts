// Reliability over repeated trials, as agent benchmarks report it. Per case with n trials of
// which c passed:
//   pass@k  = 1 − C(n−c, k) / C(n, k)   the chance that at least one of k samples passes
//             (the unbiased estimator of Chen et al., 2021, "Evaluating Large Language Models
//             Trained on Code")
//   pass^k  = C(c, k) / C(n, k)         the chance that all k samples pass (τ-bench's pass^k)
// averaged over cases; pass@1 = pass^1 = the mean success rate per trial. Intervals: Wilson over
// cases, with the summed per-case estimate as the count (exact when n = k, where each case's
// estimate is 0 or 1).

import { round } from "./figures.js";
import { wilson } from "./wilson.js";

function choose(n: number, k: number): number {
  if (k < 0 || k > n) return 0;
  let r = 1;
  for (let i = 1; i <= k; i++) r = (r * (n - k + i)) / i;
  return r;
}

export const passAtK = (n: number, c: number, k: number) =>
  n - c < k ? 1 : 1 - choose(n - c, k) / choose(n, k);
export const passHatK = (n: number, c: number, k: number) => choose(c, k) / choose(n, k);

export interface PassK {
  k: number;
  cases: number;
  passAt1: number;
  passAtK: number;
  passHatK: number;
  /** 95% Wilson intervals [low, high]. */
  intervals: { passAt1: [number, number]; passAtK: [number, number]; passHatK: [number, number] };
}

/** From each case's outcomes (true = success), over the cases that have at least k trials. */
export function passK(outcomes: boolean[][], k: number): PassK | undefined {
  const cases = outcomes.filter((o) => o.length >= k);
  if (!cases.length || k < 1) return undefined;
  const mean = (f: (n: number, c: number) => number) =>
    cases.reduce((s, o) => s + f(o.length, o.filter(Boolean).length), 0) / cases.length;
  const at1 = mean((n, c) => c / n);
  const atK = mean((n, c) => passAtK(n, c, k));
  const hatK = mean((n, c) => passHatK(n, c, k));
  const ci = (p: number): [number, number] => {
    const w = wilson(Math.round(p * cases.length), cases.length) ?? { low: 0, high: 1 };
    return [round(w.low), round(w.high)];
  };
  return {
    k,
    cases: cases.length,
    passAt1: round(at1),
    passAtK: round(atK),
    passHatK: round(hatK),
    intervals: { passAt1: ci(at1), passAtK: ci(atK), passHatK: ci(hatK) },
  };
}
