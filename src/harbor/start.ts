// `microremed task start`: what a Harbor task's entrypoint does once the embedded cluster answers.
// As a run's case does (src/runner/case.ts): a healthy namespace (the system deployed), the
// fault injected and seen to show, the agent's identity (a ServiceAccount of the namespace and a
// kubeconfig holding only its token), and the diagnosis report at the task's level. Then the
// clock is slowed to the agent's speed and what the verifier needs is kept in the state folder.
import { chmodSync, chownSync, copyFileSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { renderReport } from "../diagnosis/report.js";
import { deployEnv } from "../envs/deploy.js";
import { MicroRemedError } from "../errors.js";
import { createAgentIdentity } from "../identity/agent.js";
import { alertSince } from "../runner/since.js";
import type { HarborCase } from "./case.js";
import { openHarness, setClock } from "./harness.js";
import { type CaseState, writeState } from "./state.js";

export interface StartOptions {
  /** The admin kubeconfig `microremed sim` wrote. */
  kubeconfig: string;
  /** The harness's own folder (root's): state.json. */
  state: string;
  /** Where the agent's kubeconfig goes (its ~/.kube/config). */
  agentKubeconfig: string;
  /** The agent's working folder: incident-report.md and .json, inventory.ini. */
  workdir: string;
  /** The agent's uid and gid, when the harness runs as root: its files become its own. */
  owner?: { uid: number; gid: number };
}

export async function startTask(c: HarborCase, o: StartOptions): Promise<CaseState> {
  const { ctx, roles, faults, inventory: inventorySource } = await openHarness(c, o.kubeconfig);
  await deployEnv(ctx.client, ctx.time, ctx.env, ctx.namespace);
  const baseline = await roles.preparer.prepare(ctx, faults);
  const injections = await roles.injector.inject(ctx, faults);
  const shown = await roles.confirmer.confirm(ctx, faults, injections, baseline);
  if (!shown.faultShown)
    throw new MicroRemedError(
      "E_CLUSTER",
      `the fault of ${c.name} did not show: ${shown.reason}`,
      "export the task again with another --seed, or a longer --injection-timeout",
      { reason: "cluster" },
    );
  const sinceMs = await alertSince(ctx.time, injections);
  const report = await roles.diagnoser.diagnose(ctx, faults, { baseline, sinceMs });

  const identity = await createAgentIdentity(ctx.client, ctx.namespace, "namespace");
  const own = (path: string, mode: number) => {
    chmodSync(path, mode);
    if (o.owner) chownSync(path, o.owner.uid, o.owner.gid);
  };
  for (const dir of [dirname(o.agentKubeconfig), o.workdir]) {
    mkdirSync(dir, { recursive: true });
    own(dir, 0o700);
  }
  copyFileSync(identity.kubeconfigPath, o.agentKubeconfig);
  own(o.agentKubeconfig, 0o600);
  // the identity's objects stay: the agent acts as it until the container ends
  rmSync(dirname(identity.kubeconfigPath), { recursive: true, force: true });
  const md = join(o.workdir, "incident-report.md");
  writeFileSync(md, `${renderReport(report)}\n`);
  own(md, 0o600);
  const inventory = join(o.workdir, "inventory.ini");
  copyFileSync(inventorySource, inventory);
  own(inventory, 0o600);
  const json = join(o.workdir, "incident-report.json");
  writeFileSync(json, `${JSON.stringify(report, null, 2)}\n`);
  own(json, 0o600);

  const state: CaseState = { case: c, baseline, injections, sinceMs, agent: identity.user };
  writeState(o.state, state);
  await setClock(ctx.client, c.methodSpeed);
  return state;
}
