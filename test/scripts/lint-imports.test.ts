// The source tree's import rules (scripts/lint-imports.mjs): nothing outside src/sim imports the
// embedded cluster but the CLI, through src/sim/index.ts; src's folders, and the embedded
// cluster's, import only downwards in their declared layers; no import cycle between files. The
// checkout must be clean, and the checker must catch each kind of violation in a tree made for it.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { execa } from "execa";
import { afterEach, describe, expect, it } from "vitest";

const checkout = join(dirname(fileURLToPath(import.meta.url)), "../..");
const script = join(checkout, "scripts/lint-imports.mjs");
const lint = (root: string) => execa("node", [script, root], { reject: false });

const trees: string[] = [];

/** A checkout of a few files: { path: imported paths (relative specifiers) }. */
function makeTree(files: Record<string, string[]>): string {
  const tree = mkdtempSync(join(tmpdir(), "mr-imports-"));
  trees.push(tree);
  for (const [path, imports] of Object.entries(files)) {
    mkdirSync(dirname(join(tree, path)), { recursive: true });
    const text = imports.map((s, i) => `import { x${i} } from "${s}";`).join("\n");
    writeFileSync(join(tree, path), `${text}\nexport const x = 1;\n`);
  }
  return tree;
}

afterEach(() => {
  for (const t of trees.splice(0)) rmSync(t, { recursive: true, force: true });
});

/** A small embedded cluster that keeps every rule. */
const CLEAN: Record<string, string[]> = {
  "src/sim/core/types.ts": [],
  "src/sim/api/registry.ts": ["../core/types.js"],
  "src/sim/api/server.ts": ["./registry.js"],
  "src/sim/userland/fs.ts": ["../core/types.js"],
  "src/sim/exec/handler.ts": ["../userland/fs.js"],
  "src/sim/cluster/cluster.ts": ["../api/server.js", "../exec/handler.js"],
  "src/sim/index.ts": ["./cluster/cluster.js"],
  "src/cli/embedded.ts": ["../sim/index.js"],
  "src/runner/run.ts": ["../runlog/records.js"],
  "src/runlog/records.ts": ["../util/paths.js"],
  "src/util/paths.ts": [],
  "src/cli/main.ts": ["./embedded.js", "../runner/run.js"],
  "test/helpers/cluster.ts": ["../../src/sim/index.js"],
  "test/sim/userland/fs.test.ts": ["../../../src/sim/userland/fs.js"],
};

describe("the import rules", () => {
  it("hold in this checkout", async () => {
    const r = await lint(checkout);
    expect(r.stdout).toBe("imports: boundaries, layers and cycles are clean");
    expect(r.exitCode).toBe(0);
  });

  it("hold in a small tree that keeps them", async () => {
    const r = await lint(makeTree(CLEAN));
    expect(r.stdout).toBe("imports: boundaries, layers and cycles are clean");
    expect(r.exitCode).toBe(0);
  });

  it("catch a file outside src/sim that imports it", async () => {
    const r = await lint(makeTree({ ...CLEAN, "src/runner/run.ts": ["../sim/index.js"] }));
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toContain("boundary: src/runner/run.ts imports src/sim/index.ts; only");
  });

  it("catch the CLI or a test helper reaching past the index", async () => {
    const r = await lint(
      makeTree({
        ...CLEAN,
        "src/cli/embedded.ts": ["../sim/cluster/cluster.js"],
        "test/helpers/cluster.ts": ["../../src/sim/api/registry.js"],
      }),
    );
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toContain(
      "boundary: src/cli/embedded.ts imports src/sim/cluster/cluster.ts; import src/sim/index.ts instead",
    );
    expect(r.stdout).toContain(
      "boundary: test/helpers/cluster.ts imports src/sim/api/registry.ts; import src/sim/index.ts instead",
    );
  });

  it("catch a folder importing one above it", async () => {
    const r = await lint(makeTree({ ...CLEAN, "src/sim/api/registry.ts": ["../userland/fs.js"] }));
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toContain(
      "layers: src/sim/api/registry.ts (api) imports src/sim/userland/fs.ts (userland), a layer above it",
    );
    const up = await lint(makeTree({ ...CLEAN, "src/sim/core/types.ts": ["../api/registry.js"] }));
    expect(up.stdout).toContain(
      "layers: src/sim/core/types.ts (core) imports src/sim/api/registry.ts (api), a layer above it",
    );
  });

  it("catch parts of one layer importing each other", async () => {
    const r = await lint(
      makeTree({ ...CLEAN, "src/sim/chaos/pod.ts": ["../commands/kill.js"], "src/sim/commands/kill.ts": [] }),
    );
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toContain(
      "layers: src/sim/chaos/pod.ts (chaos) imports src/sim/commands/kill.ts (commands); parts of one layer are independent",
    );
  });

  it("catch a folder of src importing one above it or beside it (the run log must not reach the runner)", async () => {
    const r = await lint(makeTree({ ...CLEAN, "src/runlog/records.ts": ["../runner/run.js"] }));
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toContain(
      "layers: src/runlog/records.ts (runlog) imports src/runner/run.ts (runner), a layer above it",
    );
    const beside = await lint(
      makeTree({ ...CLEAN, "src/report/index.ts": ["../runner/run.js"], "src/runner/run.ts": [] }),
    );
    expect(beside.stdout).toContain(
      "layers: src/report/index.ts (report) imports src/runner/run.ts (runner); parts of one layer are independent",
    );
  });

  it("catch a folder that is in no layer", async () => {
    const r = await lint(makeTree({ ...CLEAN, "src/sim/newpart/x.ts": ["../core/types.js"] }));
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toContain("layers: src/sim/newpart/x.ts is in no part of src/sim's layer table");
  });

  it("catch an import cycle between files, type-only and lazy imports included", async () => {
    const r = await lint(
      makeTree({
        ...CLEAN,
        "src/sim/api/registry.ts": ["../core/types.js", "./server.js"],
      }),
    );
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toContain("cycle: src/sim/api/registry.ts <-> src/sim/api/server.ts");

    const t = makeTree(CLEAN);
    writeFileSync(
      join(t, "src/sim/api/registry.ts"),
      'import type { S } from "./server.js";\nexport type R = S;\n',
    );
    writeFileSync(
      join(t, "src/sim/api/server.ts"),
      'const load = () => import("./registry.js");\nexport type S = 1;\n',
    );
    const hidden = await lint(t);
    expect(hidden.stdout).toContain("cycle: src/sim/api/registry.ts <-> src/sim/api/server.ts");
  });
});
