// Nodes: created when the cluster starts, with capacity and allocatable as a k3s node reports
// them, Ready, and an annotation that tells clients how fast the cluster clock runs.

import { R } from "../api/resources.js";
import type { SimContext } from "../context/context.js";

export interface NodeSpec {
  name: string;
  cpu: string; // e.g. "16"
  memory: string; // e.g. "64Gi"
  pods: number;
}

export const SPEED_ANNOTATION = "microremed.io/clock-speed";

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
        annotations: { [SPEED_ANNOTATION]: String(ctx.clock.speed), "k3s.io/internal-ip": nodeIP(i) },
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
          machineID: `microremed${i}`,
          systemUUID: `microremed-${i}`,
          bootID: `boot-${i}`,
          kernelVersion: "6.1.0-microremed",
          osImage: "MicroRemed embedded cluster",
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
 * while it waits, by annotating a Node (a plain API write, so it needs no back door): the
 * clock follows the annotation, and /version reports the speed in force.
 */
export function followSpeedAnnotation(ctx: SimContext) {
  ctx.store.subscribe((e) => {
    if (e.rt.kind !== "Node" || e.type === "DELETED") return;
    const want = Number(e.object.metadata.annotations?.[SPEED_ANNOTATION]);
    if (Number.isFinite(want) && want > 0 && want !== ctx.clock.speed) ctx.clock.setSpeed?.(want);
  });
}
