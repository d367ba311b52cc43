// What `microremed task start` learned and the verifier needs: the namespace as it was before the
// fault (the health baseline; what users saw), what was injected (its chaos's end), when the
// fault showed. Kept in the harness's own folder (root's, 0700), never where the agent looks.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { MicroRemedError } from "../errors.js";
import type { Injection } from "../faults/inject.js";
import type { Baseline } from "../runner/context.js";
import type { HarborCase } from "./case.js";

export interface CaseState {
  case: HarborCase;
  baseline: Baseline;
  injections: Injection[];
  /** Cluster ms at which the fault was seen. */
  sinceMs: number;
  /** The agent's identity: system:serviceaccount:<ns>:oncall. */
  agent: string;
}

export const stateFile = (dir: string) => join(dir, "state.json");

export function writeState(dir: string, s: CaseState): void {
  writeFileSync(stateFile(dir), `${JSON.stringify(s, null, 2)}\n`, { mode: 0o600 });
}

export function readState(dir: string): CaseState {
  try {
    return JSON.parse(readFileSync(stateFile(dir), "utf8")) as CaseState;
  } catch (e) {
    throw new MicroRemedError(
      "E_CONFIG",
      `cannot read ${stateFile(dir)}: ${(e as Error).message}`,
      "the task's entrypoint writes it when the container starts (microremed task start); start the container first",
    );
  }
}
