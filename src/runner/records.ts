// The case record now lives in src/runlog/records.ts. This file only keeps the old import path
// for test/sim/egress-probe.test.ts, which belongs to the simulator's branch: once that branch
// imports from src/runlog/, delete this file.
export type { CaseRecord } from "../runlog/records.js";
