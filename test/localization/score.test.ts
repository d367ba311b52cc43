// Localization from the audit log: what the agent's requests changed, against the objects the
// fault changed or targeted; a broad restart is not localizing, whatever it touched.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Injection } from "../../src/faults/inject.js";
import { changeLabel, changeOf, changesIn } from "../../src/localization/audit.js";
import { scoreLocalization } from "../../src/localization/score.js";
import { localizationRows } from "../../src/runlog/localization.js";
import type { CaseRecord } from "../../src/runlog/records.js";

const NS = "/apis/apps/v1/namespaces/shop";
const chaos: Injection = {
  failure: "cpu-stress",
  namespace: "shop",
  target: "cart",
  chaos: { apiVersion: "x", kind: "StressChaos", name: "c" },
};
const deleted: Injection = {
  failure: "svc-deleted",
  namespace: "shop",
  target: "cart",
  touched: [{ apiVersion: "v1", kind: "Service", name: "cart", action: "deleted" }],
};
const netpol: Injection = {
  failure: "netpol-deny",
  namespace: "shop",
  target: "cart",
  touched: [
    { apiVersion: "networking.k8s.io/v1", kind: "NetworkPolicy", name: "cart-ingress", action: "created" },
  ],
};
const scaleZero: Injection = {
  failure: "scale-zero",
  namespace: "shop",
  target: "cart",
  touched: [{ apiVersion: "apps/v1", kind: "Deployment", name: "cart", action: "patched" }],
};
/** The reference's config patch: it records nothing it touched; its object is the Deployment. */
const configPatch: Injection = { failure: "pod-config-error", namespace: "shop", target: "cart" };
const restart = changeOf("PATCH", `${NS}/deployments/cart`)!;
const podDelete = changeOf("DELETE", "/api/v1/namespaces/shop/pods/cart-7d9f6c5b4-abcde")!;

function log(lines: [string, string, number, string?][]): string {
  const file = join(mkdtempSync(join(tmpdir(), "audit-")), "api-audit.jsonl");
  writeFileSync(
    file,
    lines
      .map(([method, path, status, name]) =>
        JSON.stringify({ method, path, status, ...(name ? { name } : {}) }),
      )
      .join("\n"),
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
      ["POST", "/api/v1/namespaces/shop/services", 201, "cart"],
      ["POST", "/api/v1/namespaces/shop/pods/cart-7d9f-abcde/eviction", 201, "cart-7d9f-abcde"],
    ]);
    expect(changesIn(file)).toEqual([
      { verb: "patch", resource: "deployments", name: "cart", namespace: "shop" },
      { verb: "patch", resource: "deployments", name: "cart", subresource: "scale", namespace: "shop" },
      { verb: "create", resource: "services", namespace: "shop" },
      { verb: "create", resource: "services", name: "cart", namespace: "shop" },
      {
        verb: "create",
        resource: "pods",
        name: "cart-7d9f-abcde",
        subresource: "eviction",
        namespace: "shop",
      },
    ]);
    expect(changesIn(file).map(changeLabel).slice(2)).toEqual([
      "create services",
      "create services/cart",
      "create pods/cart-7d9f-abcde/eviction",
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

  it("a deleted Service comes back by a create of its name (the proxy logs it); another create is not it", () => {
    const create = (name?: string) => [changeOf("POST", "/api/v1/namespaces/shop/services", name)!];
    expect(scoreLocalization(create("cart"), [deleted])).toMatchObject({
      localized: true,
      faultObjects: ["services/cart"],
      collateral: [],
    });
    expect(scoreLocalization(create("checkout"), [deleted])).toMatchObject({
      localized: false,
      collateral: ["create services/checkout"],
    });
    // a log without the create's name cannot say it was the deleted one
    expect(scoreLocalization(create(), [deleted]).localized).toBe(false);
  });

  it("a fault of a Service or a NetworkPolicy is not localized by restarting the service's workload", () => {
    for (const inj of [deleted, netpol])
      for (const changes of [[restart], [podDelete], [restart, podDelete]])
        expect(scoreLocalization(changes, [inj]), `${inj.failure} ${changes.map(changeLabel)}`).toMatchObject(
          {
            localized: false,
            collateral: changes.map(changeLabel),
          },
        );
    const drop = changeOf(
      "DELETE",
      "/apis/networking.k8s.io/v1/namespaces/shop/networkpolicies/cart-ingress",
    )!;
    expect(scoreLocalization([drop, restart], [netpol])).toMatchObject({
      localized: true,
      faultObjects: ["networkpolicies/cart-ingress"],
      collateral: ["patch deployments/cart"],
    });
    const other = changeOf(
      "DELETE",
      "/apis/networking.k8s.io/v1/namespaces/shop/networkpolicies/default-deny",
    )!;
    expect(scoreLocalization([other], [netpol]).localized).toBe(false);
  });

  it("a fault whose object is the Deployment (a config patch, scale-zero) is localized by changing it, not by replacing a pod", () => {
    for (const inj of [configPatch, scaleZero]) {
      expect(scoreLocalization([restart], [inj]), inj.failure).toMatchObject({
        localized: true,
        faultObjects: ["deployments/cart"],
      });
      expect(scoreLocalization([podDelete], [inj]).localized, inj.failure).toBe(false);
      const scale = changeOf("PATCH", `${NS}/deployments/cart/scale`)!;
      expect(scoreLocalization([scale], [inj]).localized, inj.failure).toBe(true);
      expect(scoreLocalization([changeOf("PATCH", `${NS}/deployments/checkout`)!], [inj]).localized).toBe(
        false,
      );
    }
  });

  it("a chaos fault is localized by replacing the selected pod or rolling its controller; another service's pod is not it", () => {
    expect(scoreLocalization([podDelete], [chaos])).toMatchObject({
      localized: true,
      faultObjects: ["deployments/cart"],
    });
    const rs = changeOf("DELETE", `${NS}/replicasets/cart-7d9f6c5b4`)!;
    expect(scoreLocalization([rs], [chaos]).localized).toBe(true);
    const recreate = [
      changeOf("DELETE", `${NS}/deployments/cart`)!,
      changeOf("POST", `${NS}/deployments`, "cart")!,
    ];
    expect(scoreLocalization(recreate, [chaos])).toMatchObject({ localized: true, collateral: [] });
    const elsewhere = changeOf("DELETE", "/api/v1/namespaces/shop/pods/checkout-7d9f6c5b4-abcde")!;
    expect(scoreLocalization([elsewhere], [chaos]).localized).toBe(false);
    expect(scoreLocalization([podDelete, elsewhere], [chaos]).localized).toBe(false);
  });

  it("two faults: each must be touched", () => {
    const drop = changeOf(
      "DELETE",
      "/apis/networking.k8s.io/v1/namespaces/shop/networkpolicies/cart-ingress",
    )!;
    const two = [chaos, { ...netpol, service: "cart" }];
    expect(scoreLocalization([podDelete], two).localized).toBe(false);
    expect(scoreLocalization([drop], two).localized).toBe(false);
    expect(scoreLocalization([podDelete, drop], two)).toMatchObject({
      localized: true,
      faultObjects: ["deployments/cart", "networkpolicies/cart-ingress"],
    });
  });

  it("an incident: every cause changed, itself or an object that carries it (via: a CronJob's source)", () => {
    const incident: Injection = {
      failure: "multi-three-revert",
      namespace: "shop",
      target: "frontend",
      causes: [
        { kind: "Service", name: "cart" },
        { kind: "CronJob", name: "defaults-sync", via: [{ kind: "ConfigMap", name: "checkout-defaults" }] },
      ],
    };
    const service = changeOf("POST", "/api/v1/namespaces/shop/services", "cart")!;
    const source = changeOf("PATCH", "/api/v1/namespaces/shop/configmaps/checkout-defaults")!;
    const job = changeOf("PATCH", "/apis/batch/v1/namespaces/shop/cronjobs/defaults-sync")!;
    // the live run's fix: the job's source set right, not the job: localized, and not collateral
    expect(scoreLocalization([service, source], [incident])).toMatchObject({
      localized: true,
      faultObjects: ["services/cart", "cronjobs/defaults-sync or configmaps/checkout-defaults"],
      collateral: [],
    });
    expect(scoreLocalization([service, job], [incident]).localized).toBe(true);
    expect(scoreLocalization([source, job], [incident]).localized).toBe(false);
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
