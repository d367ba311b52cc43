// The 95% Wilson score interval for a success rate. Unlike the normal approximation it stays
// inside [0, 1] and is honest for the small case counts a benchmark tier has (10-50 cases),
// including 0/n and n/n, where the normal interval collapses to a point.

/** Two-sided 95%: the 0.975 quantile of the standard normal. */
export const Z95 = 1.959963984540054;

export interface Interval {
  low: number;
  high: number;
}

/** The interval for `successes` out of `n`; null when nothing was evaluated (no rate to bound). */
export function wilson(successes: number, n: number, z = Z95): Interval | null {
  if (n <= 0) return null;
  if (successes < 0 || successes > n) throw new RangeError(`wilson: ${successes} successes out of ${n}`);
  const p = successes / n;
  const z2 = z * z;
  const denom = 1 + z2 / n;
  const centre = (p + z2 / (2 * n)) / denom;
  const half = (z / denom) * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n));
  // at the ends the bound is exactly 0 or 1; floating point would give 1e-17 or 0.9999999999999999
  return {
    low: successes === 0 ? 0 : Math.max(0, centre - half),
    high: successes === n ? 1 : Math.min(1, centre + half),
  };
}
