// An incident's stated diagnosis, scored per cause (ITBench's scores: precision, recall, all
// found): submit_diagnosis and the MCP submit take several causes, each {kind, name}; the old
// single-service form still reads, as one cause of any kind; the run's summary and the report's
// table carry the scores for the incident tier only.
import { describe, expect, it } from "vitest";
import { readReport, renderReport } from "../../src/diagnosis/report.js";
import type { ChatMessage } from "../../src/llm/types.js";
import { diagnosisArgument, scoreCauses, statedDiagnosis } from "../../src/methods/diagnosis.js";
import { formatLocalization, localizationFigures, localizationRows } from "../../src/runlog/localization.js";
import type { CaseRecord } from "../../src/runlog/records.js";

const CAUSES = [
  { kind: "Service", name: "paymentservice" },
  { kind: "Deployment", name: "checkoutservice" },
];
const said = (name: string, args: object): ChatMessage => ({
  role: "assistant",
  content: "",
  toolCalls: [{ id: "1", name, arguments: JSON.stringify(args) }],
});

describe("an incident's stated diagnosis", () => {
  it("scores the causes named: precision, recall and all found, kinds as agents spell them", () => {
    expect(
      scoreCauses(
        [
          { kind: "svc", name: "paymentservice" },
          { kind: "deployments", name: "checkoutservice" },
        ],
        CAUSES,
      ),
    ).toEqual({
      precision: 1,
      recall: 1,
      allFound: true,
    });
    // one of two found, one wrong named: ITBench's strict score is 0
    expect(
      scoreCauses(
        [
          { kind: "Service", name: "paymentservice" },
          { kind: "Deployment", name: "frontend" },
        ],
        CAUSES,
      ),
    ).toEqual({
      precision: 0.5,
      recall: 0.5,
      allFound: false,
    });
    // the right name of the wrong kind is not the cause
    expect(scoreCauses([{ kind: "Deployment", name: "paymentservice" }], CAUSES).recall).toBe(0);
  });

  it("counts an object that carries a cause (via: a CronJob's source ConfigMap) as that cause, once", () => {
    const job = {
      kind: "CronJob",
      name: "defaults-sync",
      via: [{ kind: "ConfigMap", name: "checkoutservice-defaults" }],
    };
    const causes = [...CAUSES, job];
    const source = { kind: "configmap", name: "checkoutservice-defaults" };
    // the live run's statement: the source instead of the job, beside the other two
    expect(scoreCauses([...CAUSES, source], causes)).toEqual({ precision: 1, recall: 1, allFound: true });
    // both the job and its source: both are the cause, which is found once
    expect(scoreCauses([{ kind: "CronJob", name: "defaults-sync" }, source], causes)).toEqual({
      precision: 1,
      recall: 1 / 3,
      allFound: false,
    });
    // the same name of another kind is not it
    expect(scoreCauses([{ kind: "Deployment", name: "checkoutservice-defaults" }], causes).precision).toBe(0);
  });

  it("reads the causes of submit_diagnosis and of the MCP submit; the last submit_diagnosis counts, the first submit", () => {
    const conv = [
      said("submit_diagnosis", { service: "frontend", cause: "guess" }),
      said("submit_diagnosis", {
        causes: [{ kind: "Service", name: "paymentservice" }, "Deployment/checkoutservice"],
        cause: "port and address",
      }),
    ];
    const d = statedDiagnosis(conv, ["frontend"], CAUSES);
    expect(d).toMatchObject({
      service: "paymentservice",
      precision: 1,
      recall: 1,
      allFound: true,
      correct: true,
    });
    const mcp = statedDiagnosis(
      [said("submit", { causes: [{ kind: "Service", name: "paymentservice" }] })],
      ["frontend"],
      CAUSES,
    );
    expect(mcp).toMatchObject({ recall: 0.5, allFound: false, correct: false });
  });

  it("keeps the single-service form: a service names one cause of any kind, and scores as before outside incidents", () => {
    expect(
      statedDiagnosis(
        [said("submit_diagnosis", { service: "checkoutservice", cause: "x" })],
        ["frontend"],
        CAUSES,
      ),
    ).toMatchObject({
      precision: 1,
      recall: 0.5,
      allFound: false,
    });
    const reference = statedDiagnosis(
      [said("submit_diagnosis", { service: "frontend", cause: "x" })],
      ["frontend"],
    );
    expect(reference).toEqual({ service: "frontend", cause: "x", correct: true });
    expect(diagnosisArgument('{"causes": []}')).toHaveProperty("problem");
    expect(diagnosisArgument('{"causes": [{"kind": "Service"}]}')).toHaveProperty("problem");
  });
});

describe("an incident's report", () => {
  it("names the alerting service, never as the root cause, and reads back as an incident", () => {
    const text = renderReport({
      level: "full",
      namespace: "shop",
      service: "frontend",
      category: "Network-Level",
      incident: true,
      env: "online-boutique",
      runtimeContext: "",
      inventory: "",
    });
    expect(text).toContain("- Alerting service: frontend");
    expect(text).not.toContain("Root-cause service");
    expect(readReport(text)).toEqual({
      namespace: "shop",
      incident: true,
      faults: [{ service: "frontend", category: "Network-Level" }],
    });
  });
});

const rec = (tier: CaseRecord["tier"], diagnosis?: CaseRecord["diagnosis"]): CaseRecord =>
  ({
    index: 1,
    failure: "x",
    target: "frontend",
    faults: [],
    status: "success",
    success: true,
    injected: true,
    verdicts: {},
    attempts: 1,
    probeRounds: 0,
    phases: {},
    tokens: { inputTokens: 0, outputTokens: 0 },
    usageByRole: {},
    errors: [],
    method: "SoloGen",
    model: "m",
    startedAt: "",
    finishedAt: "",
    tier,
    ...(diagnosis ? { diagnosis } : {}),
  }) as CaseRecord;

describe("the summary's per-cause figures", () => {
  it("are over the incident cases, a case that stated nothing scoring 0; absent for other tiers", () => {
    const full = { service: "a", cause: "", correct: true, precision: 1, recall: 1, allFound: true };
    const half = { service: "a", cause: "", correct: false, precision: 1, recall: 0.5, allFound: false };
    const f = localizationFigures([rec("incident", full), rec("incident", half), rec("incident")]);
    expect(f.causes).toMatchObject({ cases: 3, precision: 0.667, recall: 0.5, allFound: { count: 1 } });
    expect(
      localizationFigures([rec("expert", { service: "a", cause: "", correct: true })]).causes,
    ).toBeUndefined();
    const lines = formatLocalization(localizationRows([rec("incident", full), rec("expert")]));
    expect(lines.find((l) => l.includes(" incident "))).toContain(
      "causes: precision 1.00, recall 1.00, all found 100.0% (1/1)",
    );
    expect(lines.find((l) => l.includes(" expert "))).not.toContain("causes:");
  });
});
