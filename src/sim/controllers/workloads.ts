// The workload controllers of kube-controller-manager: Deployments, ReplicaSets, StatefulSets
// and DaemonSets, installed together (index.ts needs one line for all of them).
import type { SimContext } from "../context/context.js";
import { installDaemonSetController } from "./daemonset.js";
import { installDeploymentController } from "./deployment.js";
import { installReplicaSetController } from "./replicaset.js";
import { installStatefulSetController } from "./statefulset.js";

export function installWorkloadControllers(ctx: SimContext): void {
  installReplicaSetController(ctx);
  installDeploymentController(ctx);
  installStatefulSetController(ctx);
  installDaemonSetController(ctx);
}
