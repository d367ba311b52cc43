// The report levels (--report): each level tells less than the one above it, and the symptom
// level's alert names neither the faulty service nor the failure, for every failure type of
// every system (with its user-facing check where it has one, its health check where not), nor
// copies the words of a check that failed (which name the pods and hosts it tried).
import { describe, expect, it } from "vitest";
import { reportAt } from "../../src/diagnosis/build.js";
import { readReport, renderReport } from "../../src/diagnosis/report.js";
import { answerWord, podCounts, type SymptomMeasurement } from "../../src/diagnosis/symptom.js";
import { type EnvSpec, listEnvs, loadEnv } from "../../src/envs/env.js";
import type { HealthSnapshot } from "../../src/envs/health.js";
import type { UserCheck } from "../../src/envs/schema-env.js";
import { catalog } from "../../src/faults/catalog.js";
import { answerOf, type UserReading } from "../../src/verify/user.js";

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

/** Every name of the system's objects: its Deployments, StatefulSets and Services. */
const systemNames = (env: EnvSpec) => [
  ...new Set(
    env.manifests
      .filter((m) => ["Deployment", "StatefulSet", "Service"].includes(m.kind))
      .map((m) => m.metadata!.name!),
  ),
];

/**
 * What the checks answer when a request fails, as the tools print it (src/sim/commands/http.ts,
 * time.ts: BusyBox wget under `time -p`, curl -s -w) and answerOf reads it: some name the host
 * or the pod.
 */
function realAnswers(check: UserCheck): (number | string)[] {
  const host = new URL(check.requests[0].url).host;
  const ip = "10.43.0.12";
  const pod = `pods "${check.from.apps[0]}-7d9f6c5b4-abcde" not found`;
  const timed = (line: string) => `${line}\nreal 0.00\nuser 0.00\nsys 0.00\n`;
  if (check.from.tool === "curl")
    return [
      answerOf("curl", "000 0.000", `curl: (6) Could not resolve host: ${host.split(":")[0]}`, 6),
      answerOf("curl", "000 0.000", `curl: (7) Failed to connect to ${host} port 80: Connection refused`, 7),
      answerOf("curl", "000 0.000", `curl: (52) Empty reply from server ${host}`, 52),
      answerOf("curl", "503 0.012", "", 0),
      "exec timed out after 100000 ms",
      pod,
    ];
  return [
    answerOf("wget", "", timed(`wget: bad address '${host}'`), 1),
    answerOf("wget", "", `wget: bad address '${host}'\n`, 1),
    answerOf("wget", "", `wget: can't connect to remote host (${ip}): Connection refused\n`, 1),
    answerOf("wget", "", "wget: error getting response: Connection reset by peer\n", 1),
    answerOf("wget", "", `Connecting to ${host} (${ip}:80)\nwget: error getting response\n`, 1),
    answerOf(
      "wget",
      "",
      "  HTTP/1.1 503 Service Unavailable\nwget: server returned error: HTTP/1.1 503\n",
      1,
    ),
    pod,
  ];
}

/** The reason measureUser gives when no pod of the check's clients is Ready (src/verify/user.ts). */
const noClient = (check: UserCheck) =>
  `no Ready pod of ${check.from.apps.join(", ")} with a ${check.from.container} container to request from`;

/** The alert of a measurement, as the method reads it (the report without its runtime context). */
function alertOf(env: EnvSpec, symptom: SymptomMeasurement): string {
  const { report } = reportAt({ ...common, env: env.name }, [{ failure: cpu, target: "x" }], {
    level: "symptom",
    symptom,
  });
  return renderReport({ ...report, runtimeContext: "" });
}

/** The alert holds no name of the system's objects, and no failure type's id or title. */
function expectNoNames(text: string, env: EnvSpec, what: string): void {
  const words = [
    ...systemNames(env),
    ...[...catalog().values()].flatMap((f) => [f.id, f.title]),
    "Root-cause",
    "Failure category",
  ];
  for (const word of words) expect(text.toLowerCase(), `${what}: ${word}`).not.toContain(word.toLowerCase());
}

describe("report levels", () => {
  it("full names the service and the type (the expert tier: the category); service only the service; symptom neither", () => {
    const f = [{ failure: cpu, target: "cart" }];
    expect(reportAt(common, f, { level: "full" }).report).toMatchObject({
      service: "cart",
      failure: "cpu-stress",
    });
    const e = reportAt(common, [{ failure: image, target: "cart" }], { level: "full" }).report;
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
      ...reportAt(common, [{ failure: cpu, target: "time-service" }], {
        level: "symptom",
        symptom: measurement(simpleMicro, "time-service"),
      }).report,
      runtimeContext: "",
    });
    expect(text).toContain("- Alert: the user-facing check fails since 12:03:00 UTC");
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
          const { report } = reportAt({ ...common, env: name }, [{ failure: spec, target: service }], {
            level: "symptom",
            symptom: measurement(env, service),
          });
          const text = renderReport({ ...report, runtimeContext: "" });
          for (const word of [service, id, spec.title, spec.category, "Root-cause", "Failure category"])
            expect(text.toLowerCase(), `${name} ${id} ${service}`).not.toContain(word.toLowerCase());
          expectNoNames(text, env, `${name} ${id} ${service}`);
          checked++;
        }
      }
    }
    expect(checked).toBeGreaterThan(100);
  });

  it("the alert copies no word of a check that failed: the tools' errors become fixed words, a probe without a pod says only that", () => {
    let checked = 0;
    for (const name of listEnvs()) {
      const env = loadEnv(name);
      const check = env.userCheck!;
      const base = measurement(env, "none");
      const reading = (answers: (number | string)[]): UserReading => ({
        from: `${check.from.apps[0]}-7d9f6c5b4-abcde/${check.from.container}`,
        requests: check.requests.map((r) => ({ name: r.name, answers, medianMs: 900 })),
      });
      const answers = realAnswers(check);
      // what the checks report still names hosts and pods: the alert must not pass it on
      expect(answers.some((a) => typeof a === "string" && systemNames(env).some((n) => a.includes(n)))).toBe(
        true,
      );
      const failing = alertOf(env, { ...base, now: reading(answers) });
      expect(failing).toMatch(/- Entry path \S+ \S+ \(\S+\): 100% of \d+ requests failed \(/);
      expectNoNames(failing, env, `${name}: failed requests`);
      expect(systemNames(env).some((n) => noClient(check).includes(n))).toBe(true);
      const none = alertOf(env, { ...base, now: noClient(check) });
      expect(none).toContain(
        "- Alert: the user-facing check could not be made since 12:03:00 UTC: its probe found no Ready pod to request from",
      );
      expectNoNames(none, env, `${name}: no client`);
      checked += 2;
    }
    expect(checked).toBe(2 * listEnvs().length);
    expect(realAnswers(simpleMicro.userCheck!).map(answerWord)).toEqual([
      "no such host", // wget's error line under time's lines: answerOf reads past real/user/sys
      "no such host",
      "refused",
      "connection reset",
      "no HTTP answer",
      "503",
      "no HTTP answer",
    ]);
  });

  it("a fault users do not see: the alert is the namespace's health alert, its pods and workloads counted, none named", () => {
    for (const name of listEnvs()) {
      const env = loadEnv(name);
      const target = env.faultTargets["pod-fail"]?.[0] ?? systemNames(env)[0];
      const m = measurement(env, target);
      const text = alertOf(env, { ...m, now: m.baseline, pods: { total: 14, notReady: 1, restarting: 1 } });
      expect(text).toContain(
        "- Alert: the namespace's health alert fired since 12:03:00 UTC; the user-facing check still passes",
      );
      expect(text).toContain("- 1 of 14 pods are not Ready; 1 have restarted containers");
      expect(text).toMatch(/- 1 of \d+ workloads are not fully Ready/);
      expect(text).toMatch(/: 0% of 3 requests failed; median latency 10 ms against 10 ms healthy/);
      expectNoNames(text, env, `${name}: health alert`);
    }
  });

  it("pods are counted as a health alert counts them: not Ready, restarted; finished and leaving pods left out", () => {
    const pod = (ready: boolean, restarts = 0, extra: Record<string, unknown> = {}) => ({
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "p" },
      status: {
        phase: "Running",
        conditions: [{ type: "Ready", status: ready ? "True" : "False" }],
        containerStatuses: [{ name: "c", ready, restartCount: restarts, image: "i", imageID: "", ...extra }],
      },
    });
    expect(
      podCounts([
        pod(true),
        pod(false, 3),
        pod(true, 1),
        pod(false, 0, { state: { waiting: { reason: "CrashLoopBackOff" } } }),
        { ...pod(false), status: { phase: "Succeeded" } },
        { ...pod(false), metadata: { name: "q", deletionTimestamp: "2025-01-01T00:00:00Z" } },
      ]),
    ).toEqual({ total: 4, notReady: 2, restarting: 3 });
  });
});
