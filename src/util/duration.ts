// Go's time.ParseDuration, for Chaos Mesh's durations (the embedded cluster's controllers and the
// runner's own reading of a template's `duration`).

const UNIT_MS: Record<string, number> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};

/** Go's time.ParseDuration, in ms; undefined when it does not parse. */
export function parseGoDuration(s: unknown): number | undefined {
  if (typeof s === "number") return s * 1000;
  if (typeof s !== "string" || !s.trim()) return undefined;
  const str = s.trim();
  if (str === "0") return 0;
  const re = /(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h)/gy;
  let total = 0;
  let m: RegExpExecArray | null;
  let at = 0;
  for (;;) {
    re.lastIndex = at;
    m = re.exec(str);
    if (!m) break;
    total += Number(m[1]) * UNIT_MS[m[2]];
    at = re.lastIndex;
  }
  return at === str.length && at > 0 ? total : undefined;
}
