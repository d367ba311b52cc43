// A small seeded PRNG (mulberry32): every random choice in MicroRemed is reproducible from a seed.

export class Rng {
  private s: number;

  constructor(seed: number | string = 42) {
    this.s = typeof seed === "number" ? seed >>> 0 : hashString(seed);
  }

  /** A float in [0, 1). */
  next(): number {
    this.s = (this.s + 0x6d2b79f5) >>> 0;
    let t = this.s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  int(n: number): number {
    return Math.floor(this.next() * n);
  }

  pick<T>(xs: readonly T[]): T {
    if (xs.length === 0) throw new RangeError("pick from an empty list");
    return xs[this.int(xs.length)];
  }

  /** Random characters from an alphabet, as Kubernetes' generateName suffixes. */
  chars(n: number, alphabet = "bcdfghjklmnpqrstvwxz2456789"): string {
    let out = "";
    for (let i = 0; i < n; i++) out += alphabet[this.int(alphabet.length)];
    return out;
  }
}

export function hashString(s: string): number {
  let h = 2166136261;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 16777619);
  }
  return h >>> 0;
}
