// What a cluster's evidence must satisfy to tell one story: the least time restarts take under
// kubelet's back-off, and kubectl's printed ages read back as seconds.

/** The least cluster time n restarts take under kubelet's crash back-off (none before the first). */
export function leastForRestarts(n: number): number {
  let s = 0;
  for (let i = 1; i < n; i++) s += Math.min(10 * 2 ** (i - 1), 300);
  return s;
}

/** How much a printed age may round down: kubectl drops seconds past 10 minutes, minutes past some hours. */
export function ageGrain(age: string): number {
  if (/s/.test(age)) return 1;
  if (/m/.test(age)) return 60;
  if (/h/.test(age)) return 3600;
  return 86400;
}

/** kubectl's printed age ("3m12s", "26m", "2d3h", "45s") in seconds, rounded down as it prints. */
export function ageSeconds(age: string): number {
  const units: Record<string, number> = { d: 86400, h: 3600, m: 60, s: 1, y: 365 * 86400 };
  let s = 0;
  for (const [, v, u] of age.matchAll(/(\d+)([ydhms])/g)) s += Number(v) * units[u];
  return s;
}
