// Long output, cut as a reader needs it: its head and its tail are kept (describe's Events and a
// log's latest lines are at the end, an object's metadata and spec at the start), and the middle
// is replaced by one line that says how much was cut and how to narrow the command.

/** What to do instead of reading a cut output whole. */
export const NARROW =
  "narrow the command: | grep WORD (-A N/-B N for context), | head -n N, | tail -n N, --tail=N for logs, -l <selector>, -o jsonpath='{...}'";

/** The lines from one end of `lines` that fit in `budget` characters (with their newlines). */
function linesWithin(lines: string[], budget: number): string[] {
  const out: string[] = [];
  let used = 0;
  for (const l of lines) {
    if (used + l.length + 1 > budget) break;
    out.push(l);
    used += l.length + 1;
  }
  return out;
}

export function cut(text: string, max: number): string {
  if (text.length <= max) return text;
  const half = Math.floor(max / 2);
  const lines = text.split("\n");
  const head = linesWithin(lines, half);
  const tail = linesWithin(lines.slice(head.length).reverse(), max - half).reverse();
  if (!head.length && !tail.length) {
    // one line longer than the budget (compact JSON): its first and last characters
    const left = text.length - max;
    return `${text.slice(0, half)}\n[… ${left} characters cut from the middle of this ${text.length}-character line; ${NARROW}]\n${text.slice(text.length - (max - half))}`;
  }
  const gone = lines.length - head.length - tail.length;
  const chars = text.length - [...head, ...tail].reduce((n, l) => n + l.length + 1, 0);
  const note = `[… ${gone} of ${lines.length} lines (${chars} characters) cut from the middle; to see them, ${NARROW}]`;
  return [...head, note, ...tail].join("\n");
}
