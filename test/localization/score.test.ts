// Localization from the audit log: what the agent's requests changed, against the objects the
// fault changed or targeted; a broad restart is not localizing, whatever it touched.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Injection } from "../../src/chaos/inject.js";
import { changeOf, changesIn } from "../../src/localization/audit.js";
import { scoreLocalization } from "../../src/localization/score.js";
import { localizationRows } from "../../src/runlog/localization.js";
import type { CaseRecord } from "../../src/runlog/records.js";

const NS = "/apis/apps/v1/namespaces/shop";
const chaos: Injection = {
  failure: "cpu-stress",
  namespace: "shop",
  service: "cart",
  chaos: { apiVersion: "x", kind: "StressChaos", name: "c" },
};
const deleted: Injection = {
  failure: "svc-deleted",
  namespace: "shop",
  service: "cart",
  touched: [{ apiVersion: "v1", kind: "Service", name: "cart", action: "deleted" }],
};

function log(lines: [string, string, number][]): string {
  const file = join(mkdtempSync(join(tmpdir(), "audit-")), "api-audit.jsonl");
  writeFileSync(
    file,
    lines.map(([method, path, status]) => JSON.stringify({ method, path, status })).join("\n"),
  );
  return file;
}

describe("the agent's changes, from the audit log", () => {
  it("keeps accepted writes as verb, resource and name; reads, exec and refused writes are not changes", () => {
    const file = log([
      ["GET", `${NS}/deployments/cart`, 200],
      ["POST", "/api/v1/namespaces/shop/pods/cart-7d9f-abcde/exec", 101],
      ["PATCH", `${NS}/deployments/cart`, 200],
      ["PATCH", `${NS}/deployments/cart/scale`, 200],
      ["DELETE", "/api/v1/namespaces/shop/pods/cart-7d9f-abcde", 403],
      ["POST", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", 201],
      ["POST", "/api/v1/namespaces/shop/services", 201],
    ]);
    expect(changesIn(file)).toEqual([
      { verb: "patch", resource: "deployments", name: "cart", namespace: "shop" },
      { verb: "patch", resource: "deployments", name: "cart", subresource: "scale", namespace: "shop" },
      { verb: "create", resource: "services", namespace: "shop" },
    ]);
    expect(changeOf("GET", "/api/v1/namespaces/shop/pods")).toBeUndefined();
  });

  it("a fix of the fault's object localizes; a restart of every Deployment does not, and lists its collateral", () => {
    const one = [changeOf("PATCH", `${NS}/deployments/cart`)!];
    expect(scoreLocalization(one, [chaos])).toMatchObject({ localized: true, collateral: [] });
    const pod = [changeOf("DELETE", "/api/v1/namespaces/shop/pods/cart-7d9f6c5b4-abcde")!];
    expect(scoreLocalization(pod, [chaos]).localized).toBe(true);
    const all = [...one, changeOf("PATCH", `${NS}/deployments/checkout`)!];
    expect(scoreLocalization(all, [chaos])).toMatchObject({
      localized: false,
      collateral: ["patch deployments/checkout"],
    });
    expect(scoreLocalization([], [chaos]).localized).toBe(false);
  });

  it("a deleted Service comes back by a create, whose name is in the body", () => {
    const create = [changeOf("POST", "/api/v1/namespaces/shop/services")!];
    expect(scoreLocalization(create, [deleted])).toMatchObject({
      localized: true,
      faultObjects: ["deployments/cart", "services/cart"],
    });
  });

  it("the summary's rows: success, localized and their crossings per level and tier, with intervals", () => {
    const rec = (success: boolean, localized: boolean, report = "symptom") =>
      ({
        status: success ? "success" : "failure",
        success,
        failure: "cpu-stress",
        report,
        tier: "reference",
        localization: { localized },
      }) as unknown as CaseRecord;
    const rows = localizationRows([
      rec(true, true),
      rec(true, false),
      rec(false, true),
      rec(false, false),
      rec(true, true, "full"),
    ]);
    expect(rows.map((r) => [r.level, r.tier, r.evaluated])).toEqual([
      ["full", "reference", 1],
      ["symptom", "reference", 4],
    ]);
    const s = rows[1];
    expect([
      s.success.count,
      s.localized.count,
      s.localizedNotRepaired.count,
      s.repairedWithoutLocalizing.count,
    ]).toEqual([2, 2, 1, 1]);
    expect(s.success.low).toBeGreaterThan(0);
    expect(s.success.high).toBeLessThan(1);
  });
});
