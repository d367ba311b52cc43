// The single-step commands: deploy an env, inject one failure, verify it, restore a service.
// Each works on the embedded cluster (started for the command) or on any cluster with
// --cluster kube --kubeconfig F, e.g. one started by `microremed sim`. Like `run`, they keep to
// namespaces MicroRemed manages: deploy creates (and labels) a new one or reuses one it labelled;
// inject, verify and restore need one it deployed. kube-system, chaos-mesh and every namespace
// MicroRemed has no record of (src/envs/owned.ts) are refused before anything changes.
import type { Command } from "commander";
import { loadEnv, sourceManifest } from "../envs/env.js";
import { ADOPT, isOwned, LIST_OWNED, OWNERS_NAMESPACE } from "../envs/owned.js";
import { MicroRemedError } from "../errors.js";
import { failure } from "../faults/catalog.js";
import type { KubeClient } from "../kube/client.js";
import { targetVars } from "../runner/experiments.js";
import { parseNonNegativeInt, parsePositive } from "../util/parse.js";
import { DEFAULT_TIMEOUTS } from "../verify/types.js";
import { type ClusterFlags, openCluster } from "./cluster.js";

function clusterOptions(cmd: Command): Command {
  return cmd
    .option("--env <name>", "system the namespace runs", "train-ticket")
    .option("--namespace <ns>", "namespace (default: the env's own)")
    .option("--cluster <sim|kube>", "embedded cluster (sim) or the cluster of a kubeconfig (kube)", "kube")
    .option("--kubeconfig <file>", "kubeconfig (default: KUBECONFIG, then ~/.kube/config)")
    .option("--context <name>", "kubeconfig context")
    .option("--speed <factor>", "embedded cluster clock speed", (v) => parsePositive(v, "--speed"), 60)
    .option("--seed <n>", "seed", (v) => parseNonNegativeInt(v, "--seed"), 42);
}

type Opts = ClusterFlags & { env: string; namespace?: string };

/** The modules that talk to a cluster, loaded when a command runs (they take a while to load). */
const ops = async () => {
  const [chaos, deploy, health, verify] = await Promise.all([
    import("../faults/inject.js"),
    import("../envs/deploy.js"),
    import("../envs/health.js"),
    import("../verify/registry.js"),
  ]);
  return { ...chaos, ...deploy, ...health, ...verify };
};

/** Namespaces of the cluster itself and of Chaos Mesh: never MicroRemed's, whatever their labels. */
const SYSTEM = /^(kube-.*|default|chaos-mesh|chaos-testing|local-path-storage|cert-manager)$/;

const forbidden = (message: string, fix: string) =>
  new MicroRemedError("E_FORBIDDEN_NAMESPACE", message, fix);

/** Refuse a system namespace by its name, before any cluster is opened. */
function checkName(command: string, ns: string) {
  if (SYSTEM.test(ns))
    throw forbidden(
      `microremed ${command} does not touch namespace "${ns}": it belongs to the cluster or to Chaos Mesh`,
      `pass --namespace with a namespace MicroRemed deployed (${LIST_OWNED}), or leave it out for the env's own`,
    );
}

/** A namespace MicroRemed deployed: it exists and is recorded as MicroRemed's. */
async function requireManaged(client: KubeClient, command: string, ns: string, env: string) {
  const live = await client.tryGet("v1", "Namespace", undefined, ns);
  if (!live)
    throw forbidden(
      `namespace "${ns}" does not exist, so MicroRemed has nothing there to ${command}`,
      `deploy it first: microremed deploy ${env} --namespace ${ns}`,
    );
  if (!(await isOwned(client, ns)))
    throw forbidden(
      `namespace "${ns}" was not deployed by MicroRemed (no record of it in namespace ${OWNERS_NAMESPACE}); microremed ${command} leaves it alone`,
      `pass --namespace with one MicroRemed deployed (${LIST_OWNED}), or record it if it is yours: ${ADOPT(ns, env)}`,
    );
}

/**
 * Open the cluster for a command on a namespace MicroRemed manages. deploy may create a new one
 * (deployEnv's ensureNamespace creates and records it, and refuses one not recorded).
 */
async function withCluster<T>(
  command: string,
  o: Opts,
  fn: (c: Awaited<ReturnType<typeof openCluster>>, ns: string) => Promise<T>,
): Promise<T> {
  const ns = o.namespace ?? loadEnv(o.env).defaultNamespace;
  checkName(command, ns);
  const conn = await openCluster(o);
  try {
    if (command !== "deploy") await requireManaged(conn.client, command, ns, o.env);
    return await fn(conn, ns);
  } finally {
    await conn.close();
  }
}

function checkTarget(env: string, f: string, service: string) {
  const targets = loadEnv(env).faultTargets[f] ?? [];
  if (!targets.includes(service))
    throw new MicroRemedError(
      "E_CONFIG",
      `${service} is not a ${f} target of ${env}`,
      `use one of: ${targets.join(", ")}`,
    );
}

export function registerSingleSteps(program: Command) {
  clusterOptions(
    program
      .command("deploy")
      .description("Deploy a system into its namespace and wait until every workload is Ready")
      .argument("<env>", "simple-micro, online-boutique or train-ticket"),
  ).action(async (env: string, o: Opts) => {
    const spec = loadEnv(env);
    await withCluster("deploy", { ...o, env }, async (c, ns) => {
      const { deployEnv } = await ops();
      const s = await deployEnv(c.client, c.time, spec, ns);
      process.stdout.write(
        `${env} is Ready in namespace ${ns}: ${s.map((w) => `${w.name} ${w.ready}/${w.replicas}`).join(", ")}\n`,
      );
    });
  });

  clusterOptions(
    program
      .command("inject")
      .description("Inject one failure into one service (as a case would) and leave it in place")
      .argument("<failure>", "failure id, e.g. cpu-stress")
      .argument("<service>", "target service"),
  ).action(async (f: string, service: string, o: Opts) => {
    const spec = failure(f);
    checkTarget(o.env, f, service);
    await withCluster("inject", o, async (c, ns) => {
      const { inject } = await ops();
      // an expert type's values for this target, as a case gets them (env.yaml faultTargets)
      const vars = targetVars(loadEnv(o.env), f, service);
      const inj = await inject(c.client, spec, ns, service, undefined, vars);
      process.stdout.write(
        `injected ${f} into ${service} in ${ns}${inj.chaos ? ` (${inj.chaos.kind} ${inj.chaos.name})` : " (deployment patched)"}\n`,
      );
    });
  });

  clusterOptions(
    program
      .command("verify")
      .description("Run the reference check for a failure type against a service; exit 0 when it passes")
      .argument("<failure>", "failure id")
      .argument("<service>", "target service")
      .option(
        "--confirm",
        "check whether the fault is visible now (as after an injection) instead of whether it recovered",
      ),
  ).action(async (f: string, service: string, o: Opts & { confirm?: boolean }) => {
    const spec = failure(f);
    const env = loadEnv(o.env);
    await withCluster("verify", o, async (c, ns) => {
      const { verifierOf } = await ops();
      // an expert type's values for this target name what its check reads (env.yaml faultTargets)
      const v = await verifierOf(spec, targetVars(env, f, service)).verify({
        client: c.client,
        time: c.time,
        env,
        namespace: ns,
        service,
        mode: o.confirm ? "confirm" : "final",
        windowMs: 30_000,
        timeouts: { ...DEFAULT_TIMEOUTS, readyMs: env.readyTimeoutSeconds * 1000 },
      });
      process.stdout.write(`${JSON.stringify(v, null, 2)}\n`);
      process.exitCode = v.pass ? 0 : 1;
    });
  });

  clusterOptions(
    program
      .command("restore")
      .description(
        "Remove MicroRemed's chaos from the namespace and restore a service from its original manifest",
      )
      .argument("<service>", "service to restore")
      .option("--manifest-path <file>", "original manifests (default: the env's source config)"),
  ).action(async (service: string, o: Opts & { manifestPath?: string }) => {
    const env = loadEnv(o.env);
    await withCluster("restore", o, async (c, ns) => {
      const { removeAllChaos, restoreService, snapshot } = await ops();
      const removed = await removeAllChaos(c.client, c.time, ns);
      const r = await restoreService(
        c.client,
        c.time,
        sourceManifest(env, service, o.manifestPath),
        ns,
        env.readyTimeoutSeconds,
      );
      const s = await snapshot(c.client, ns);
      process.stdout.write(
        `removed ${removed} chaos object(s); ${service} ${r}; namespace ${ns}: ${s.filter((w) => w.settled).length}/${s.length} workloads Ready\n`,
      );
    });
  });
}
