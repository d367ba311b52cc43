// The reason codes as the report shows them: in the order of outcome.ts's table (outcomes of the
// method first, then causes of errors), each with its description and a fixed colour, so a code
// has the same colour in every chart of every report.
import { isReasonCode, REASON_CODES } from "../outcome.js";

const ORDER: string[] = Object.keys(REASON_CODES);

/** Codes in table order; codes the table does not know (older runs, "unknown") last, by name. */
export function orderCodes(codes: Iterable<string>): string[] {
  const rank = (c: string) => (ORDER.includes(c) ? ORDER.indexOf(c) : ORDER.length);
  return [...new Set(codes)].sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
}

export function describeCode(code: string): string {
  return isReasonCode(code) ? REASON_CODES[code].meaning : "no reason was recorded for this case";
}

// Outcomes of the method in strong colours (the Okabe–Ito set, which the charts of series use
// too, on another chart), causes of errors in greys and muted tones: they are not the model's.
const COLOURS: Record<string, string> = {
  "no-playbook": "#000000",
  "invalid-playbook": "#CC79A7",
  "task-failed": "#D55E00",
  refused: "#E69F00",
  timeout: "#F0E442",
  ineffective: "#0072B2",
  collateral: "#56B4E9",
  "gave-up": "#009E73",
  "not-injected": "#BBBBBB",
};
const MUTED = ["#888888", "#A6761D", "#666666", "#B3B3B3", "#7F7F7F", "#999966", "#6B6B9E"];

export function codeColour(code: string): string {
  if (COLOURS[code]) return COLOURS[code];
  const i = Math.max(0, ORDER.indexOf(code));
  return MUTED[i % MUTED.length];
}

/** The table of codes as rows: code, description. */
export function codeRows(): [string, string][] {
  return Object.entries(REASON_CODES).map(([code, c]) => [code, c.meaning]);
}
