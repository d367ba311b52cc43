import { defineConfig } from "vitest/config";

// The tier lane (`npm run test:tiers`, run by .ci/run after `npm test`): whole tiers through the
// CLI on the embedded cluster, oracle and noop, each run minutes long. Two at once: each run-all
// already runs two cases in parallel.
export default defineConfig({
  test: {
    include: ["test/tiers/**/*.test.ts"],
    testTimeout: 1_800_000,
    hookTimeout: 600_000,
    pool: "forks",
    maxWorkers: 2,
    reporters: ["default"],
  },
});
