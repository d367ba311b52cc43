// NetworkChaos (netem actions and partition): chaos-daemon sets tc qdiscs in the pod's network
// namespace. Here that is a FaultBook `network` record on each source pod ("." records). With a
// `target`, only traffic to the target pods' IPs is affected; direction `from`/`both` also puts
// the rule on the target pods, towards the sources ("target" records), as Chaos Mesh does.
// `externalTargets` (addresses or domains outside the cluster, direction `to` only) limit the
// rule to those destinations as well; domains resolve as the cluster's DNS answers them.

import { parseGoDuration } from "../../util/duration.js";
import { R } from "../api/resources.js";
import type { NetworkFault } from "../context/faults.js";
import type { Pod } from "../core/objects.js";
import { publicAddress } from "../workloads/topology/outside.js";
import { type Applier, type ApplyEnv, fail, notFound, ok } from "./applier.js";
import type { NetworkSpec } from "./spec.js";

const ACTIONS = ["delay", "loss", "duplicate", "corrupt", "partition", "bandwidth"] as const;

const isAction = (a: string): a is NetworkFault["action"] => (ACTIONS as readonly string[]).includes(a);
const isDirection = (d: string): d is NetworkFault["direction"] => ["to", "from", "both"].includes(d);

/** The netem parameters of a spec as a fault (without target IPs), or why it is invalid. */
export function networkFault(spec: NetworkSpec): NetworkFault | string {
  const action = spec?.action ?? "delay";
  if (!isAction(action)) return `action ${action} not supported`;
  const direction = spec.direction ?? "to";
  if (!isDirection(direction)) return `direction ${direction} not supported`;
  const f: NetworkFault = { kind: "network", action, direction };
  if (action === "delay") {
    f.delayMs = parseGoDuration(spec.delay?.latency);
    if (f.delayMs === undefined) return `invalid latency ${JSON.stringify(spec.delay?.latency)}`;
    f.jitterMs = parseGoDuration(spec.delay?.jitter) ?? 0;
  }
  // a corrupted packet fails its checksum and is dropped: for the receiver it is lost
  const pct = action === "loss" ? spec.loss?.loss : action === "corrupt" ? spec.corrupt?.corrupt : undefined;
  if (pct !== undefined) {
    f.lossPercent = Number.parseFloat(String(pct));
    if (!(f.lossPercent >= 0 && f.lossPercent <= 100)) return `invalid percentage ${JSON.stringify(pct)}`;
  }
  if (action === "partition") f.lossPercent = 100;
  return f;
}

/** IPs of the live pods behind the records of one selector key. */
function ipsOf(env: ApplyEnv, key: string): string[] {
  return env.records
    .filter((r) => r.selectorKey === key)
    .map((r) => {
      const [ns, name] = String(r.id).split("/");
      return env.ctx.store.get(R("Pod"), ns, name) as Pod | undefined;
    })
    .map((p) => p?.status?.podIP)
    .filter((ip): ip is string => !!ip);
}

/** The addresses of `externalTargets`: IPv4 literals as they are, domains as resolved upstream. */
function externalIps(env: ApplyEnv, targets: unknown): string[] {
  if (!Array.isArray(targets)) return [];
  return targets
    .map(String)
    .map((t) => (/^\d{1,3}(\.\d{1,3}){3}$/.test(t) ? t : publicAddress(env.ctx, t)))
    .filter((ip): ip is string => !!ip);
}

export function networkApplier(): Applier {
  return {
    apply(env, t) {
      const { ctx, chaos, source, now, status } = env;
      if (!t.pod) return fail(notFound(t));
      if (t.pod.status?.phase !== "Running" || !t.pod.status?.podIP)
        return fail(`pod ${t.ns}/${t.podName} has no network namespace to inject into`);
      const base = networkFault(chaos.spec as NetworkSpec);
      if (typeof base === "string") return fail(base);
      const external = externalIps(env, chaos.spec?.externalTargets);
      const hasTarget = !!chaos.spec?.target || external.length > 0;
      const onTarget = t.selectorKey === "target";
      // with direction `to`, a target pod is only the destination: nothing is set up on it
      if (!onTarget || base.direction !== "to") {
        const fault: NetworkFault = { ...base };
        if (hasTarget)
          fault.targetIPs = [
            ...(chaos.spec?.target ? ipsOf(env, onTarget ? "." : "target") : []),
            ...external,
          ];
        ctx.faults.add({ source, podUid: t.pod.metadata.uid!, fault, since: now });
      }
      // the PodNetworkChaos generation Chaos Mesh tracks per pod
      status.instances = { ...(status.instances ?? {}), [t.id]: Number(status.instances?.[t.id] ?? 0) + 1 };
      return ok({ podUid: t.pod.metadata.uid! });
    },
    recover({ ctx, source, status }, t, inj) {
      // a pod that is gone took its network namespace (and the qdisc) with it
      if (inj) ctx.faults.remove(source, inj.podUid);
      if (status.instances) {
        const { [t.id]: _gone, ...rest } = status.instances;
        status.instances = rest;
      }
      return ok();
    },
  };
}
