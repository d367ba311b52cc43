// Models by name: the built-ins here; real providers join through the model registry (models/).
import { MicroRemedError } from "../errors.js";
import { NoopModel } from "./builtin/noop.js";
import { OracleModel } from "./builtin/oracle.js";
import { RunbookModel } from "./builtin/runbook.js";
import { loadScript, ScriptedModel } from "./builtin/scripted.js";
import { createProviderModel, providerFamilies, type ResolveOptions } from "./factory.js";
import type { Model } from "./types.js";

export const BUILTIN_MODELS = {
  oracle:
    "writes the canonical remediation for the failure category (kubectl in the namespace); proves each case solvable",
  noop: "writes a playbook that changes nothing; must score 0%",
  runbook:
    "the on-call runbook with no model: undoes the newest and every failing rollout, scales 0 to 1, deletes NetworkPolicies, re-points Services without endpoints, restarts what is not Ready",
  "scripted:<file>": "replays recorded assistant turns and tool calls from a YAML/JSON file (tests)",
} as const;

export type ModelFactory = (id: string, opts?: ResolveOptions) => Model | undefined;

const extraFactories: ModelFactory[] = [];

/** Providers register here (the registry of real backbones). */
export function registerModelFactory(f: ModelFactory) {
  extraFactories.push(f);
}

export function resolveModel(id: string, opts: ResolveOptions = {}): Model {
  if (id === "oracle") return new OracleModel();
  if (id === "noop") return new NoopModel();
  if (id === "runbook") return new RunbookModel();
  if (id.startsWith("scripted:")) {
    const file = id.slice("scripted:".length);
    return new ScriptedModel(loadScript(file), file);
  }
  for (const f of extraFactories) {
    const m = f(id, opts);
    if (m) return m;
  }
  throw new MicroRemedError(
    "E_UNKNOWN_MODEL",
    `unknown model "${id}"`,
    `use one of: ${[...Object.keys(BUILTIN_MODELS), ...providerFamilies(opts)].join(", ")} (list them with: microremed models)`,
  );
}

// The real providers, from the model registry (models/registry.yaml).
registerModelFactory(createProviderModel);
