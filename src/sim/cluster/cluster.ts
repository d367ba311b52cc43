// The embedded cluster: store, API semantics, controllers and the HTTP server, assembled.
// The CLI reaches it through src/sim/index.ts, the one import point of the embedded cluster.

import { Rng } from "../../util/rng.js";
import { Registry } from "../api/registry.js";
import { R } from "../api/resources.js";
import { ApiServer } from "../api/server.js";
import { ClusterIPAllocator } from "../api/service-ips.js";
import { ClusterAuth } from "../auth/index.js";
import { buildCatalog, type TopologyInput } from "../context/catalog.js";
import type { SimContext } from "../context/context.js";
import { EventRecorder } from "../context/events.js";
import { FaultBook } from "../context/faults.js";
import { LogBook } from "../context/logbook.js";
import { ControllerRuntime } from "../context/runtime.js";
import { createNodes, followClockConfigMap, type NodeSpec } from "../controllers/nodes.js";
import { type Clock, defaultLead, WallClock } from "../core/clock.js";
import { ContainerExec } from "../exec/handler.js";
import { execUpgrade } from "../exec/transport/websocket.js";
import { processesOf } from "../kubelet/command.js";
import { SimMetrics } from "../metrics/source.js";
import type { StageDocs } from "../stages/load.js";
import { Store } from "../store/store.js";
import { installImageTrees } from "../userland/image-tree.js";
import { installToolboxes } from "../userland/toolbox.js";
import { FaultedBehavior } from "../workloads/faulted.js";
import { GenericBehavior } from "../workloads/generic.js";
import { TopologyBehavior } from "../workloads/topology/behavior.js";
import { type EgressMode, setEgress } from "../workloads/topology/outside.js";
import { inClusterApi } from "./in-cluster.js";
import { installControllers } from "./install.js";
import { applyK3sManifests } from "./k3s.js";
import { type ClusterCredentials, kubeconfigYaml, writeKubeconfig } from "./kubeconfig.js";

export interface EmbeddedClusterOptions {
  /** The systems the cluster models: each env's topology (the CLI loads them from env folders). */
  topology: TopologyInput[];
  /** The simulator's data: the stage files (the CLI loads the package's src/sim/stages). */
  stages: StageDocs;
  /** Clock speed factor: 60 runs a minute of cluster time in a second. */
  speed?: number;
  /**
   * Ms of cluster time the clock starts behind the wall clock: what a fast clock may gain before
   * it must follow the wall clock (default: `defaultLead(speed)`; core/clock.ts).
   */
  lead?: number;
  /**
   * Namespaces named by a ConfigMap of this namespace look as if restored from a cluster that
   * ran for days, once deployed (kubelet/lived-in.ts; docs/clock.md).
   */
  livedIn?: string;
  seed?: number | string;
  clock?: Clock;
  nodes?: NodeSpec[];
  /** Drain controller queues on their own (false in golden tests, which drain by hand). */
  autoDrain?: boolean;
  /** Store events kept for watches that resume from a resourceVersion (older ones answer 410). */
  watchHistory?: number;
  /** Outside addresses: reachable as through a node with Internet access (default), or air-gapped. */
  egress?: EgressMode;
  /**
   * Images that exist whatever the registry catalog (stages/images.yaml) says: those of the
   * systems' own manifests, so that a user's system with its own images runs.
   */
  publishedImages?: readonly string[];
}

export const DEFAULT_NODES: NodeSpec[] = [
  // k3s names a node after its host
  { name: "k3s-server", cpu: "32", memory: "128Gi", pods: 250 },
];

const SYSTEM_NAMESPACES = ["default", "kube-system", "kube-public", "kube-node-lease"];

export class EmbeddedCluster {
  readonly ctx: SimContext;
  /** Runs `kubectl exec` commands; its `commands` registry takes more commands. */
  readonly exec: ContainerExec;
  /** The cluster's CA, certificates, token signer and RBAC authorizer. */
  readonly auth: ClusterAuth;
  private server?: ApiServer;
  private port?: number;
  private metrics?: SimMetrics;

  constructor(opts: EmbeddedClusterOptions) {
    const clock = opts.clock ?? new WallClock(opts.speed ?? 1, opts.lead ?? defaultLead(opts.speed ?? 1));
    const store = new Store(opts.watchHistory);
    const rng = new Rng(opts.seed ?? 42);
    const serviceIPs = new ClusterIPAllocator(new Rng(`${opts.seed ?? 42}/service-ips`));
    const registry = new Registry(store, clock, rng, serviceIPs);
    const runtime = new ControllerRuntime(clock, opts.autoDrain ?? true);
    const events = new EventRecorder(registry);
    const faults = new FaultBook();
    // Chaos Mesh's effects (FaultedBehavior) over what the workloads do on their own
    const behavior = new FaultedBehavior(
      new TopologyBehavior(
        () => this.ctx,
        new GenericBehavior(rng, () => processesOf(this.ctx)),
        () => processesOf(this.ctx),
      ),
      faults,
    );
    const catalog = buildCatalog(opts.topology);
    installToolboxes(opts.stages.toolboxes);
    installImageTrees(opts.stages.imageTrees);
    this.ctx = {
      store,
      registry,
      clock,
      rng,
      runtime,
      events,
      logs: new LogBook(clock),
      behavior,
      faults,
      catalog,
      stages: opts.stages,
      stream: (label) => new Rng(`${opts.seed ?? 42}/${label}`),
      publishedImages: opts.publishedImages ?? [],
    };
    setEgress(this.ctx, opts.egress ?? "internet");
    this.auth = new ClusterAuth(store, registry, clock);
    this.ctx.apiserver = inClusterApi(store, this.auth, () => this.port);
    installControllers(
      this.ctx,
      this.auth,
      opts.livedIn ? { registry: opts.livedIn } : undefined,
      () => this.metrics,
    );
    for (const ns of SYSTEM_NAMESPACES)
      registry.create(R("Namespace"), undefined, {
        apiVersion: "v1",
        kind: "Namespace",
        metadata: { name: ns },
      });
    applyK3sManifests(this.ctx, this.ctx.stream("k3s"));
    createNodes(this.ctx, opts.nodes ?? DEFAULT_NODES);
    followClockConfigMap(this.ctx);
    this.exec = new ContainerExec(this.ctx);
  }

  /** Serve the Kubernetes API on 127.0.0.1 (a free port unless given). */
  async listen(port = 0): Promise<string> {
    const { store, registry, clock, logs } = this.ctx;
    const exec = this.exec;
    this.metrics = new SimMetrics(this.ctx);
    this.server = new ApiServer({
      store,
      registry,
      clock,
      logs,
      exec,
      metrics: this.metrics,
      onUpgrade: execUpgrade({ registry, exec }),
      tls: { ...this.auth.pki.serving, ca: this.auth.pki.ca },
      auth: this.auth,
    });
    this.port = await this.server.listen(port);
    return this.url;
  }

  get url(): string {
    if (this.port === undefined) throw new Error("the embedded cluster is not listening yet");
    return `https://127.0.0.1:${this.port}`;
  }

  kubeconfig(): string {
    return kubeconfigYaml(this.url, this.credentials());
  }

  writeKubeconfig(path: string): string {
    return writeKubeconfig(path, this.url, this.credentials());
  }

  /** The admin's: the cluster CA to trust and a client certificate in system:masters. */
  credentials(): ClusterCredentials {
    const { ca, admin } = this.auth.pki;
    return { ca, user: { clientCertificate: admin.cert, clientKey: admin.key } };
  }

  async stop(): Promise<void> {
    this.ctx.runtime.stop();
    this.metrics?.stop();
    await this.server?.close();
  }
}
