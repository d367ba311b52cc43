// A NetworkPolicy on Simple-Micro's time-service, as k3s's embedded kube-router enforces it, seen
// through real kubectl (the policies are put in the store: the API kind is another part's work).
// kube-router (cloudnativelabs/kube-router, pkg/controllers/netpol):
//  - pod.go syncPodFirewallChains: traffic no policy admits hits `-j REJECT` (icmp-port-unreachable),
//    so a TCP connect fails at once with "Connection refused", not a timeout;
//  - pod.go setupPodNetpolRules: `-m addrtype --src-type LOCAL -j ACCEPT` ("from local node")
//    comes first, so the kubelet's probes pass and the pod stays Ready;
//  - npc_iptables.go ensureCommonPolicyChain with utils/iptables.go CommonICMPRules: echo-request
//    is always accepted, so ping still answers;
//  - traffic within the pod never crosses the pod's firewall chain.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { KObject } from "../../../src/sim/core/objects.js";
import { NETWORK_POLICY } from "../../../src/sim/workloads/topology/netpol.js";
import { startTestCluster, type TestCluster } from "../../helpers/cluster.js";
import {
  deploySystem,
  eventually,
  isReady,
  type Kn,
  kubectlIn,
  parsePing,
  podsOf,
} from "../helpers/failures.js";
import { curl, debugPod, logsShow, nowStamp, pageUntil, readyPod, wget } from "../helpers/network.js";

const NS = "netpol";
const HELLO = "http://hello-service:5000/hello";
const TIME = "http://time-service:5001/time";
let t: TestCluster;
let kn: Kn;
let debug: string;

function put(name: string, spec: Record<string, unknown>): void {
  const o: KObject = {
    apiVersion: "networking.k8s.io/v1",
    kind: "NetworkPolicy",
    metadata: { name, namespace: NS },
    spec,
  };
  t.cluster.ctx.store.put(NETWORK_POLICY, o);
}
const drop = (name: string) => t.cluster.ctx.store.remove(NETWORK_POLICY, NS, name);

beforeAll(async () => {
  t = await startTestCluster(60, 31);
  kn = kubectlIn(t, NS);
  await deploySystem(t, "simple-micro", NS);
  debug = await debugPod(kn);
  await pageUntil(kn, debug, HELLO, (p) => p.code === "200");
}, 180_000);
afterAll(() => t?.stop());

describe("a policy that selects time-service and admits nothing", () => {
  it("refuses new connections at once; hello-service logs it and answers 503; time-service stays Ready; ping and the pod's own traffic pass", async () => {
    const since = nowStamp(t);
    put("deny-time", { podSelector: { matchLabels: { app: "time-service" } }, policyTypes: ["Ingress"] });
    const direct = await curl(kn, debug, TIME);
    expect(direct.exit).toBe(7);
    expect(direct.stderr).toContain("Failed to connect to time-service port 5001: Connection refused");
    const p = await pageUntil(kn, debug, HELLO, (x) => x.code === "503");
    expect(p.secs).toBeLessThan(0.5);
    await logsShow(
      kn,
      "hello-service",
      "hello-service",
      since,
      /GET http:\/\/time-service:5001\/time failed after \d+ms: <urlopen error \[Errno 111\] Connection refused>$/,
    );
    // ICMP echo-request is accepted by kube-router's common rules
    const time = (await podsOf(kn, "time-service"))[0];
    const hello = await readyPod(kn, "hello-service");
    const ping = await kn([
      "exec",
      hello,
      "-c",
      "sidecar-busybox",
      "--",
      "ping",
      "-c",
      "2",
      "-W",
      "2",
      time.status!.podIP!,
    ]);
    expect(parsePing(ping.stdout), ping.stdout).toMatchObject({ loss: 0 });
    // within the pod: loopback never crosses the firewall
    const own = await wget(kn, time.metadata.name, "sidecar-busybox", "http://127.0.0.1:5001/health");
    expect(own).toMatchObject({ exit: 0, out: "ok" });
    // the kubelet's httpGet probe comes from the node: accepted, the pod stays Ready
    await new Promise((r) => setTimeout(r, 1500)); // 90 s of cluster time: many probe periods
    expect(isReady((await podsOf(kn, "time-service"))[0])).toBe(true);
    const ep = await kn(["get", "endpoints", "time-service", "-o", "jsonpath={.subsets[0].addresses[0].ip}"]);
    expect(ep.stdout).toBe(time.status!.podIP);
  }, 120_000);

  it("a second policy that admits hello-service on 5001 opens that path only", async () => {
    put("from-hello", {
      podSelector: { matchLabels: { app: "time-service" } },
      ingress: [
        { from: [{ podSelector: { matchLabels: { app: "hello-service" } } }], ports: [{ port: 5001 }] },
      ],
    });
    await pageUntil(kn, debug, HELLO, (x) => x.code === "200");
    const direct = await curl(kn, debug, TIME);
    expect(direct.stderr).toContain("Connection refused");
  }, 60_000);

  it("deleting the policies: everything is admitted again", async () => {
    drop("deny-time");
    drop("from-hello");
    const direct = await pageUntil(kn, debug, TIME, (x) => x.code === "200");
    expect(direct.body).toMatch(/^\{"time": "/);
    await pageUntil(kn, debug, HELLO, (x) => x.code === "200");
  }, 60_000);
});

describe("egress", () => {
  it("a policy on hello-service's egress that admits neither CoreDNS nor time-service: its lookups are rejected (EAI_AGAIN); hello-service itself still answers", async () => {
    const since = nowStamp(t);
    put("hello-egress", {
      podSelector: { matchLabels: { app: "hello-service" } },
      policyTypes: ["Egress"],
      egress: [{ to: [{ podSelector: { matchLabels: { app: "nothing" } } }] }],
    });
    const p = await pageUntil(kn, debug, HELLO, (x) => x.code === "503");
    expect(p.body).toBe('{"error": "time-service unavailable"}');
    await logsShow(
      kn,
      "hello-service",
      "hello-service",
      since,
      /failed after \d+ms: <urlopen error \[Errno -3\] Temporary failure in name resolution>$/,
    );
    const health = await curl(kn, debug, "http://hello-service:5000/health");
    expect(health.code).toBe("200");
    // DNS admitted (the usual rule: CoreDNS in kube-system, UDP 53): now the connect is refused
    const since2 = nowStamp(t);
    put("hello-dns", {
      podSelector: { matchLabels: { app: "hello-service" } },
      policyTypes: ["Egress"],
      egress: [
        {
          to: [{ namespaceSelector: {}, podSelector: { matchLabels: { "k8s-app": "kube-dns" } } }],
          ports: [{ protocol: "UDP", port: 53 }],
        },
      ],
    });
    await logsShow(
      kn,
      "hello-service",
      "hello-service",
      since2,
      /GET http:\/\/time-service:5001\/time failed after \d+ms: <urlopen error \[Errno 111\] Connection refused>$/,
    );
    drop("hello-dns");
    drop("hello-egress");
    await pageUntil(kn, debug, HELLO, (x) => x.code === "200");
    await eventually(kn, ["get", "deploy", "--no-headers"], (o) => !o.includes("0/1"));
  }, 60_000);
});
