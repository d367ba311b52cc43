// The Tables of the kinds a k3s v1.31 cluster serves beyond the workloads, cell by cell
// as pkg/printers/internalversion/printers.go prints them (printReplicationController,
// printEndpointSlice with formatDiscoveryPorts/Endpoints, printIngress's formatHosts and
// formatPorts, printCertificateSigningRequest's extractCSRStatus, printFlowSchema,
// printPriorityLevelConfiguration, printValidatingAdmissionPolicy(Binding), printCSINode,
// printCSIStorageCapacity, printResourceQuota) and kube-aggregator's APIService table.
import { describe, expect, it } from "vitest";
import { resourceByPath } from "../../../src/sim/api/resources.js";
import { toTable } from "../../../src/sim/api/table/index.js";
import type { KObject } from "../../../src/sim/core/types.js";

const NOW = Date.parse("2025-06-01T12:00:00Z");
const FIVE_MIN_AGO = new Date(NOW - 5 * 60_000).toISOString();

function row(gvr: string, body: Record<string, unknown>, name = "x") {
  const [group, version, resource] = gvr.split("/");
  const rt = resourceByPath(group, version, resource);
  if (!rt) throw new Error(`not served: ${gvr}`);
  const o = {
    apiVersion: group ? `${group}/${version}` : version,
    kind: rt.kind,
    metadata: { name, namespace: "shop", creationTimestamp: FIVE_MIN_AGO },
    ...body,
  } as KObject;
  const t = toTable(rt, [o], { now: NOW });
  expect(t.rows[0].cells).toHaveLength(t.columnDefinitions.length);
  return Object.fromEntries(t.columnDefinitions.map((c, i) => [c.name, t.rows[0].cells[i]]));
}

describe("core/v1 kinds", () => {
  it("replicationcontrollers: counts, and -o wide's containers, images and label selector", () => {
    expect(
      row("/v1/replicationcontrollers", {
        spec: {
          replicas: 3,
          selector: { app: "web", tier: "fe" },
          template: {
            spec: {
              containers: [
                { name: "web", image: "nginx:1.25" },
                { name: "log", image: "busybox" },
              ],
            },
          },
        },
        status: { replicas: 3, readyReplicas: 2 },
      }),
    ).toEqual({
      Name: "x",
      Desired: 3,
      Current: 3,
      Ready: 2,
      Age: "5m",
      Containers: "web,log",
      Images: "nginx:1.25,busybox",
      Selector: "app=web,tier=fe",
    });
  });

  it("resourcequotas: used/hard sorted by resource, limits.* under LIMIT, AGE second (v1.31)", () => {
    expect(
      row("/v1/resourcequotas", {
        status: {
          hard: { pods: "10", "limits.cpu": "2", "requests.memory": "1Gi", "count/deployments.apps": "5" },
          used: { pods: "3", "limits.cpu": "500m", "requests.memory": "256Mi" },
        },
      }),
    ).toEqual({
      Name: "x",
      Age: "5m",
      Request: "count/deployments.apps: 0/5, pods: 3/10, requests.memory: 256Mi/1Gi",
      Limit: "limits.cpu: 500m/2",
    });
  });
});

describe("networking and discovery", () => {
  it("endpointslices: three ports and addresses, then '+ N more...'; <unset> when none", () => {
    const eps = ["10.42.0.1", "10.42.0.2", "10.42.0.3", "10.42.0.4", "10.42.0.5"].map((a) => ({
      addresses: [a],
    }));
    expect(
      row("discovery.k8s.io/v1/endpointslices", {
        addressType: "IPv4",
        ports: [{ name: "http", port: 80 }, { name: "grpc" }, { port: 9090 }, { port: 9091 }],
        endpoints: eps,
      }),
    ).toEqual({
      Name: "x",
      AddressType: "IPv4",
      Ports: "80,grpc,9090 + 1 more...",
      Endpoints: "10.42.0.1,10.42.0.2,10.42.0.3 + 2 more...",
      Age: "5m",
    });
    expect(row("discovery.k8s.io/v1/endpointslices", { addressType: "IPv4", endpoints: [] })).toMatchObject({
      Ports: "<unset>",
      Endpoints: "<unset>",
    });
  });

  it("ingresses: class, hosts (* when none, three then more), the load balancer, 80 or 80, 443", () => {
    expect(
      row("networking.k8s.io/v1/ingresses", {
        spec: {
          tls: [{ hosts: ["a.example.com"] }],
          rules: ["a", "b", "c", "d"].map((h) => ({ host: `${h}.example.com` })),
        },
        status: { loadBalancer: { ingress: [{ ip: "10.0.0.9" }, { hostname: "lb.example.com" }] } },
      }),
    ).toEqual({
      Name: "x",
      Class: "<none>",
      Hosts: "a.example.com,b.example.com,c.example.com + 1 more...",
      Address: "10.0.0.9,lb.example.com",
      Ports: "80, 443",
      Age: "5m",
    });
    expect(row("networking.k8s.io/v1/ingresses", { spec: { rules: [{}] } })).toMatchObject({
      Hosts: "*",
      Ports: "80",
    });
  });

  it("networkpolicies: the pod selector as a label selector string", () => {
    expect(
      row("networking.k8s.io/v1/networkpolicies", {
        spec: {
          podSelector: {
            matchLabels: { app: "db" },
            matchExpressions: [{ key: "tier", operator: "In", values: ["b", "a"] }],
          },
        },
      }),
    ).toEqual({ Name: "x", "Pod-Selector": "app=db,tier in (a,b)", Age: "5m" });
  });
});

describe("cluster kinds", () => {
  it("certificatesigningrequests: Denied over Approved over Pending, then Failed and Issued", () => {
    expect(
      row("certificates.k8s.io/v1/certificatesigningrequests", {
        spec: {
          signerName: "kubernetes.io/kube-apiserver-client",
          username: "alice",
          expirationSeconds: 86400,
        },
        status: { conditions: [{ type: "Approved", status: "True" }], certificate: "LS0t" },
      }),
    ).toEqual({
      Name: "x",
      Age: "5m",
      SignerName: "kubernetes.io/kube-apiserver-client",
      Requestor: "alice",
      RequestedDuration: "24h",
      Condition: "Approved,Issued",
    });
  });

  it("flowschemas and prioritylevelconfigurations", () => {
    expect(
      row("flowcontrol.apiserver.k8s.io/v1/flowschemas", {
        spec: {
          priorityLevelConfiguration: { name: "workload-low" },
          matchingPrecedence: 9000,
          distinguisherMethod: { type: "ByUser" },
        },
        status: { conditions: [{ type: "Dangling", status: "False" }] },
      }),
    ).toEqual({
      Name: "x",
      PriorityLevel: "workload-low",
      MatchingPrecedence: 9000,
      DistinguisherMethod: "ByUser",
      Age: "5m",
      MissingPL: "False",
    });
    expect(
      row("flowcontrol.apiserver.k8s.io/v1/prioritylevelconfigurations", {
        spec: {
          type: "Limited",
          limited: {
            nominalConcurrencyShares: 30,
            limitResponse: { queuing: { queues: 64, handSize: 6, queueLengthLimit: 50 } },
          },
        },
      }),
    ).toEqual({
      Name: "x",
      Type: "Limited",
      NominalConcurrencyShares: 30,
      Queues: 64,
      HandSize: 6,
      QueueLengthLimit: 50,
      Age: "5m",
    });
    expect(
      row("flowcontrol.apiserver.k8s.io/v1/prioritylevelconfigurations", { spec: { type: "Exempt" } }),
    ).toMatchObject({
      NominalConcurrencyShares: "<none>",
      Queues: "<none>",
    });
  });

  it("admission policies and their bindings, webhook configurations", () => {
    expect(
      row("admissionregistration.k8s.io/v1/validatingadmissionpolicies", {
        spec: { paramKind: { apiVersion: "v1", kind: "ConfigMap" }, validations: [{ expression: "true" }] },
      }),
    ).toEqual({ Name: "x", Validations: 1, ParamKind: "v1/ConfigMap", Age: "5m" });
    expect(
      row("admissionregistration.k8s.io/v1/validatingadmissionpolicybindings", {
        spec: { policyName: "max-replicas", paramRef: { name: "limits" } },
      }),
    ).toEqual({ Name: "x", PolicyName: "max-replicas", ParamRef: "*/limits", Age: "5m" });
    expect(
      row("admissionregistration.k8s.io/v1/mutatingwebhookconfigurations", {
        webhooks: [{ name: "a" }, { name: "b" }],
      }),
    ).toEqual({ Name: "x", Webhooks: 2, Age: "5m" });
  });

  it("csinodes, csistoragecapacities", () => {
    expect(row("storage.k8s.io/v1/csinodes", { spec: { drivers: [{ name: "a" }] } })).toEqual({
      Name: "x",
      Drivers: 1,
      Age: "5m",
    });
    expect(
      row("storage.k8s.io/v1/csistoragecapacities", { storageClassName: "local-path", capacity: "10Gi" }),
    ).toEqual({
      Name: "x",
      StorageClassName: "local-path",
      Capacity: "10Gi",
    });
  });

  it("apiservices: Local, or the service; the Available condition with its reason when not True", () => {
    expect(
      row("apiregistration.k8s.io/v1/apiservices", {
        spec: { service: { namespace: "kube-system", name: "metrics-server" } },
        status: { conditions: [{ type: "Available", status: "False", reason: "MissingEndpoints" }] },
      }),
    ).toEqual({
      Name: "x",
      Service: "kube-system/metrics-server",
      Available: "False (MissingEndpoints)",
      Age: "5m",
    });
  });
});
