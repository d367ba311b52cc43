// The diagnosis an agent states, optional: the submit_diagnosis tool, with the service
// it found at fault and the cause in one line, offered by both methods beside print_playbook.
// An mcp: agent states it with the MCP server's submit, whose first call counts (the server refuses
// the others). Read from the conversation after the method ran (the last submit_diagnosis counts),
// and scored by fact: whether the service named is a fault's service. Never by an LLM judge.
import type { ChatMessage } from "../llm/types.js";
import { argumentsObject } from "./answer.js";

export const SUBMIT_DIAGNOSIS = "submit_diagnosis";
/** The MCP server's last tool (src/mcp/tools.ts), whose optional arguments are the same two. */
const MCP_SUBMIT = "submit";

/** A cause as an agent names it: the object's kind (Deployment, Service, ConfigMap...) and name. */
export interface NamedCause {
  kind?: string;
  name: string;
}

export interface StatedDiagnosis {
  service: string;
  cause: string;
  /** The causes named, each an object (an incident's diagnosis; the service alone names one workload). */
  causes?: NamedCause[];
  /** The service named is one of the faults' services; for an incident, every cause was found. */
  correct: boolean;
  /** An incident's causes against those named (ITBench's scores): the share of the named that are causes, */
  precision?: number;
  /** the share of the causes named, */
  recall?: number;
  /** and every cause named (the strict score). */
  allFound?: boolean;
}

const EXAMPLE =
  '{"service": "cart", "cause": "its new image does not start"} or {"causes": [{"kind": "Service", "name": "cart"}], "cause": "..."}';

/** Kinds as agents write them (deployment, deployments, deploy, svc) in the API's spelling. */
const KIND_ALIASES: Record<string, string> = {
  deploy: "deployment",
  svc: "service",
  cm: "configmap",
  hpa: "horizontalpodautoscaler",
  netpol: "networkpolicy",
  sts: "statefulset",
  cj: "cronjob",
  limits: "limitrange",
  quota: "resourcequota",
};
export function normalKind(kind: string): string {
  const k = kind.trim().toLowerCase().replace(/\..*$/, "");
  const one = k.endsWith("ies")
    ? `${k.slice(0, -3)}y`
    : k.endsWith("ses") || !k.endsWith("s")
      ? k
      : k.slice(0, -1);
  return KIND_ALIASES[one] ?? KIND_ALIASES[k] ?? one;
}

/** The causes of a call's arguments: a list of {kind, name} (or "Kind/name" strings), or none. */
function causesOf(v: unknown): NamedCause[] | { problem: string } | undefined {
  if (v === undefined) return undefined;
  if (!Array.isArray(v) || !v.length)
    return {
      problem: `${SUBMIT_DIAGNOSIS}: "causes" must be a list of objects like {"kind": "Service", "name": "cart"}`,
    };
  const out: NamedCause[] = [];
  for (const c of v) {
    if (typeof c === "string" && c.includes("/")) {
      const [kind, name] = c.split("/", 2);
      out.push({ kind: kind.trim(), name: name.trim() });
    } else if (c && typeof c === "object" && typeof (c as NamedCause).name === "string") {
      const { kind, name } = c as NamedCause;
      out.push({
        ...(typeof kind === "string" && kind.trim() ? { kind: kind.trim() } : {}),
        name: name.trim(),
      });
    } else
      return {
        problem: `${SUBMIT_DIAGNOSIS}: each cause must be {"kind": ..., "name": ...}, got ${JSON.stringify(c)}`,
      };
  }
  return out;
}

/** The arguments of one call, or what is wrong with them (the model is told). */
export function diagnosisArgument(
  raw: string,
): { service: string; cause: string; causes?: NamedCause[] } | { problem: string } {
  const args = argumentsObject(raw, EXAMPLE);
  if ("problem" in args) return { problem: `${SUBMIT_DIAGNOSIS}: ${args.problem}` };
  const causes = causesOf(args.causes);
  if (causes && "problem" in causes) return causes;
  const service = typeof args.service === "string" ? args.service.trim() : "";
  if (!service && !causes)
    return {
      problem: `${SUBMIT_DIAGNOSIS}: "service" must name the service at fault (or "causes" the objects)`,
    };
  const cause = typeof args.cause === "string" ? args.cause.trim() : "";
  return { service: service || causes![0].name, cause, ...(causes ? { causes } : {}) };
}

/** Whether a named cause is the object: same name, and same kind where one is named. */
const sameObject = (named: NamedCause, c: { kind: string; name: string }) =>
  named.name.toLowerCase() === c.name.toLowerCase() &&
  (named.kind === undefined || normalKind(named.kind) === normalKind(c.kind));

/** A cause as scored: its object, and the objects that carry it too (a CronJob's source ConfigMap). */
type ScoredCause = { kind: string; name: string; via?: { kind: string; name: string }[] };
/** Whether a named cause is the cause: its own object, or one that carries it. */
const sameCause = (named: NamedCause, c: ScoredCause) =>
  sameObject(named, c) || (c.via ?? []).some((v) => sameObject(named, v));

/**
 * Causes named against an incident's causes: precision (the named that are causes), recall (the
 * causes named) and all found (ITBench's strict score). The service alone names one cause of any kind.
 */
export function scoreCauses(named: NamedCause[], causes: ScoredCause[]) {
  const hits = named.filter((n) => causes.some((c) => sameCause(n, c))).length;
  const found = causes.filter((c) => named.some((n) => sameCause(n, c))).length;
  return {
    precision: named.length ? hits / named.length : 0,
    recall: causes.length ? found / causes.length : 0,
    allFound: causes.length > 0 && found === causes.length,
  };
}

/**
 * The last valid submit_diagnosis of the conversation, scored against the faults' services, and
 * for an incident against its causes.
 */
export function statedDiagnosis(
  conversation: ChatMessage[],
  services: string[],
  causes?: ScoredCause[],
): StatedDiagnosis | undefined {
  let last: { service: string; cause: string; causes?: NamedCause[] } | undefined;
  let mcpSubmitted = false;
  for (const m of conversation)
    for (const c of m.toolCalls ?? []) {
      if (c.name === MCP_SUBMIT) {
        if (mcpSubmitted) continue;
        mcpSubmitted = true;
      } else if (c.name !== SUBMIT_DIAGNOSIS) continue;
      const a = diagnosisArgument(c.arguments);
      if (!("problem" in a)) last = a;
    }
  if (!last) return undefined;
  if (causes?.length) {
    const scored = scoreCauses(last.causes ?? [{ name: last.service }], causes);
    return { ...last, correct: scored.allFound, ...scored };
  }
  const named = last.service.toLowerCase();
  return { ...last, correct: services.some((s) => s.toLowerCase() === named) };
}
