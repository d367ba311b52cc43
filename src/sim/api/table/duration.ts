// Ages as kubectl shows them, after k8s.io/apimachinery/pkg/util/duration.HumanDuration.

/**
 * A succinct, ~2-3 significant figure rendering of a duration in milliseconds:
 * "45s", "119s", "3m20s", "10m", "3h20m", "8h", "2d1h", "8d", "2y45d", "9y".
 */
export function humanDuration(ms: number): string {
  // Go converts with int(d.Seconds()), which truncates toward zero: -1.5s is still "0s".
  const seconds = Math.trunc(ms / 1000);
  if (seconds < -1) return "<invalid>";
  if (seconds < 0) return "0s";
  if (seconds < 60 * 2) return `${seconds}s`;
  const minutes = Math.trunc(ms / 60_000);
  if (minutes < 10) {
    const s = seconds % 60;
    return s === 0 ? `${minutes}m` : `${minutes}m${s}s`;
  }
  if (minutes < 60 * 3) return `${minutes}m`;
  const hours = Math.trunc(ms / 3_600_000);
  if (hours < 8) {
    const m = minutes % 60;
    return m === 0 ? `${hours}h` : `${hours}h${m}m`;
  }
  if (hours < 48) return `${hours}h`;
  const days = Math.trunc(hours / 24);
  if (hours < 24 * 8) {
    const h = hours % 24;
    return h === 0 ? `${days}d` : `${days}d${h}h`;
  }
  if (hours < 24 * 365 * 2) return `${days}d`;
  const years = Math.trunc(days / 365);
  if (hours < 24 * 365 * 8) {
    const dy = days % 365;
    return dy === 0 ? `${years}y` : `${years}y${dy}d`;
  }
  return `${years}y`;
}

/** Milliseconds since epoch of an RFC3339 (or MicroTime) string; undefined when unset or unparsable. */
export function parseTime(ts: unknown): number | undefined {
  if (typeof ts !== "string" || ts === "") return undefined;
  const t = Date.parse(ts);
  return Number.isNaN(t) ? undefined : t;
}

/** translateTimestampSince: "<unknown>" for a zero timestamp, else the human age. */
export function since(ts: unknown, now: number): string {
  const t = parseTime(ts);
  return t === undefined ? "<unknown>" : humanDuration(now - t);
}
