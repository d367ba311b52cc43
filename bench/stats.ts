// Small helpers for benchmarks: percentiles and a timer.

export function percentile(xs: number[], p: number): number {
  if (!xs.length) return Number.NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)];
}

export const ms = (x: number) => `${x.toFixed(2)} ms`;

export function line(name: string, value: string, target?: string) {
  process.stdout.write(`  ${name.padEnd(52)} ${value}${target ? `   (target ${target})` : ""}\n`);
}

export const mb = (bytes: number) => `${(bytes / 1048576).toFixed(0)} MB`;
