// Parsing and checking option values, with errors that say which flag and what to give (the run's
// options in runner/config.ts and the CLI's own commands).
import { usageError } from "../errors.js";

/** `example`: a value that fits the flag, for the hint (default: 3 for an integer, 60 otherwise). */
export function parsePositive(v: string, flag: string, integer = false, example?: string): number {
  const n = Number(v);
  if (!Number.isFinite(n) || n <= 0 || (integer && !Number.isInteger(n)))
    throw usageError(
      `${flag} must be a positive ${integer ? "integer" : "number"}, got "${v}"`,
      `pass e.g. ${flag} ${example ?? (integer ? "3" : "60")}`,
    );
  return n;
}

export function parseNonNegativeInt(v: string, flag: string, example = "10"): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0)
    throw usageError(`${flag} must be a whole number ≥ 0, got "${v}"`, `pass e.g. ${flag} ${example}`);
  return n;
}
