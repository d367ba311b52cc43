// The paths a Python HTTP server script answers, read from its source: a handler of
// http.server's BaseHTTPRequestHandler branches on `self.path` (`self.path == "/healthz"`,
// `self.path in ("/", "/hello")`, `self.path.startswith("/time")`) and sends its 404 for the rest;
// Flask declares `@app.route("/x")`. What a pod serves then follows the script its command runs,
// not the name of its Deployment: the reference's own hello-service answers /healthz, ours
// /health. A script in which no such test is found gives no paths (the table's pages answer).

export interface ScriptRoutes {
  /** Paths answered exactly. */
  exact: Set<string>;
  /** Prefixes answered (startswith). */
  prefixes: string[];
}

const STRING = String.raw`(?:"([^"\n]*)"|'([^'\n]*)')`;
const EQ = new RegExp(String.raw`self\.path\s*==\s*${STRING}`, "g");
const EQ_LEFT = new RegExp(String.raw`${STRING}\s*==\s*self\.path\b`, "g");
const IN = /self\.path\s+in\s*[([{]([^)\]}]*)[)\]}]/g;
const STARTS = new RegExp(String.raw`self\.path\.startswith\(\s*${STRING}`, "g");
const FLASK = new RegExp(String.raw`@\w+\.(?:route|get)\(\s*${STRING}`, "g");
const ITEM = new RegExp(STRING, "g");

/** The paths the script's handler tests for; undefined when it tests none. */
export function scriptRoutes(source: string): ScriptRoutes | undefined {
  const exact = new Set<string>();
  const prefixes: string[] = [];
  for (const re of [EQ, EQ_LEFT, FLASK]) for (const m of source.matchAll(re)) exact.add(m[1] ?? m[2]);
  for (const m of source.matchAll(IN)) for (const s of m[1].matchAll(ITEM)) exact.add(s[1] ?? s[2]);
  for (const m of source.matchAll(STARTS)) prefixes.push(m[1] ?? m[2]);
  return exact.size || prefixes.length ? { exact, prefixes } : undefined;
}

/** Whether the script answers `path` (the request target as the handler sees it in self.path). */
export function scriptServes(routes: ScriptRoutes, path: string): boolean {
  return routes.exact.has(path) || routes.prefixes.some((p) => path.startsWith(p));
}
