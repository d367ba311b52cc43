// The probe sandbox's public face: createProbe for the case's (confined) kubeconfig file, the
// limits a method may ask for, and the contract that states them to the model.

export { probeContract } from "./contract.js";
export { cut } from "./cut.js";
export { checkKubectl, isReadCommand } from "./kubectl.js";
export { DEFAULT_PROBE_LIMITS, type ProbeLimits, probeLimits } from "./limits.js";
export { checkSegment, createProbe, type Probe, type ProbeOptions } from "./sandbox.js";
export { splitCommandLine } from "./tokenize.js";
