// kubectl rollout (staging/src/k8s.io/kubectl/pkg/cmd/rollout/, polymorphichelpers/):
// restart patches the template's kubectl.kubernetes.io/restartedAt annotation; status waits
// (polling on the cluster clock) until DeploymentStatusViewer says the rollout is done, printing
// each new "Waiting for ..." line; undo puts an earlier ReplicaSet's template back (JSON patch,
// the pod-template-hash label dropped); pause and resume set spec.paused. Field manager
// kubectl-rollout.
import { KubectlError } from "../client.js";
import type { Run, Verb } from "../context.js";
import { deepEqual } from "../diff.js";
import { errorText } from "../errors.js";
import { mustResolve, nameOf, pathOf, qualified, targets } from "../resources.js";
import { clone, DRY_RUN_FLAG, dryRunOf, fetchObject, type J, sendPatch, templateOf } from "./common.js";

const RESTARTABLE = new Set(["Deployment", "DaemonSet", "StatefulSet"]);

async function eachTarget(r: Run, fn: (t: ReturnType<typeof targets>[number], ns: string) => Promise<void>) {
  let failed = false;
  for (const t of targets(r.f.args)) {
    try {
      await fn(t, r.namespace());
    } catch (e) {
      r.p.stderr.write(`${errorText(e)}\n`);
      failed = true;
    }
  }
  return failed ? 1 : 0;
}

const restart: Verb = {
  flags: {
    output: { type: "string", short: "o" },
    selector: { type: "string", short: "l" },
    "field-manager": { type: "string" },
    ...DRY_RUN_FLAG,
  },
  run: (r) =>
    eachTarget(r, async (t, ns) => {
      if (!RESTARTABLE.has(t.rt.kind))
        throw new KubectlError(`error: ${qualified(t.rt)} "${t.name}" restarting is not supported`);
      const live = await fetchObject(r, t.rt, ns, t.name!);
      if ((live.spec as J)?.paused === true)
        throw new KubectlError(
          `error: ${qualified(t.rt)} "${t.name}" can't restart paused deployment (run rollout resume first)`,
        );
      const at = new Date(r.p.clock.toWall(r.p.clock.now())).toISOString().replace(/\.\d{3}Z$/, "Z");
      const dry = dryRunOf(r);
      if (dry !== "client")
        await sendPatch(
          r,
          t.rt,
          ns,
          t.name!,
          "strategic",
          { spec: { template: { metadata: { annotations: { "kubectl.kubernetes.io/restartedAt": at } } } } },
          "kubectl-rollout",
          { dry },
        );
      r.p.out(`${nameOf(t.rt, t.name)} restarted\n`);
    }),
};

/** DeploymentStatusViewer / DaemonSet / StatefulSet: the line to print and whether it is done. */
function statusOf(o: J, name: string): { msg: string; done: boolean } {
  const spec = (o.spec ?? {}) as J;
  const st = (o.status ?? {}) as J;
  const gen = Number((o.metadata as J).generation ?? 0);
  const n = (k: string) => Number(st[k] ?? 0);
  if (gen > n("observedGeneration"))
    return {
      msg: `Waiting for ${String(o.kind).toLowerCase()} spec update to be observed...\n`,
      done: false,
    };
  if (o.kind === "Deployment") {
    const cond = ((st.conditions as J[] | undefined) ?? []).find((c) => c.type === "Progressing");
    if (cond?.reason === "ProgressDeadlineExceeded")
      throw new KubectlError(`error: deployment "${name}" exceeded its progress deadline`);
    const want = Number(spec.replicas ?? 1);
    if (n("updatedReplicas") < want)
      return {
        msg: `Waiting for deployment "${name}" rollout to finish: ${n("updatedReplicas")} out of ${want} new replicas have been updated...\n`,
        done: false,
      };
    if (n("replicas") > n("updatedReplicas"))
      return {
        msg: `Waiting for deployment "${name}" rollout to finish: ${n("replicas") - n("updatedReplicas")} old replicas are pending termination...\n`,
        done: false,
      };
    if (n("availableReplicas") < n("updatedReplicas"))
      return {
        msg: `Waiting for deployment "${name}" rollout to finish: ${n("availableReplicas")} of ${n("updatedReplicas")} updated replicas are available...\n`,
        done: false,
      };
    return { msg: `deployment "${name}" successfully rolled out\n`, done: true };
  }
  if (o.kind === "DaemonSet") {
    if (n("updatedNumberScheduled") < n("desiredNumberScheduled"))
      return {
        msg: `Waiting for daemon set "${name}" rollout to finish: ${n("updatedNumberScheduled")} out of ${n("desiredNumberScheduled")} new pods have been updated...\n`,
        done: false,
      };
    if (n("numberAvailable") < n("desiredNumberScheduled"))
      return {
        msg: `Waiting for daemon set "${name}" rollout to finish: ${n("numberAvailable")} of ${n("desiredNumberScheduled")} updated pods are available...\n`,
        done: false,
      };
    return { msg: `daemon set "${name}" successfully rolled out\n`, done: true };
  }
  const want = Number(spec.replicas ?? 1);
  if (n("readyReplicas") < want)
    return { msg: `Waiting for ${want - n("readyReplicas")} pods to be ready...\n`, done: false };
  if (n("updatedReplicas") < want)
    return {
      msg: `Waiting for partitioned roll out to finish: ${n("updatedReplicas")} out of ${want} new pods have been updated...\n`,
      done: false,
    };
  return {
    msg: `statefulset rolling update complete ${want} pods at revision ${String(st.updateRevision ?? "")}...\n`,
    done: true,
  };
}

function seconds(v: string | undefined): number {
  if (!v) return 0;
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(v);
  if (!m)
    throw new KubectlError(
      `error: invalid argument "${v}" for "--timeout" flag: time: invalid duration "${v}"`,
    );
  const mult = { ms: 0.001, s: 1, m: 60, h: 3600 }[m[2] ?? "s"] ?? 1;
  return Number(m[1]) * mult;
}

const status: Verb = {
  flags: {
    watch: { type: "bool", short: "w" },
    timeout: { type: "string" },
    revision: { type: "string" },
    selector: { type: "string", short: "l" },
  },
  run: (r) =>
    eachTarget(r, async (t, ns) => {
      if (!RESTARTABLE.has(t.rt.kind))
        throw new KubectlError(`error: no status viewer has been implemented for ${t.rt.kind}`);
      const watch = r.f.bool("watch", true);
      const limit = seconds(r.f.str("timeout")) * 1000;
      const start = r.p.clock.now();
      let last = "";
      for (;;) {
        const o = await fetchObject(r, t.rt, ns, t.name!);
        const s = statusOf(o, t.name!);
        if (s.msg !== last) r.p.out(s.msg);
        last = s.msg;
        if (s.done || !watch) return;
        if (limit && r.p.clock.now() - start >= limit)
          throw new KubectlError("error: timed out waiting for the condition");
        if (!(await r.p.sleep(1000))) return;
      }
    }),
};

const undo: Verb = {
  flags: {
    "to-revision": { type: "string" },
    selector: { type: "string", short: "l" },
    output: { type: "string", short: "o" },
    ...DRY_RUN_FLAG,
  },
  run: (r) =>
    eachTarget(r, async (t, ns) => {
      if (t.rt.kind !== "Deployment")
        throw new KubectlError(
          `error: no rollbacker has been implemented for {"${t.rt.group}" "${t.rt.kind}"}`,
        );
      const d = await fetchObject(r, t.rt, ns, t.name!);
      const uid = (d.metadata as J).uid;
      const rsRt = mustResolve("replicasets.apps");
      const list = await r.client().get(pathOf(rsRt, ns));
      const rev = (o: J) =>
        Number(((o.metadata as J).annotations as J | undefined)?.["deployment.kubernetes.io/revision"] ?? 0);
      const owned = ((list.items as J[] | undefined) ?? []).filter((rs) =>
        (((rs.metadata as J).ownerReferences as J[] | undefined) ?? []).some(
          (o) => o.uid === uid && o.controller,
        ),
      );
      const current = rev(d);
      const to = Number(r.f.str("to-revision") ?? 0);
      let pick: J | undefined;
      if (to) {
        pick = owned.find((rs) => rev(rs) === to);
        if (!pick) throw new KubectlError(`error: unable to find specified revision ${to} in history`);
      } else {
        const older = owned.filter((rs) => rev(rs) < current).sort((a, b) => rev(b) - rev(a));
        pick = older[0];
        if (!pick) throw new KubectlError(`error: no rollout history found for deployment "${t.name}"`);
      }
      const tpl = clone((pick.spec as J).template as J);
      const labels = ((tpl.metadata as J | undefined)?.labels ?? {}) as J;
      delete labels["pod-template-hash"];
      if (deepEqual(tpl, templateOf(d))) {
        r.p.out(
          `${nameOf(t.rt, t.name)} skipped rollback (current template already matches revision ${rev(pick)})\n`,
        );
        return;
      }
      const dry = dryRunOf(r);
      if (dry !== "client")
        await sendPatch(
          r,
          t.rt,
          ns,
          t.name!,
          "json",
          [{ op: "replace", path: "/spec/template", value: tpl }],
          "kubectl-rollout",
          { dry },
        );
      r.p.out(`${nameOf(t.rt, t.name)} rolled back\n`);
    }),
};

function pauser(paused: boolean): Verb {
  return {
    flags: {
      selector: { type: "string", short: "l" },
      output: { type: "string", short: "o" },
      "field-manager": { type: "string" },
    },
    run: (r) =>
      eachTarget(r, async (t, ns) => {
        const d = await fetchObject(r, t.rt, ns, t.name!);
        const word = paused ? "paused" : "resumed";
        if (((d.spec as J)?.paused === true) === paused)
          throw new KubectlError(`error: ${qualified(t.rt)} "${t.name}" is already ${word}`);
        await sendPatch(r, t.rt, ns, t.name!, "strategic", { spec: { paused } }, "kubectl-rollout");
        r.p.out(`${nameOf(t.rt, t.name)} ${word}\n`);
      }),
  };
}

export const rollout = { restart, status, undo, pause: pauser(true), resume: pauser(false) };
