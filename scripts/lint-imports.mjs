// The import rules of the source tree, checked: who may import a folder from outside it (a
// boundary), which way imports go between the parts of a folder (a layering), and no import
// cycle between files. Run by `npm run lint` and by test/scripts/lint-imports.test.ts.
//
// Usage: node scripts/lint-imports.mjs [checkout]   (default: the current directory)
// Prints one line per violation and exits 1 if there is any.
//
// Every relative import counts: `import type`, `export ... from`, side-effect and dynamic
// `import()` alike, so a cycle cannot be hidden behind a type-only or a lazy import.
//
// Why a script and not biome: biome 2's noImportCycles covers the cycles, but noRestrictedImports
// matches the import's text, not the file it resolves to, so "api/ must not import exec/" would
// need one override per folder listing every relative spelling ("../exec/...", "../../exec/...");
// a table of layers, read here, says it once and extends to src/'s top-level folders.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * Boundaries: a folder that files outside it may reach only through its entry file.
 * - `importers`: the files or folders (outside `folder`) allowed to import the entry; under
 *   src/ this is the one CLI pair that starts the embedded cluster.
 * - `inside`: folders whose files may import anything in `folder` (its own unit tests).
 */
export const BOUNDARIES = [
  {
    folder: "src/sim",
    entry: "src/sim/index.ts",
    importers: ["src/cli/embedded.ts", "src/cli/sim-data.ts", "bench", "test"],
    inside: ["test/sim"],
  },
];

/**
 * Layerings: the parts of `root`, bottom layer first. A file belongs to the longest part that
 * contains it (a folder, or one file). A part may import parts of lower layers only; parts that
 * share a layer are independent and may not import each other. A file in no part is an error,
 * so a new folder has to be placed in the table. `cycles: false` leaves out the check for cycles
 * between the root's files (the part rule still forbids cycles between parts).
 */
export const LAYERINGS = [
  {
    // the benchmark's folders (docs/architecture.md, "Folders"); the embedded cluster stands
    // aside, below the CLI that starts it, and reaches nothing of the benchmark but util/
    root: "src",
    cycles: true,
    layers: [
      ["outcome.ts"], // how a case ends: statuses and reason codes with their class
      ["errors.ts"], // the typed errors users meet
      ["util"], // parsers, paths, schema checks, durations
      ["kube", "sandbox", "sim"], // the one Kubernetes client; bubblewrap and the API proxy; the embedded cluster
      ["envs", "identity", "probe", "ansible"], // systems; the agent's identity; the probe; the executor
      ["faults"], // the failure catalog, injecting and removing faults
      ["verify", "localization", "noise"], // the checks and the scorer; what the agent changed against the fault; background noise
      ["diagnosis"], // the diagnosis report (its symptom level is written from the user-facing check)
      ["llm"], // LLM providers and the built-in models
      ["mcp"], // the MCP server over one case: its tools act through the roles a method is handed
      ["methods"], // SoloGen, ThinkRemed, modules, external agents
      ["runlog"], // a run's records, summary, reasons, pass@k
      ["trajectory"], // a case as an ATIF trajectory, from its record and conversation
      ["runner", "report"], // the experiment loop and the case pipeline; tables and charts
      ["harbor"], // a case as a Harbor task: its folder, and the start and verify its container runs
      ["cli"], // the commands
      ["index.ts"], // the package's public face (package.json exports): types and the programmatic runner
    ],
  },
  {
    root: "src/sim",
    cycles: true,
    layers: [
      ["core"], // types, objects, clock, timer queue, metadata helpers
      ["store", "stages"], // the object store (etcd); the stage data and engine (KWOK)
      ["api"], // kube-apiserver: registry, admission, patch, tables, discovery, HTTP
      ["auth", "context"], // authn/authz (PKI, tokens, RBAC); SimContext and what it is made of
      ["controllers", "metrics"], // kube-controller-manager; metrics-server and cAdvisor's usage
      ["userland"], // a container's image, filesystem, /proc, volumes, processes, streams
      ["shell"], // the POSIX shell
      ["workloads"], // what each application and a generic container do
      ["commands", "chaos"], // the commands in containers (ping, curl, dd, ...); Chaos Mesh
      ["exec"], // kubectl exec: running a command in a container, its WebSocket/SPDY transports
      ["kubelet"], // the kubelet and the scheduler
      ["cluster"], // the assembly: EmbeddedCluster, controller installation, kubeconfig
      ["index.ts"], // the public face
    ],
  },
];

/** The folders scanned for TypeScript files. */
const SCANNED = ["src", "bench", "test"];

const IMPORT = /(?:^|[\s;])(?:import|export)\s[^'"`]*?from\s*["'](\.[^"']+)["']|(?:^|[\s;])import\s*\(?\s*["'](\.[^"']+)["']/gm;

function tsFiles(dir, out = []) {
  if (!existsSync(dir)) return out;
  for (const name of readdirSync(dir)) {
    if (name === "node_modules" || name === "dist") continue;
    const p = join(dir, name);
    if (statSync(p).isDirectory()) tsFiles(p, out);
    else if (/\.(ts|mts)$/.test(name) && !name.endsWith(".d.ts")) out.push(p);
  }
  return out;
}

/** The file a relative specifier names (.js written for .ts, a folder for its index.ts). */
function resolveSpec(root, from, spec) {
  const abs = resolve(dirname(join(root, from)), spec);
  for (const c of [abs.replace(/\.js$/, ".ts"), abs.replace(/\.mjs$/, ".mts"), abs, `${abs}.ts`, join(abs, "index.ts")])
    if (existsSync(c) && statSync(c).isFile()) return toPosix(relative(root, c));
  return undefined;
}

const toPosix = (p) => p.split(sep).join("/");
const under = (file, folder) => file === folder || file.startsWith(`${folder}/`);

/** Every relative import of the checkout: [from, to] with paths relative to it. */
export function importGraph(root) {
  const edges = [];
  for (const dir of SCANNED)
    for (const abs of tsFiles(join(root, dir))) {
      const from = toPosix(relative(root, abs));
      const text = readFileSync(abs, "utf8");
      for (const m of text.matchAll(IMPORT)) {
        const to = resolveSpec(root, from, m[1] ?? m[2]);
        if (to) edges.push([from, to]);
      }
    }
  return edges;
}

function partOf(layering, file) {
  const rel = file.slice(layering.root.length + 1);
  let best;
  layering.layers.forEach((parts, layer) => {
    for (const part of parts)
      if ((rel === part || rel.startsWith(`${part}/`)) && (!best || part.length > best.part.length))
        best = { part, layer };
  });
  return best;
}

/** Strongly connected components of more than one file (Tarjan). */
function cycles(nodes, next) {
  let i = 0;
  const index = new Map();
  const low = new Map();
  const stack = [];
  const on = new Set();
  const out = [];
  const visit = (v) => {
    index.set(v, i);
    low.set(v, i);
    i++;
    stack.push(v);
    on.add(v);
    for (const w of next(v)) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v), low.get(w)));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v), index.get(w)));
    }
    if (low.get(v) === index.get(v)) {
      const c = [];
      let w;
      do {
        w = stack.pop();
        on.delete(w);
        c.push(w);
      } while (w !== v);
      if (c.length > 1) out.push(c.sort());
    }
  };
  for (const v of nodes) if (!index.has(v)) visit(v);
  return out;
}

/** The violations of the rules in a checkout, one sentence each (empty: clean). */
export function checkImports(root, rules = { boundaries: BOUNDARIES, layerings: LAYERINGS }) {
  const edges = importGraph(root);
  const problems = [];
  for (const b of rules.boundaries)
    for (const [from, to] of edges) {
      if (under(from, b.folder) || !under(to, b.folder)) continue;
      if (b.inside.some((f) => under(from, f))) continue;
      const allowed = b.importers.some((f) => under(from, f));
      if (!allowed) problems.push(`boundary: ${from} imports ${to}; only ${b.importers.join(", ")} may import ${b.folder}, through ${b.entry}`);
      else if (to !== b.entry) problems.push(`boundary: ${from} imports ${to}; import ${b.entry} instead`);
    }
  for (const l of rules.layerings) {
    const files = new Set(tsFiles(join(root, l.root)).map((f) => toPosix(relative(root, f))));
    for (const f of [...files].sort())
      if (!partOf(l, f)) problems.push(`layers: ${f} is in no part of ${l.root}'s layer table (scripts/lint-imports.mjs)`);
    const inner = edges.filter(([a, b]) => files.has(a) && files.has(b));
    for (const [from, to] of inner) {
      const a = partOf(l, from);
      const b = partOf(l, to);
      if (!a || !b || a.part === b.part) continue;
      if (b.layer > a.layer) problems.push(`layers: ${from} (${a.part}) imports ${to} (${b.part}), a layer above it`);
      else if (b.layer === a.layer) problems.push(`layers: ${from} (${a.part}) imports ${to} (${b.part}); parts of one layer are independent`);
    }
    if (l.cycles === false) continue;
    const next = new Map();
    for (const [a, b] of inner) next.set(a, [...(next.get(a) ?? []), b]);
    for (const c of cycles([...files].sort(), (v) => next.get(v) ?? []))
      problems.push(`cycle: ${c.join(" <-> ")}`);
  }
  return problems;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const root = resolve(process.argv[2] ?? ".");
  const problems = checkImports(root);
  for (const p of problems) console.log(p);
  if (problems.length) {
    console.log(`${problems.length} import rule violation(s); the rules are in scripts/lint-imports.mjs`);
    process.exit(1);
  }
  console.log("imports: boundaries, layers and cycles are clean");
}
