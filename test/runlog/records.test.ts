// cases.jsonl is read back by resume, report, show and diff, also when an older version wrote it:
// before faultShown, the injection verdict said `pass` where it meant "the fault showed"; before
// `target`, each fault named its service `service`.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { RunRecords } from "../../src/runlog/folder.js";
import type { CaseRecord } from "../../src/runlog/records.js";

const base = {
  index: 1,
  failure: "pod-fail",
  target: "time-service",
  faults: [{ failure: "pod-fail", target: "time-service" }],
  success: false,
  attempts: 0,
  probeRounds: 0,
  phases: {},
  tokens: { inputTokens: 0, outputTokens: 0 },
  usageByRole: {},
  errors: [],
  method: "SoloGen",
  model: "oracle",
  startedAt: "2025-01-01T00:00:00.000Z",
  finishedAt: "2025-01-01T00:01:00.000Z",
};
const shown = { reason: "fault visible: time-service-1 Running NotReady", measurements: { pods: "x" } };

function folder(lines: string[]): RunRecords {
  const dir = mkdtempSync(join(tmpdir(), "runlog-records-"));
  writeFileSync(join(dir, "cases.jsonl"), lines.join("\n"));
  return new RunRecords(dir);
}

describe("reading cases.jsonl", () => {
  it("reads an injection verdict written before faultShown: pass meant the fault showed", () => {
    const [evaluated, notInjected] = folder([
      JSON.stringify({
        ...base,
        status: "failure",
        injected: true,
        verdicts: { injection: { pass: true, ...shown } },
      }),
      JSON.stringify({
        ...base,
        index: 2,
        status: "injection-failure",
        injected: false,
        verdicts: {
          injection: { pass: false, reason: "the fault did not show within 30 s: ok", measurements: {} },
        },
      }),
    ]).read();
    expect(evaluated.verdicts.injection).toEqual({ faultShown: true, ...shown });
    expect(notInjected.verdicts.injection).toEqual({
      faultShown: false,
      reason: "the fault did not show within 30 s: ok",
      measurements: {},
    });
    expect("pass" in (evaluated.verdicts.injection ?? {})).toBe(false);
  });

  it("reads a fault's service, as versions before target wrote it, as its target", () => {
    const old = { ...base, faults: [{ failure: "pod-fail", service: "time-service" }], status: "failure" };
    const [read] = folder([JSON.stringify(old)]).read();
    expect(read.faults).toEqual([{ failure: "pod-fail", target: "time-service" }]);
  });

  it("reads today's records as written, and skips a line torn by a crash", () => {
    const now: CaseRecord = {
      ...base,
      status: "failure",
      injected: true,
      verdicts: { injection: { faultShown: true, ...shown } },
    };
    const read = folder([JSON.stringify(now), '{"index": 2, "status": "succ']).read();
    expect(read).toEqual([now]);
  });
});
