// $(( ... )): integer arithmetic by recursive descent over a token list (never eval). Enough for
// counters and comparisons in scripts: + - * / % ( ), unary - + !, comparisons, && and ||.

const LEVELS: string[][] = [
  ["||"],
  ["&&"],
  ["==", "!="],
  ["<=", ">=", "<", ">"],
  ["+", "-"],
  ["*", "/", "%"],
];

function tokens(expr: string): string[] {
  const out = expr.match(/\s*(\d+|[A-Za-z_][A-Za-z0-9_]*|\|\||&&|==|!=|<=|>=|[-+*/%()<>!])/gy);
  const joined = (out ?? []).join("");
  if (joined.length !== expr.replace(/\s+$/, "").length) throw new Error("syntax error");
  return (out ?? []).map((t) => t.trim());
}

function apply(op: string, a: number, b: number): number {
  switch (op) {
    case "||":
      return a || b ? 1 : 0;
    case "&&":
      return a && b ? 1 : 0;
    case "==":
      return a === b ? 1 : 0;
    case "!=":
      return a !== b ? 1 : 0;
    case "<":
      return a < b ? 1 : 0;
    case "<=":
      return a <= b ? 1 : 0;
    case ">":
      return a > b ? 1 : 0;
    case ">=":
      return a >= b ? 1 : 0;
    case "+":
      return a + b;
    case "-":
      return a - b;
    case "*":
      return a * b;
    default:
      if (b === 0) throw new Error("division by zero");
      return op === "/" ? Math.trunc(a / b) : a % b;
  }
}

/** Evaluate an arithmetic expression; names read their variable (unset or non-numeric is 0). */
export function arithmetic(expr: string, lookup: (name: string) => string | undefined): number {
  const toks = tokens(expr);
  let i = 0;
  const level = (n: number): number => {
    if (n === LEVELS.length) return unary();
    let v = level(n + 1);
    while (LEVELS[n].includes(toks[i])) {
      const op = toks[i++];
      v = apply(op, v, level(n + 1));
    }
    return v;
  };
  const unary = (): number => {
    const t = toks[i++];
    if (t === "-") return -unary();
    if (t === "+") return unary();
    if (t === "!") return unary() ? 0 : 1;
    if (t === "(") {
      const v = level(0);
      if (toks[i++] !== ")") throw new Error("missing ')'");
      return v;
    }
    if (t === undefined) throw new Error("syntax error");
    if (/^\d+$/.test(t)) return Number(t);
    if (/^[A-Za-z_]/.test(t)) return Math.trunc(Number(lookup(t) ?? 0)) || 0;
    throw new Error(`syntax error near "${t}"`);
  };
  const v = toks.length ? level(0) : 0;
  if (i < toks.length) throw new Error(`syntax error near "${toks[i]}"`);
  return v;
}
