// The README's table of where each expert type applies is the systems' own data: per type and
// system, the number of targets its env.yaml lists (— for none), for every expert type of the
// catalog.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";

const ROOT = join(import.meta.dirname, "../..");
const SYSTEMS = ["simple-micro", "online-boutique", "train-ticket"];

function readmeTable(): Map<string, string[]> {
  const readme = readFileSync(join(ROOT, "README.md"), "utf8");
  const start = readme.indexOf("| type | Simple-Micro | Online-Boutique | Train-Ticket |");
  expect(start, "the README's expert table").toBeGreaterThan(0);
  const rows = readme.slice(start).split("\n").slice(2);
  const table = new Map<string, string[]>();
  for (const row of rows) {
    if (!row.startsWith("|")) break;
    const [id, ...cells] = row
      .split("|")
      .slice(1, -1)
      .map((c) => c.trim());
    table.set(id, cells);
  }
  return table;
}

describe("the README's expert table", () => {
  it("lists every expert type with each system's number of targets", () => {
    const catalog = parse(readFileSync(join(ROOT, "chaos/catalog.yaml"), "utf8")) as {
      failures: Record<string, { tier?: string }>;
    };
    const expert = Object.entries(catalog.failures)
      .filter(([, f]) => f.tier === "expert")
      .map(([id]) => id);
    expect(expert).toHaveLength(20);
    const targets = SYSTEMS.map(
      (s) =>
        (
          parse(readFileSync(join(ROOT, "envs", s, "env.yaml"), "utf8")) as {
            faultTargets: Record<string, unknown[]>;
          }
        ).faultTargets,
    );
    const table = readmeTable();
    expect([...table.keys()]).toEqual(expert);
    for (const id of expert)
      expect(table.get(id), id).toEqual(targets.map((t) => (t[id]?.length ? String(t[id].length) : "—")));
  });
});
