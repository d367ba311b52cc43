// No fingerprint of the harness where a model looks, over every failure type of Simple-Micro
// (the other systems: test/sweep).
import { noTraces } from "./fingerprints.js";

noTraces("simple-micro");
