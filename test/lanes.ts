// Which lane a test file runs in. `npm test` (vitest.config.ts) is what a developer runs after
// every change and must finish in 10 minutes on 2 cores; these files are sweeps over every
// failure type or long end-to-end runs, so they run in the second CI lane (`npm run test:tiers`,
// vitest.tiers.config.ts) beside the whole tiers. Run them by hand after changing what they cover
// (the embedded cluster's workloads and chaos, the remediation path, --parallel).
export const LONG_LANE = [
  // every reference failure, fixed and not fixed as an operator would try (46 cases)
  "test/sim/workloads/remediation-table.test.ts",
  // every reference failure as seen from inside Online-Boutique's and Train-Ticket's pods
  "test/sim/workloads/failures-matrix-online-boutique.test.ts",
  "test/sim/workloads/failures-matrix-train-ticket.test.ts",
  // kubernetes.core's integration targets through ansible-playbook
  "test/sim/clients/kubernetes-core-targets.test.ts",
  // a serial run and two parallel ones of the same six cases
  "test/cli/parallel.test.ts",
  // the expert tier's fixes with kubernetes.core, and a restart that does not fix them
  "test/cli/expert-fixes.test.ts",
  // the symptom-level oracle on every reference type (npm test: one per localization signal)
  "test/cli/symptom-every-type.test.ts",
  // every failure type of Simple-Micro as a Harbor task: oracle 1, noop 0 (npm test: one case)
  "test/harbor/export-every-type.test.ts",
];
