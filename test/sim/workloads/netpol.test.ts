// NetworkPolicy semantics as the networking.k8s.io/v1 API documents them
// (https://kubernetes.io/docs/concepts/services-networking/network-policies/), on policies put
// in the store (the API kind is served by another part): isolation per direction by the
// policies that select a pod, rules as the union of peers and ports, podSelector and
// namespaceSelector in one peer meaning both, ipBlock with except, named ports and endPort,
// policyTypes defaulted from the rules present; traffic within a pod and from the node itself
// (kube-router's "from local node" rule, pkg/controllers/netpol/pod.go setupPodNetpolRules)
// never blocked.
import { beforeAll, describe, expect, it } from "vitest";
import { R } from "../../../src/sim/api/resources.js";
import type { KObject, Pod } from "../../../src/sim/core/objects.js";
import { blockedBy, NETWORK_POLICY } from "../../../src/sim/workloads/topology/netpol.js";
import { deploy, type Sim } from "../helpers/topology.js";

let sim: Sim;
let hello: Pod;
let time: Pod;

/** A pod of another namespace (only its labels, namespace and IP matter to the rules). */
const stranger = (ns: string, labels: Record<string, string>, ip = "10.42.0.200"): Pod =>
  ({
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: "stranger", namespace: ns, uid: `uid-${ns}`, labels },
    spec: { containers: [{ name: "c", image: "busybox" }] },
    status: { podIP: ip },
  }) as Pod;

function policy(name: string, spec: Record<string, unknown>, ns = sim.ns): void {
  const o: KObject = {
    apiVersion: "networking.k8s.io/v1",
    kind: "NetworkPolicy",
    metadata: { name, namespace: ns },
    spec,
  };
  sim.cluster.ctx.store.put(NETWORK_POLICY, o);
}

function clear(): void {
  for (const p of sim.cluster.ctx.store.list(NETWORK_POLICY))
    sim.cluster.ctx.store.remove(NETWORK_POLICY, p.metadata.namespace, p.metadata.name!);
}

const flow = (from: Pod | "node", to: Pod, port: number) =>
  blockedBy(sim.cluster.ctx, {
    from: from === "node" ? { node: true } : { pod: from },
    to: { pod: to },
    port,
  });

beforeAll(() => {
  sim = deploy("simple-micro", "np");
  sim.advance(20_000);
  hello = sim.pod("hello-service");
  time = sim.pod("time-service");
  for (const [name, labels] of [
    ["team-a", { team: "a" }],
    ["team-b", { team: "b" }],
  ] as const)
    sim.cluster.ctx.registry.create(R("Namespace"), undefined, {
      apiVersion: "v1",
      kind: "Namespace",
      metadata: { name, labels },
    });
});

describe("isolation", () => {
  it("a pod no policy selects admits everything", () => {
    clear();
    expect(flow(hello, time, 5001)).toBeUndefined();
    expect(flow(stranger("team-a", {}), time, 5001)).toBeUndefined();
  });

  it("an empty ingress list isolates the selected pods: nothing is admitted but the node and the pod itself", () => {
    clear();
    policy("deny", { podSelector: {}, policyTypes: ["Ingress"] });
    expect(flow(hello, time, 5001)).toBe("ingress");
    expect(flow(time, hello, 5000)).toBe("ingress");
    expect(flow("node", time, 5001)).toBeUndefined();
    expect(flow(time, time, 5001)).toBeUndefined();
  });

  it("policyTypes left out means Ingress, and Egress too when the policy has egress rules", () => {
    clear();
    policy("egress-only-rules", {
      podSelector: { matchLabels: { app: "hello-service" } },
      egress: [{ to: [{ podSelector: { matchLabels: { app: "nothing" } } }] }],
    });
    // hello-service is isolated both ways: its calls out and its callers in
    expect(flow(hello, time, 5001)).toBe("egress");
    expect(flow(time, hello, 5000)).toBe("ingress");
    // time-service is selected by no policy
    expect(flow(stranger("team-a", {}), time, 5001)).toBeUndefined();
  });

  it("several policies selecting a pod admit the union of what each admits", () => {
    clear();
    policy("from-hello", {
      podSelector: { matchLabels: { app: "time-service" } },
      ingress: [{ from: [{ podSelector: { matchLabels: { app: "hello-service" } } }] }],
    });
    policy("from-team-a", {
      podSelector: { matchLabels: { app: "time-service" } },
      ingress: [{ from: [{ namespaceSelector: { matchLabels: { team: "a" } } }] }],
    });
    expect(flow(hello, time, 5001)).toBeUndefined();
    expect(flow(stranger("team-a", {}), time, 5001)).toBeUndefined();
    expect(flow(stranger("team-b", {}), time, 5001)).toBe("ingress");
  });
});

describe("peers", () => {
  it("a podSelector alone means pods of the policy's own namespace", () => {
    clear();
    policy("same-ns", {
      podSelector: { matchLabels: { app: "time-service" } },
      ingress: [{ from: [{ podSelector: { matchLabels: { app: "hello-service" } } }] }],
    });
    expect(flow(hello, time, 5001)).toBeUndefined();
    // the same labels in another namespace do not count
    expect(flow(stranger("team-a", { app: "hello-service" }), time, 5001)).toBe("ingress");
  });

  it("podSelector and namespaceSelector in one peer mean both; in two peers, either", () => {
    clear();
    policy("and", {
      podSelector: { matchLabels: { app: "time-service" } },
      ingress: [
        {
          from: [
            {
              namespaceSelector: { matchLabels: { team: "a" } },
              podSelector: { matchLabels: { role: "client" } },
            },
          ],
        },
      ],
    });
    expect(flow(stranger("team-a", { role: "client" }), time, 5001)).toBeUndefined();
    expect(flow(stranger("team-a", { role: "other" }), time, 5001)).toBe("ingress");
    expect(flow(stranger("team-b", { role: "client" }), time, 5001)).toBe("ingress");
    clear();
    policy("or", {
      podSelector: { matchLabels: { app: "time-service" } },
      ingress: [
        {
          from: [
            { namespaceSelector: { matchLabels: { team: "a" } } },
            { podSelector: { matchLabels: { role: "client" } } },
          ],
        },
      ],
    });
    expect(flow(stranger("team-a", { role: "other" }), time, 5001)).toBeUndefined();
    // a podSelector peer alone is the policy's namespace: team-b's client is not in it
    expect(flow(stranger("team-b", { role: "client" }), time, 5001)).toBe("ingress");
  });

  it("namespaces carry kubernetes.io/metadata.name, so a namespaceSelector can name one", () => {
    clear();
    policy("by-name", {
      podSelector: { matchLabels: { app: "time-service" } },
      ingress: [
        { from: [{ namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": "team-b" } } }] },
      ],
    });
    expect(flow(stranger("team-b", {}), time, 5001)).toBeUndefined();
    expect(flow(stranger("team-a", {}), time, 5001)).toBe("ingress");
  });

  it("an ipBlock admits its CIDR but its exceptions", () => {
    clear();
    policy("cidr", {
      podSelector: { matchLabels: { app: "time-service" } },
      ingress: [{ from: [{ ipBlock: { cidr: "10.42.0.0/24", except: ["10.42.0.128/25"] } }] }],
    });
    expect(flow(stranger("team-a", {}, "10.42.0.100"), time, 5001)).toBeUndefined();
    expect(flow(stranger("team-a", {}, "10.42.0.200"), time, 5001)).toBe("ingress");
    expect(flow(stranger("team-a", {}, "10.42.1.5"), time, 5001)).toBe("ingress");
  });
});

describe("ports", () => {
  it("a rule's ports limit it: number, protocol, the destination's named port, endPort", () => {
    clear();
    policy("ports", {
      podSelector: { matchLabels: { app: "time-service" } },
      ingress: [{ ports: [{ port: "http" }] }, { ports: [{ protocol: "TCP", port: 6000, endPort: 6010 }] }],
    });
    // time-service's container port "http" is 5001
    expect(flow(hello, time, 5001)).toBeUndefined();
    expect(flow(hello, time, 5002)).toBe("ingress");
    expect(flow(hello, time, 6005)).toBeUndefined();
    expect(flow(hello, time, 6011)).toBe("ingress");
    expect(
      blockedBy(sim.cluster.ctx, { from: { pod: hello }, to: { pod: time }, port: 5001, protocol: "UDP" }),
    ).toBe("ingress");
  });

  it("egress rules name the destination and its ports", () => {
    clear();
    policy("hello-out", {
      podSelector: { matchLabels: { app: "hello-service" } },
      policyTypes: ["Egress"],
      egress: [{ to: [{ podSelector: { matchLabels: { app: "time-service" } } }], ports: [{ port: 5001 }] }],
    });
    expect(flow(hello, time, 5001)).toBeUndefined();
    expect(flow(hello, time, 5002)).toBe("egress");
    expect(flow(hello, stranger("team-a", { app: "time-service" }), 5001)).toBe("egress");
    // an Egress-only policy leaves hello-service's ingress open
    expect(flow(time, hello, 5000)).toBeUndefined();
  });
});
