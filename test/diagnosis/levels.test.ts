// The report levels (--report): each level tells less than the one above it, and the symptom
// level's alert names neither the faulty service nor the failure, for every failure type of
// every system (with its user-facing check where it has one, its health check where not).
import { describe, expect, it } from "vitest";
import { catalog } from "../../src/chaos/catalog.js";
import { reportAt } from "../../src/diagnosis/build.js";
import { readReport, renderReport } from "../../src/diagnosis/report.js";
import type { SymptomMeasurement } from "../../src/diagnosis/symptom.js";
import { type EnvSpec, listEnvs, loadEnv } from "../../src/envs/env.js";
import type { HealthSnapshot } from "../../src/envs/health.js";

const common = { env: "simple-micro", namespace: "shop", inventory: "[local]\nlocalhost\n" };
const cpu = catalog().get("cpu-stress")!;
const image = catalog().get("image-bad-tag")!;
const simpleMicro = loadEnv("simple-micro");

/** What monitoring would measure with the fault in: the entry path failing or slow, one workload down. */
function measurement(env: EnvSpec, target: string): SymptomMeasurement {
  const health: HealthSnapshot = env.manifests
    .filter((m) => m.kind === "Deployment")
    .map((m) => {
      const down = m.metadata?.name === target;
      return {
        kind: "Deployment",
        name: m.metadata!.name!,
        replicas: 1,
        ready: down ? 0 : 1,
        updated: 1,
        settled: !down,
      };
    });
  const check = env.userCheck;
  if (!check) return { health, sinceMs: Date.UTC(2025, 0, 1, 12, 3, 0) };
  const reading = (ms: number, answers: (number | string)[]) => ({
    from: "pod/x",
    requests: check.requests.map((r) => ({ name: r.name, answers, medianMs: ms })),
  });
  return {
    check,
    baseline: reading(10, [200, 200, 200]),
    now: reading(900, [200, 503, "timeout"]),
    health,
    sinceMs: Date.UTC(2025, 0, 1, 12, 3, 0),
  };
}

describe("report levels", () => {
  it("full names the service and the type (the expert tier: the category); service only the service; symptom neither", () => {
    const f = [{ failure: cpu, service: "cart" }];
    expect(reportAt(common, f, { level: "full" }).report).toMatchObject({
      service: "cart",
      failure: "cpu-stress",
    });
    const e = reportAt(common, [{ failure: image, service: "cart" }], { level: "full" }).report;
    expect([e.service, e.category, e.failure]).toEqual(["cart", "Application-Level", undefined]);
    const s = reportAt(common, f, { level: "service" }).report;
    expect([s.service, s.category, s.failure, s.title]).toEqual(["cart", undefined, undefined, undefined]);
    const text = renderReport({ ...s, runtimeContext: "" });
    expect(text).not.toMatch(/Failure category/);
    expect(readReport(text)).toEqual({ namespace: "shop", faults: [{ service: "cart" }] });
    const y = reportAt(common, f, { level: "symptom", symptom: measurement(simpleMicro, "cart") });
    expect(y.report.service).toBeUndefined();
    expect(y.detail).toEqual([]);
    expect(readReport(renderReport({ ...y.report, runtimeContext: "" }))).toEqual({
      namespace: "shop",
      faults: [],
      alert: true,
    });
  });

  it("the symptom alert is written from the measurement: entry path, error rate, latency against the baseline, since when", () => {
    const text = renderReport({
      ...reportAt(common, [{ failure: cpu, service: "time-service" }], {
        level: "symptom",
        symptom: measurement(simpleMicro, "time-service"),
      }).report,
      runtimeContext: "",
    });
    expect(text).toContain("- Alert: the user-facing check fails since 12:03:00 UTC (cluster time)");
    expect(text).toContain(
      "- Entry path GET /hello (hello): 67% of 3 requests failed (503, timeout); median latency 900 ms against 10 ms healthy",
    );
  });

  it("the symptom alert names neither the service nor the failure, for every failure type of every system", () => {
    let checked = 0;
    for (const name of listEnvs()) {
      const env = loadEnv(name);
      for (const [id, targets] of Object.entries(env.faultTargets)) {
        const spec = catalog().get(id)!;
        for (const t of targets) {
          const service = t;
          const { report } = reportAt({ ...common, env: name }, [{ failure: spec, service }], {
            level: "symptom",
            symptom: measurement(env, service),
          });
          const text = renderReport({ ...report, runtimeContext: "" });
          for (const word of [service, id, spec.title, spec.category, "Root-cause", "Failure category"])
            expect(text.toLowerCase(), `${name} ${id} ${service}`).not.toContain(word.toLowerCase());
          checked++;
        }
      }
    }
    expect(checked).toBeGreaterThan(100);
  });
});
