// Every controller of the embedded cluster, installed in one place.

import { installAdmission } from "../api/admission/index.js";
import { installAuthControllers } from "../auth/controllers.js";
import type { ClusterAuth } from "../auth/index.js";
import { installChaosControllers } from "../chaos/index.js";
import { installNodeAgents } from "../kubelet/index.js";
import { installBatchControllers } from "./batch.js";
import type { SimContext } from "./context.js";
import { installCrdController } from "./crd.js";
import { installDisruptionController } from "./disruption.js";
import { installEndpointsController } from "./endpoints.js";
import { installGarbageCollector } from "./gc.js";
import { installNamespaceController } from "./namespace.js";
import { installServiceAccountController } from "./serviceaccount.js";
import { installTaintEvictionController } from "./taint-eviction.js";
import { installWorkloadControllers } from "./workloads.js";

export function installControllers(ctx: SimContext, auth?: ClusterAuth): void {
  // the bootstrap RBAC policy, ClusterRole aggregation and the tokens controller
  if (auth) installAuthControllers(ctx, auth.tokens, auth.pki.ca);
  installAdmission(ctx.registry);
  installCrdController(ctx);
  installNamespaceController(ctx);
  installServiceAccountController(ctx);
  installGarbageCollector(ctx);
  installEndpointsController(ctx);
  installNodeAgents(ctx);
  installWorkloadControllers(ctx);
  installBatchControllers(ctx);
  installDisruptionController(ctx);
  installTaintEvictionController(ctx);
  installChaosControllers(ctx); // after the kubelet: it re-syncs pods whose faults change
}
