// An embedded cluster with named nodes, for tests that drain, cordon and taint nodes (the shared
// helper starts one node unless told otherwise).
import { startTestCluster, type TestCluster } from "../../helpers/cluster.js";

export type { TestCluster };

export function startNodesCluster(names: string[], speed = 30): Promise<TestCluster> {
  return startTestCluster(
    speed,
    7,
    names.map((name) => ({ name, cpu: "8", memory: "32Gi", pods: 110 })),
  );
}
