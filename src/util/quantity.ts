// Kubernetes resource quantities ("500m", "2", "300Mi"), shared by the simulator and the verifiers.

/** Parse a Kubernetes quantity ("500m", "2", "300Mi", "1G") into a number of base units. */
export function parseQuantity(q: string | number | undefined): number {
  if (q === undefined || q === null) return 0;
  if (typeof q === "number") return q;
  const m = String(q)
    .trim()
    .match(/^([+-]?[0-9.]+(?:[eE][+-]?[0-9]+)?)([a-zA-Z]*)$/);
  if (!m) return Number.NaN;
  const n = Number(m[1]);
  const mult: Record<string, number> = {
    "": 1,
    n: 1e-9,
    u: 1e-6,
    m: 1e-3,
    k: 1e3,
    M: 1e6,
    G: 1e9,
    T: 1e12,
    P: 1e15,
    E: 1e18,
    Ki: 1024,
    Mi: 1024 ** 2,
    Gi: 1024 ** 3,
    Ti: 1024 ** 4,
    Pi: 1024 ** 5,
    Ei: 1024 ** 6,
  };
  return m[2] in mult ? n * mult[m[2]] : Number.NaN;
}

/** CPU quantity in millicores. */
export const milliCpu = (q: string | number | undefined) => Math.round(parseQuantity(q) * 1000);

/** Memory quantity in bytes. */
export const bytes = (q: string | number | undefined) => Math.round(parseQuantity(q));

export const MiB = 1024 * 1024;
