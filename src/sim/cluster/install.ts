// Every controller of the embedded cluster, installed in one place.

import { installAdmission } from "../api/admission/index.js";
import type { ClusterAuth } from "../auth/index.js";
import { installChaosControllers } from "../chaos/index.js";
import type { SimContext } from "../context/context.js";
import { installAuthControllers } from "../controllers/auth.js";
import { installBatchControllers } from "../controllers/batch.js";
import { installCrdController } from "../controllers/crd.js";
import { installDisruptionController } from "../controllers/disruption.js";
import { installEndpointsController } from "../controllers/endpoints.js";
import { installEndpointSliceController } from "../controllers/endpointslice.js";
import { installEventTtl } from "../controllers/event-ttl.js";
import { installGarbageCollector } from "../controllers/gc.js";
import { installHpaController, type MetricsLookup } from "../controllers/hpa.js";
import { installNamespaceController } from "../controllers/namespace.js";
import { installResourceQuotaController } from "../controllers/resourcequota.js";
import { installServiceAccountController } from "../controllers/serviceaccount.js";
import { installTaintEvictionController } from "../controllers/taint-eviction.js";
import { installWorkloadControllers } from "../controllers/workloads.js";
import { installNodeAgents, type LivedInOptions } from "../kubelet/index.js";

export function installControllers(
  ctx: SimContext,
  auth?: ClusterAuth,
  livedIn?: LivedInOptions,
  metrics: MetricsLookup = () => undefined,
): void {
  // the bootstrap RBAC policy, ClusterRole aggregation and the tokens controller
  if (auth) installAuthControllers(ctx, auth.tokens, auth.pki.ca);
  installAdmission(ctx.registry);
  installEventTtl(ctx);
  installCrdController(ctx);
  installNamespaceController(ctx, auth?.pki.ca);
  installServiceAccountController(ctx);
  installGarbageCollector(ctx);
  installEndpointsController(ctx);
  installEndpointSliceController(ctx);
  installNodeAgents(ctx, livedIn);
  installWorkloadControllers(ctx);
  installBatchControllers(ctx);
  installDisruptionController(ctx);
  installResourceQuotaController(ctx);
  installTaintEvictionController(ctx);
  installHpaController(ctx, metrics); // reads what metrics-server serves
  installChaosControllers(ctx); // after the kubelet: it re-syncs pods whose faults change
}
