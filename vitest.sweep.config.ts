import { defineConfig } from "vitest/config";

// The sweep (`npm run test:sweep`, by hand before an issue is resolved; too long for CI): the
// medium and hard tiers of Online-Boutique and Train-Ticket (their easy tiers run in the tier
// lane), the expert tier's fairness and the fingerprint check on both, their incident tiers, and
// Simple-Micro's tiers at every report level. Two at once, as the tier lane.
export default defineConfig({
  test: {
    include: ["test/sweep/**/*.test.ts"],
    testTimeout: 3_600_000,
    hookTimeout: 600_000,
    pool: "forks",
    maxWorkers: 2,
    reporters: ["default"],
  },
});
