// Checking a trajectory against ATIF v1.4: the JSON Schema we derived from the spec
// (schemas/atif-v1.4.json, with ajv and an RFC 3339 date-time format), and the two rules of Harbor's
// validators a schema cannot say: step ids count 1, 2, 3, ... and each observation result's
// source_call_id names a tool call of its own step.
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Ajv } from "ajv";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "../..");
const schema = JSON.parse(readFileSync(join(ROOT, "schemas/atif-v1.4.json"), "utf8")) as object;
// strict, but for `required` inside `not` (the agent-only fields), which strictRequired misreads; union types are the spec's (string | float)
const ajv = new Ajv({ allErrors: true, strict: true, strictRequired: false, allowUnionTypes: true });
// RFC 3339 date-time, as ajv-formats checks it (not a dependency of ours): ISO 8601 with a zone
const DATE_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/i;
ajv.addFormat("date-time", (s: string) => DATE_TIME.test(s) && !Number.isNaN(Date.parse(s)));
const validate = ajv.compile(schema);

interface Step {
  step_id: number;
  tool_calls?: { tool_call_id: string }[];
  observation?: { results: { source_call_id?: string | null }[] };
}

/** Every way `t` breaks ATIF v1.4 (empty when it is valid). */
export function atifProblems(t: unknown): string[] {
  if (!validate(t)) return (validate.errors ?? []).map((e) => `${e.instancePath || "/"} ${e.message}`);
  const steps = (t as { steps: Step[] }).steps;
  const problems: string[] = [];
  steps.forEach((s, i) => {
    if (s.step_id !== i + 1) problems.push(`/steps/${i} has step_id ${s.step_id}, not ${i + 1}`);
    const ids = new Set((s.tool_calls ?? []).map((c) => c.tool_call_id));
    for (const r of s.observation?.results ?? [])
      if (r.source_call_id && !ids.has(r.source_call_id))
        problems.push(`/steps/${i} answers ${r.source_call_id}, no tool call of its step`);
  });
  return problems;
}
