// The option parsers moved to src/util/parse.ts, where the run's options (src/runner/config.ts)
// use them too. This file only keeps the old import path for src/cli/sim.ts, which belongs to the
// simulator's branch: once that imports from src/util/parse.ts, delete this file.
export { parseNonNegativeInt, parsePositive } from "../util/parse.js";
