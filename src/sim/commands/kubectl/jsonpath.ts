// kubectl's -o jsonpath (k8s.io/client-go/util/jsonpath, missing keys allowed as `kubectl get`
// allows them): text between {} as is; in braces a path (.a.b, [n], [*], [a:b], ['k'], .*,
// [?(@.x=="v")]), a quoted literal ({"\n"}), or range ... end. Several results print separated
// by a space; a map or list prints as compact JSON.
import { KubectlError } from "./client.js";

type Node = { t: "text"; s: string } | { t: "path"; p: string } | { t: "range"; p: string; body: Node[] };

function tokens(tpl: string): string[] {
  const out: string[] = [];
  let i = 0;
  while (i < tpl.length) {
    const open = tpl.indexOf("{", i);
    if (open < 0) {
      out.push(tpl.slice(i));
      break;
    }
    if (open > i) out.push(tpl.slice(i, open));
    let depth = 0;
    let j = open;
    let quote = "";
    for (; j < tpl.length; j++) {
      const c = tpl[j];
      if (quote) {
        if (c === "\\") j++;
        else if (c === quote) quote = "";
      } else if (c === '"' || c === "'") quote = c;
      else if (c === "{") depth++;
      else if (c === "}" && --depth === 0) break;
    }
    if (j >= tpl.length) throw new KubectlError(`error: error parsing jsonpath ${tpl}, unclosed action`);
    out.push(tpl.slice(open, j + 1));
    i = j + 1;
  }
  return out;
}

function parse(tpl: string): Node[] {
  const stack: Node[][] = [[]];
  const ranges: { p: string }[] = [];
  for (const tok of tokens(tpl)) {
    const top = stack[stack.length - 1];
    if (!tok.startsWith("{")) {
      top.push({ t: "text", s: tok });
      continue;
    }
    const e = tok.slice(1, -1).trim();
    if (e.startsWith("range ")) {
      ranges.push({ p: e.slice(6).trim() });
      stack.push([]);
    } else if (e === "end") {
      const body = stack.pop();
      const r = ranges.pop();
      if (!body || !r)
        throw new KubectlError(`error: error parsing jsonpath ${tpl}, not in range, nothing to end`);
      stack[stack.length - 1].push({ t: "range", p: r.p, body });
    } else if (/^(".*"|'.*')$/s.test(e)) top.push({ t: "text", s: unquote(e) });
    else top.push({ t: "path", p: e });
  }
  if (stack.length !== 1) throw new KubectlError(`error: error parsing jsonpath ${tpl}, unclosed range`);
  return stack[0];
}

function unquote(q: string): string {
  const body = q.slice(1, -1);
  return body.replace(/\\(.)/g, (_, c: string) => ({ n: "\n", t: "\t", r: "\r" })[c] ?? c);
}

type J = Record<string, unknown>;
const isObj = (v: unknown): v is J => !!v && typeof v === "object" && !Array.isArray(v);

function literal(s: string): unknown {
  const t = s.trim();
  if (/^(".*"|'.*')$/.test(t)) return t.slice(1, -1);
  if (t === "true" || t === "false") return t === "true";
  if (/^-?\d+(\.\d+)?$/.test(t)) return Number(t);
  return t;
}

function step(values: unknown[], path: string, root: unknown): unknown[] {
  let vs = values;
  let i = 0;
  while (i < path.length) {
    const c = path[i];
    if (c === "$" || c === "@") {
      vs = c === "$" ? [root] : vs;
      i++;
    } else if (c === ".") {
      if (path[i + 1] === "*") {
        vs = vs.flatMap((v) =>
          isObj(v)
            ? Object.keys(v)
                .sort()
                .map((k) => v[k])
            : Array.isArray(v)
              ? v
              : [],
        );
        i += 2;
        continue;
      }
      const m = /^[^.[\]]*/.exec(path.slice(i + 1))![0];
      if (m) vs = vs.flatMap((v) => (isObj(v) && m in v ? [v[m]] : []));
      i += 1 + m.length;
    } else if (c === "[") {
      let depth = 0;
      let j = i;
      for (; j < path.length; j++) {
        if (path[j] === "[") depth++;
        else if (path[j] === "]" && --depth === 0) break;
      }
      const inner = path.slice(i + 1, j).trim();
      i = j + 1;
      if (inner === "*") vs = vs.flatMap((v) => (Array.isArray(v) ? v : isObj(v) ? Object.values(v) : []));
      else if (/^(".*"|'.*')$/.test(inner)) {
        const k = inner.slice(1, -1);
        vs = vs.flatMap((v) => (isObj(v) && k in v ? [v[k]] : []));
      } else if (inner.startsWith("?(")) {
        const cond = inner.slice(2, -1);
        const m = /^(@[^=!<>]*?)\s*(==|!=|<=|>=|<|>)\s*(.+)$/.exec(cond);
        vs = vs
          .flatMap((v) => (Array.isArray(v) ? v : []))
          .filter((el) => {
            if (!m) return step([el], cond.trim(), root).length > 0;
            const left = step([el], m[1].trim(), root)[0];
            const right = literal(m[3]);
            switch (m[2]) {
              case "==":
                return left === right || String(left) === String(right);
              case "!=":
                return String(left) !== String(right);
              case "<":
                return Number(left) < Number(right);
              case ">":
                return Number(left) > Number(right);
              case "<=":
                return Number(left) <= Number(right);
              default:
                return Number(left) >= Number(right);
            }
          });
      } else if (/^-?\d*(:-?\d*)?$/.test(inner)) {
        const [a, b] = inner.split(":");
        vs = vs.flatMap((v) => {
          if (!Array.isArray(v)) return [];
          if (b === undefined) {
            const n = Number(a);
            const el = v[n < 0 ? v.length + n : n];
            return el === undefined ? [] : [el];
          }
          const from = a === "" ? 0 : Number(a);
          const to = b === "" ? v.length : Number(b);
          return v.slice(from < 0 ? v.length + from : from, to < 0 ? v.length + to : to);
        });
      } else throw new KubectlError(`error: error parsing jsonpath {${path}}, invalid array index ${inner}`);
    } else
      throw new KubectlError(
        `error: error parsing jsonpath {${path}}, unrecognized character in action: U+${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, "0")} '${c}'`,
      );
  }
  return vs;
}

const text = (v: unknown) =>
  typeof v === "string"
    ? v
    : v === null || v === undefined
      ? ""
      : typeof v === "object"
        ? JSON.stringify(v)
        : String(v);

function run(nodes: Node[], cur: unknown, root: unknown): string {
  let out = "";
  for (const n of nodes) {
    if (n.t === "text") out += n.s;
    else if (n.t === "path")
      out += step([cur], n.p.startsWith("$") || n.p.startsWith("@") ? n.p : `@${n.p}`, root)
        .map(text)
        .join(" ");
    else
      for (const el of step([cur], n.p.startsWith("$") || n.p.startsWith("@") ? n.p : `@${n.p}`, root))
        out += run(n.body, el, root);
  }
  return out;
}

export function jsonpath(template: string, data: unknown): string {
  // kubectl wraps a template without braces as one path ({.a.b})
  const tpl = template.includes("{") ? template : `{${template}}`;
  return run(parse(tpl), data, data);
}
