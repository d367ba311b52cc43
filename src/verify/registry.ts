// Verifiers by id (the catalog's `verifier` field). Most read only the target; `calls` reads the
// edge its fault's values name (the caller's variable, the callee, the route), so a fault's check
// is made with them: verifierOf. So is `demand` (an incident's load source, with its setting).
import type { FailureType, VerifierId } from "../faults/catalog.js";
import { callsVerifier, edgeOf } from "./calls.js";
import { configVerifier } from "./config.js";
import { demandOf, demandVerifier } from "./demand.js";
import { endpointsVerifier } from "./endpoints.js";
import { ioVerifier } from "./io.js";
import { networkVerifier } from "./network.js";
import { podVerifier } from "./pod.js";
import { rolloutVerifier } from "./rollout.js";
import { storeVerifier } from "./store.js";
import { throttleVerifier } from "./throttle.js";
import type { Verifier } from "./types.js";
import { usageVerifier } from "./usage.js";

/** The checks that read nothing but their target. */
export const VERIFIERS: Record<Exclude<VerifierId, "calls" | "demand">, Verifier> = {
  cpu: usageVerifier("cpu"),
  memory: usageVerifier("memory"),
  pod: podVerifier,
  network: networkVerifier,
  io: ioVerifier,
  config: configVerifier,
  rollout: rolloutVerifier,
  endpoints: endpointsVerifier,
  throttle: throttleVerifier,
  store: storeVerifier,
};

/** The check of one fault: its type's verifier, made with the fault's values where it reads them. */
export function verifierOf(
  spec: Pick<FailureType, "verifier">,
  vars: Record<string, unknown> = {},
): Verifier {
  if (spec.verifier === "calls") return callsVerifier(edgeOf(vars));
  if (spec.verifier === "demand") return demandVerifier(demandOf(vars));
  return VERIFIERS[spec.verifier];
}
