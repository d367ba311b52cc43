// The embedded cluster's one public face. The CLI (src/cli/embedded.ts, src/cli/sim-data.ts),
// the benchmarks and the test helpers import this file and nothing else under src/sim; the rest
// of the benchmark reaches a cluster only through a kubeconfig (scripts/lint-imports.mjs checks
// both). README.md beside it maps the folders.

export { R } from "./api/resources.js";
export { DEFAULT_NODES, EmbeddedCluster, type EmbeddedClusterOptions } from "./cluster/cluster.js";
export type { ClusterCredentials } from "./cluster/kubeconfig.js";
export type { TopologyInput } from "./context/catalog.js";
export type { NodeSpec } from "./controllers/nodes.js";
export { type Clock, defaultLead, WallClock } from "./core/clock.js";
export type { Pod } from "./core/objects.js";
export type { KObject } from "./core/types.js";
export { builtinStages, loadStages, type StageDocs, stagesPath } from "./stages/load.js";
export type { EgressMode } from "./workloads/topology/outside.js";
