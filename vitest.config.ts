import { defineConfig } from "vitest/config";
import { LONG_LANE } from "./test/lanes.js";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // whole tiers and the long files (test/lanes.ts) run in their own lane (vitest.tiers.config.ts,
    // npm run test:tiers) and the sweep by hand (vitest.sweep.config.ts, npm run test:sweep)
    exclude: ["test/tiers/**", "test/sweep/**", ...LONG_LANE, "**/node_modules/**"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: "forks",
    // Most test files wait on the embedded cluster's clock or on child processes rather than
    // compute, so three at once on two cores finish the suite in about half the time of one
    // (vitest's default is cores - 1); every time a test asserts is cluster time, not wall time.
    maxWorkers: 3,
    reporters: ["default"],
  },
});
