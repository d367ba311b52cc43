// resource.Quantity as apimachinery keeps and prints it (pkg/api/resource/quantity.go): a value
// with the format its suffix chose (BinarySI "Mi", DecimalSI "m"/"k"/none, DecimalExponent "e3"),
// printed canonically by String(): the largest suffix that keeps the mantissa whole ("2048Mi" is
// "2Gi", "1536Mi" stays, "0.5" is "500m"); a binary value under 1024 or with a fraction prints as
// decimal. Sums keep the format of their first non-zero term (Quantity.Add). Values are held in
// thousandths so that CPU millis and memory bytes both stay whole numbers.

export type QuantityFormat = "BinarySI" | "DecimalSI" | "DecimalExponent";

export interface Qty {
  /** The value times 1000. */
  milli: number;
  format: QuantityFormat;
}

const DECIMAL: Record<string, number> = { n: -9, u: -6, m: -3, "": 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const BINARY: Record<string, number> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };

export const ZERO: Qty = { milli: 0, format: "DecimalSI" };

/** A quantity as the API server parses it, or undefined where it would refuse it. */
export function parseQty(input: string | number | undefined): Qty | undefined {
  if (input === undefined || input === null) return undefined;
  if (typeof input === "number") return { milli: Math.round(input * 1000), format: "DecimalSI" };
  const m = /^([+-]?(?:\d+(?:\.\d*)?|\.\d+))(?:([eE])([+-]?\d+)|([a-zA-Z]*))$/.exec(input.trim());
  if (!m) return undefined;
  const n = Number(m[1]);
  if (m[2]) return { milli: Math.round(n * 10 ** (Number(m[3]) + 3)), format: "DecimalExponent" };
  const suffix = m[4] ?? "";
  if (suffix in BINARY) return { milli: Math.round(n * 2 ** BINARY[suffix] * 1000), format: "BinarySI" };
  if (suffix in DECIMAL) return { milli: Math.round(n * 10 ** (DECIMAL[suffix] + 3)), format: "DecimalSI" };
  return undefined;
}

/** Quantity.Add: a zero sum takes the format of what is added to it. */
export function addQty(a: Qty, b: Qty): Qty {
  return { milli: a.milli + b.milli, format: a.milli === 0 ? b.format : a.format };
}

/** Quantity.String(), canonical. */
export function formatQty(q: Qty): string {
  if (q.milli === 0) return "0";
  if (q.format === "BinarySI" && Math.abs(q.milli) >= 1024_000 && q.milli % 1000 === 0) {
    const v = q.milli / 1000;
    for (const [s, p] of Object.entries(BINARY).reverse()) if (v % 2 ** p === 0) return `${v / 2 ** p}${s}`;
    return String(v);
  }
  // decimal: the largest power of 1000 that keeps the mantissa whole
  for (let exp = 18; exp >= -3; exp -= 3) {
    const unit = 10 ** (exp + 3);
    if (q.milli % unit !== 0) continue;
    const mantissa = q.milli / unit;
    if (q.format === "DecimalExponent") return exp === 0 ? String(mantissa) : `${mantissa}e${exp}`;
    const suffix = Object.keys(DECIMAL).find((k) => DECIMAL[k] === exp) ?? "";
    return `${mantissa}${suffix}`;
  }
  return `${q.milli}m`;
}

/** A quantity string in its canonical form (what the API server stores and returns). */
export function canonicalQty(input: string | number): string {
  const q = parseQty(input);
  return q ? formatQty(q) : String(input);
}
