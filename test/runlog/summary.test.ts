// summarize() and summary.txt over hand-made records: the last record of a case counts (a resumed
// run appends the re-run of an error), pass@k per run and per failure type with --trials, the
// reference's summary lines under its names (inject_and_remediate.py of LLM4AIOps/MicroRemed
// prints "Success Rate", "Average Attempts per Success", "Average Remediation Time per Success",
// ...), and the run's errors listed apart with their reason codes.
import { describe, expect, it } from "vitest";
import type { CaseStatus, ReasonCode } from "../../src/outcome.js";
import { computeStats } from "../../src/report/stats.js";
import type { CaseRecord } from "../../src/runlog/records.js";
import { formatSummary, latestRecords, rateLine, summarize } from "../../src/runlog/summary.js";

function rec(
  index: number,
  status: CaseStatus,
  opts: { trial?: number; failure?: string; seconds?: number; code?: ReasonCode; attempts?: number } = {},
): CaseRecord {
  const evaluated = status === "success" || status === "failure";
  return {
    index,
    ...(opts.trial ? { trial: opts.trial } : {}),
    failure: opts.failure ?? "pod-fail",
    target: "time-service",
    faults: [{ failure: opts.failure ?? "pod-fail", target: "time-service" }],
    status,
    success: status === "success",
    injected: status !== "injection-failure",
    verdicts: evaluated
      ? {
          reference: { pass: status === "success", reason: "", measurements: {} },
          health: { pass: true, reason: "", measurements: {} },
        }
      : {},
    attempts: opts.attempts ?? (evaluated ? 1 : 0),
    probeRounds: 0,
    phases: {},
    ...(opts.seconds !== undefined ? { remediationSeconds: opts.seconds } : {}),
    tokens:
      status === "injection-failure"
        ? { inputTokens: 0, outputTokens: 0 }
        : { inputTokens: 100, outputTokens: 20 },
    usageByRole: {},
    errors: status === "error" ? ["provider answered 503"] : [],
    ...(opts.code ? { reason: { code: opts.code, detail: `${opts.code} detail` } } : {}),
    method: "SoloGen",
    model: "m",
    startedAt: "",
    finishedAt: "",
  };
}

const meta = { env: "simple-micro", method: "SoloGen", model: "m" };

describe("the records that count", () => {
  it("keeps the last record of each (index, trial), sorted", () => {
    const recs = [
      rec(2, "error", { trial: 1, code: "outage" }),
      rec(1, "success", { trial: 1 }),
      rec(1, "interrupted", { trial: 2 }),
      rec(2, "success", { trial: 1 }),
      rec(1, "failure", { trial: 2 }),
    ];
    expect(latestRecords(recs).map((r) => [r.index, r.trial, r.status])).toEqual([
      [1, 1, "success"],
      [1, 2, "failure"],
      [2, 1, "success"],
    ]);
  });

  it("a resumed run's error, re-run and appended, no longer counts", () => {
    const s = summarize("r", meta, [
      rec(1, "success"),
      rec(2, "error", { code: "outage" }),
      rec(2, "success"),
    ]);
    expect(s).toMatchObject({ cases: 2, evaluated: 2, successes: 2, errors: 0, errorCases: [] });
  });
});

describe("summary lines", () => {
  const s = summarize("r", meta, [
    rec(1, "success", { seconds: 10, attempts: 1 }),
    rec(2, "success", { seconds: 20, attempts: 2 }),
    rec(3, "failure", { seconds: 60, code: "ineffective" }),
    rec(4, "error", { code: "rate-limit" }),
    rec(5, "injection-failure", { code: "not-injected" }),
  ]);

  it("the report's cell over the same records reads the same figures, to the last digit", () => {
    const recs = [
      rec(1, "success", { seconds: 10, attempts: 1 }),
      rec(2, "success", { seconds: 20, attempts: 2 }),
      rec(3, "failure", { seconds: 60, code: "ineffective" }),
      rec(4, "error", { code: "rate-limit" }),
      rec(5, "injection-failure", { code: "not-injected" }),
    ];
    const cell = computeStats(recs);
    expect(cell).toMatchObject({
      evaluated: s.evaluated,
      successes: s.successes,
      successRate: s.successRate,
      interval: s.interval,
      attemptsPerSuccess: s.attemptsPerSuccess,
      meanRemediationSeconds: s.meanRemediationSeconds,
      tokens: { perCase: s.tokensPerCase },
      verdicts: { referencePasses: s.referencePasses, healthPasses: s.healthPasses },
    });
    expect(cell.successRate).toBe(0.667);
  });

  it("in summary.json: time per success and overall, tokens per success and per case, errors apart", () => {
    expect(s).toMatchObject({
      evaluated: 3,
      successes: 2,
      successRate: 0.667,
      attemptsPerSuccess: 1.5,
      meanRemediationSecondsPerSuccess: 15,
      meanRemediationSeconds: 30,
      tokensPerSuccess: 120,
      // every case's tokens (errors cost money too) over the evaluated cases
      tokensPerCase: 160,
      trials: 1,
      errors: 1,
      errorCases: [
        {
          index: 4,
          failure: "pod-fail",
          target: "time-service",
          code: "rate-limit",
          detail: "rate-limit detail",
        },
      ],
    });
    expect(s.passK).toBeUndefined();
  });

  it("in summary.txt, under the reference's names", () => {
    const txt = formatSummary(s);
    for (const line of [
      "  Total Experiments: 5",
      "  Injection Failures: 1",
      "  Errors of the run (not counted): 1 (rate-limit 1)",
      "  Successful Remediations: 2",
      "  Success Rate: 66.7% (2/3 cases;",
      "  Average Attempts per Success: 1.50",
      "  Average Remediation Time per Success: 15.0s",
      "  Average Remediation Time: 30.0s",
      "  Average Tokens per Success: 120",
      "  Average Tokens per Case: 160",
      "  Failure Types Success Ratio:",
      "    pod-fail           2/3 (66.7%)",
      "    case 4 pod-fail → time-service: rate-limit: rate-limit detail",
    ])
      expect(txt).toContain(line);
    expect(txt).not.toContain("pass@");
  });
});

describe("with --trials", () => {
  // case 1: 1 of 3 trials; case 2 (cpu-stress): 3 of 3; case 3: 0 of 3, one trial an error
  // re-run to a failure; case 4: an injection failure in trial 2, so only 2 evaluated trials
  const recs = [
    rec(1, "success", { trial: 1 }),
    rec(1, "failure", { trial: 2 }),
    rec(1, "failure", { trial: 3 }),
    rec(2, "success", { trial: 1, failure: "cpu-stress" }),
    rec(2, "success", { trial: 2, failure: "cpu-stress" }),
    rec(2, "success", { trial: 3, failure: "cpu-stress" }),
    rec(3, "failure", { trial: 1 }),
    rec(3, "error", { trial: 2, code: "outage" }),
    rec(3, "failure", { trial: 3 }),
    rec(3, "failure", { trial: 2 }),
    rec(4, "success", { trial: 1 }),
    rec(4, "injection-failure", { trial: 2 }),
    rec(4, "success", { trial: 3 }),
  ];

  it("pass@1, pass@k and pass^k overall and per failure type, k from the run", () => {
    const s = summarize("r", { ...meta, trials: 3 }, recs);
    expect(s.trials).toBe(3);
    expect(s.passK).toMatchObject({ k: 3, cases: 3, passAt1: 0.444, passAtK: 0.667, passHatK: 0.333 });
    expect(s.perFailure["cpu-stress"].passK).toMatchObject({ cases: 1, passAt1: 1, passAtK: 1, passHatK: 1 });
    expect(s.perFailure["pod-fail"].passK).toMatchObject({
      cases: 2,
      passAt1: 0.167,
      passAtK: 0.5,
      passHatK: 0,
    });
    // without the run's k, the records' highest trial stands for it
    expect(summarize("r", meta, recs).passK).toEqual(s.passK);
    const txt = formatSummary(s);
    expect(txt).toContain("Run r: simple-micro, SoloGen, model m, 3 trials per case");
    expect(txt).toMatch(
      /Reliability over 3 trials \(3 cases with 3 evaluated trials; 95% intervals\): pass@1 44\.4% \[\d+\.\d%–\d+\.\d%\], pass@3 66\.7% \[20\.8%–93\.9%\], pass\^3 33\.3% \[6\.1%–79\.2%\]/,
    );
    expect(txt).toMatch(/ {4}cpu-stress {9}pass@1 100\.0% \[20\.7%–100\.0%\]/);
  });

  it("a run whose every case was an error of the run has no rate: null in JSON, '-' in text, the errors beside it", () => {
    const s = summarize("r", meta, [
      rec(1, "error", { code: "outage" }),
      rec(2, "error", { code: "outage" }),
    ]);
    expect(s).toMatchObject({ evaluated: 0, successes: 0, errors: 2, successRate: null });
    expect(formatSummary(s)).toContain("  Success Rate: - (0/0 cases; 2 errors of the run, not counted;");
    expect(rateLine(s)).toBe("- (0/0; 2 errors of the run, not counted)");
    expect(rateLine({ successRate: 0.5, successes: 1, evaluated: 2, errors: 1 })).toBe(
      "50.0% (1/2; 1 error of the run, not counted)",
    );
    expect(rateLine({ successRate: 1, successes: 2, evaluated: 2, errors: 0 })).toBe("100.0% (2/2)");
  });
});

describe("localization and stated diagnoses", () => {
  /** A case at the symptom level, localized or not, with the diagnosis its agent stated (if any). */
  const at = (index: number, status: CaseStatus, localized: boolean, correct?: boolean): CaseRecord => ({
    ...rec(index, status),
    report: "symptom",
    tier: "reference",
    localization: { changed: [], faultObjects: [], localized, collateral: [] },
    ...(correct === undefined
      ? {}
      : { diagnosis: { service: correct ? "time-service" : "ts-db", cause: "", correct } }),
  });
  const recs = [
    at(1, "success", true, true),
    at(2, "success", true, false),
    at(3, "success", false),
    at(4, "failure", true, true),
    at(5, "failure", false),
    at(6, "failure", false),
    at(7, "failure", false),
    at(8, "failure", false),
    // an error of the run says nothing of the agent: its stated diagnosis is not counted
    at(9, "error", true, true),
  ];

  it("counts the stated diagnoses over the evaluated cases, and the correct ones over the stated", () => {
    const [row] = summarize("r", meta, recs).localization ?? [];
    expect(row).toMatchObject({
      level: "symptom",
      tier: "reference",
      evaluated: 8,
      success: { count: 3 },
      localized: { count: 3 },
      localizedNotRepaired: { count: 1 },
      repairedWithoutLocalizing: { count: 1 },
      stated: { count: 3, rate: 0.375 },
      statedCorrect: { count: 2, rate: 0.667 },
    });
    // the correct ones' interval is over the 3 stated, not the 8 evaluated
    expect(row.statedCorrect).toMatchObject({ low: 0.208, high: 0.939 });
    expect(row.stated).toMatchObject({ low: 0.137, high: 0.694 });
  });

  it("prints them beside the localization figures in summary.txt, '-' where none was stated", () => {
    const txt = formatSummary(summarize("r", meta, recs));
    expect(txt).toMatch(
      /^ {4}symptom {2}reference {2}success 37\.5% \(3\/8\) .*; repaired without localizing 12\.5% \(1\/8\) \[[^\]]+\]; stated diagnosis 37\.5% \(3\/8\) \[13\.7%–69\.4%\], correct 66\.7% \(2\/3\) \[20\.8%–93\.9%\]$/m,
    );
    const none = formatSummary(summarize("r", meta, recs.slice(2, 3)));
    expect(none).toContain("; stated diagnosis 0.0% (0/1) [0.0%–79.3%], correct -\n");
  });
});
