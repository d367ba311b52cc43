// Nodes: created when the cluster starts, with capacity and allocatable as a k3s node reports
// them, Ready. How fast the cluster clock runs is the harness's to read and set, through a
// ConfigMap in kube-system that an agent confined to its namespace cannot see.

import { createHash } from "node:crypto";
import { R } from "../api/resources.js";
import type { SimContext } from "../context/context.js";
import { KERNEL_RELEASE, OS_IMAGE } from "../core/host.js";
import { moveShownTimes } from "../core/shown-times.js";

export interface NodeSpec {
  name: string;
  cpu: string; // e.g. "16"
  memory: string; // e.g. "64Gi"
  pods: number;
}

/** kube-system/<name>, data.speed: the clock's speed, which the runner sets (src/kube/time.ts). */
export const CLOCK_CONFIGMAP = { namespace: "kube-system", name: "cluster-clock" };

const digest = (seed: string) => createHash("sha256").update(seed).digest("hex");
const hexOf = (seed: string, n: number) => digest(seed).slice(0, n);
const uuidOf = (seed: string) => {
  const h = digest(seed);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
};

export function nodeIP(index: number) {
  return `172.18.0.${index + 2}`;
}

export function createNodes(ctx: SimContext, nodes: NodeSpec[]) {
  const now = ctx.registry.now();
  nodes.forEach((n, i) => {
    if (ctx.registry.tryGet(R("Node"), undefined, n.name)) return;
    const conditions = [
      ["MemoryPressure", "False", "KubeletHasSufficientMemory", "kubelet has sufficient memory available"],
      ["DiskPressure", "False", "KubeletHasNoDiskPressure", "kubelet has no disk pressure"],
      ["PIDPressure", "False", "KubeletHasSufficientPID", "kubelet has sufficient PID available"],
      ["Ready", "True", "KubeletReady", "kubelet is posting ready status"],
    ].map(([type, status, reason, message]) => ({
      type,
      status,
      reason,
      message,
      lastHeartbeatTime: now,
      lastTransitionTime: now,
    }));
    const capacity = {
      cpu: n.cpu,
      memory: n.memory,
      pods: String(n.pods),
      "ephemeral-storage": "263174212Ki",
      "hugepages-2Mi": "0",
    };
    ctx.registry.create(R("Node"), undefined, {
      apiVersion: "v1",
      kind: "Node",
      metadata: {
        name: n.name,
        labels: {
          "beta.kubernetes.io/arch": "amd64",
          "beta.kubernetes.io/os": "linux",
          "kubernetes.io/arch": "amd64",
          "kubernetes.io/hostname": n.name,
          "kubernetes.io/os": "linux",
          "node.kubernetes.io/instance-type": "k3s",
          ...(i === 0
            ? { "node-role.kubernetes.io/control-plane": "true", "node-role.kubernetes.io/master": "true" }
            : {}),
        },
        annotations: { "k3s.io/internal-ip": nodeIP(i) },
      },
      spec: { podCIDR: `10.42.${i}.0/24`, podCIDRs: [`10.42.${i}.0/24`], providerID: `k3s://${n.name}` },
      status: {
        capacity,
        allocatable: { ...capacity },
        conditions,
        addresses: [
          { type: "InternalIP", address: nodeIP(i) },
          { type: "Hostname", address: n.name },
        ],
        daemonEndpoints: { kubeletEndpoint: { Port: 10250 } },
        nodeInfo: {
          // stable per node name, in the shapes the kubelet reads them (/etc/machine-id, DMI, boot_id)
          machineID: hexOf(`machine-${n.name}`, 32),
          systemUUID: uuidOf(`system-${n.name}`),
          bootID: uuidOf(`boot-${n.name}`),
          kernelVersion: KERNEL_RELEASE,
          osImage: OS_IMAGE,
          containerRuntimeVersion: "containerd://1.7.23-k3s2",
          kubeletVersion: "v1.31.6+k3s1",
          kubeProxyVersion: "v1.31.6+k3s1",
          operatingSystem: "linux",
          architecture: "amd64",
        },
      },
    });
  });
}

/**
 * The runner slows the clock to real time while a model or a playbook acts and speeds it up
 * while it waits, by writing the clock's ConfigMap (a plain API write, so it needs no back door,
 * and in kube-system, which no agent can read): the clock follows it, and /version reports the
 * speed in force to the cluster's admin. Between cases it also asks for the next case's lead, and
 * every instant shown moves so that the cluster is that far behind the wall clock (docs/clock.md).
 */
export function followClockConfigMap(ctx: SimContext) {
  const { namespace, name } = CLOCK_CONFIGMAP;
  ctx.registry.create(R("ConfigMap"), namespace, {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name },
    data: { speed: String(ctx.clock.speed) },
  });
  // every shown instant the store keeps moves with the clock (a re-base, below)
  ctx.clock.onShift?.((delta) => ctx.store.rewrite((o) => moveShownTimes(o, delta)));
  ctx.store.subscribe((e) => {
    if (e.rt.kind !== "ConfigMap" || e.type === "DELETED") return;
    if (e.object.metadata.namespace !== namespace || e.object.metadata.name !== name) return;
    const data = (e.object as { data?: Record<string, string> }).data ?? {};
    const want = Number(data.speed);
    if (Number.isFinite(want) && want > 0 && want !== ctx.clock.speed) ctx.clock.setSpeed?.(want);
    // between cases the runner asks for a case's own lead (`lead`, ms), once per `rebase`
    const before = (e.old as { data?: Record<string, string> } | undefined)?.data ?? {};
    const lead = Number(data.lead);
    if (data.rebase !== undefined && data.rebase !== before.rebase && Number.isFinite(lead) && lead >= 0)
      ctx.clock.showLead?.(lead);
  });
}
