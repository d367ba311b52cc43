import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // whole tiers run in their own lane (vitest.tiers.config.ts, npm run test:tiers) and the
    // sweep by hand (vitest.sweep.config.ts, npm run test:sweep)
    exclude: ["test/tiers/**", "test/sweep/**", "**/node_modules/**"],
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
