// Plain-JSON helpers shared by the patch strategies.

export type JsonObject = Record<string, unknown>;

/** A JSON object (not an array, not null). */
export function isObject(v: unknown): v is JsonObject {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** A deep copy; patch bodies and stored objects are plain JSON, so structuredClone is exact. */
export function clone<T>(v: T): T {
  return structuredClone(v);
}

/** Human-readable JSON for error messages, cut short so a huge patch cannot flood a Status. */
export function show(v: unknown, max = 200): string {
  const s = JSON.stringify(v) ?? String(v);
  return s.length > max ? `${s.slice(0, max)}...` : s;
}

/** "object", "array", "string", "null", ... for messages about a value of the wrong shape. */
export function jsonKind(v: unknown): string {
  if (v === null) return "null";
  return Array.isArray(v) ? "array" : typeof v;
}
