// Verifiers by id (the catalog's `verifier` field).
import type { VerifierId } from "../chaos/catalog.js";
import { configVerifier } from "./config.js";
import { endpointsVerifier } from "./endpoints.js";
import { ioVerifier } from "./io.js";
import { networkVerifier } from "./network.js";
import { podVerifier } from "./pod.js";
import { rolloutVerifier } from "./rollout.js";
import type { Verifier } from "./types.js";
import { usageVerifier } from "./usage.js";

export const VERIFIERS: Record<VerifierId, Verifier> = {
  cpu: usageVerifier("cpu"),
  memory: usageVerifier("memory"),
  pod: podVerifier,
  network: networkVerifier,
  io: ioVerifier,
  config: configVerifier,
  rollout: rolloutVerifier,
  endpoints: endpointsVerifier,
};
