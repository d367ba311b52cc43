import { defineConfig } from "vitest/config";
import { LONG_LANE } from "./test/lanes.js";

// The tier lane (`npm run test:tiers`, run by .ci/run after `npm test`): whole tiers through the
// CLI on the embedded cluster, oracle and noop, each run minutes long, and the long files of
// test/lanes.ts. Two at once: each run-all already runs two cases in parallel.
export default defineConfig({
  test: {
    include: ["test/tiers/**/*.test.ts", ...LONG_LANE],
    testTimeout: 1_800_000,
    hookTimeout: 600_000,
    pool: "forks",
    maxWorkers: 2,
    reporters: ["default"],
  },
});
