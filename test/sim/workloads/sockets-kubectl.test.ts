// The pooled connections netstat shows, at both ends, with the real kubectl: the frontend (Go,
// gRPC clients kept open) holds one connection to each callee's ClusterIP from an ephemeral port
// in Linux's default net.ipv4.ip_local_port_range (32768 60999), and the callee's pod lists the
// same connection from the frontend's pod IP and that port to the port it listens on (kube-proxy
// rewrote the destination; the source stays). A live model read currencyservice's netstat empty
// while it logged requests, and the frontend's local ports stepping by 7.
// Sources: Linux Documentation/networking/ip-sysctl.rst (ip_local_port_range: 32768 60999),
// kube-proxy's iptables mode (KUBE-SEP DNAT to the endpoint; SNAT only for masquerade),
// BusyBox netstat (networking/netstat.c: /proc/net/tcp as "tcp 0 0 local foreign STATE").
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestCluster, type TestCluster } from "../../helpers/cluster.js";
import { deploySystem, type Kn, kubectlIn } from "../helpers/failures.js";
import { readyPod } from "../helpers/network.js";

const NS = "boutique";
let t: TestCluster;
let kn: Kn;

beforeAll(async () => {
  t = await startTestCluster(60, 52);
  kn = kubectlIn(t, NS);
  await deploySystem(t, "online-boutique", NS);
}, 240_000);
afterAll(() => t?.stop());

const netstat = async (pod: string) =>
  (await kn(["exec", pod, "-c", "sidecar-busybox", "--", "netstat", "-tn"])).stdout
    .split("\n")
    .filter((l) => l.includes("ESTABLISHED"))
    .map((l) => l.trim().split(/\s+/));
const ipOf = async (pod: string) => (await kn(["get", "pod", pod, "-o", "jsonpath={.status.podIP}"])).stdout;

describe("netstat's established connections", () => {
  it("a client's pooled connection, from an ephemeral port, is listed by the server it landed on", async () => {
    const fe = await readyPod(kn, "frontend");
    const cur = await readyPod(kn, "currencyservice");
    const clusterIP = (await kn(["get", "service", "currencyservice", "-o", "jsonpath={.spec.clusterIP}"]))
      .stdout;
    const [feIP, curIP] = [await ipOf(fe), await ipOf(cur)];

    const out = await netstat(fe);
    const ports = out.map((f) => Number(f[3].split(":")[1]));
    expect(ports.length).toBeGreaterThan(3);
    for (const p of ports) expect(p >= 32768 && p <= 60999, String(p)).toBe(true);
    // not a sequence: no two neighbours a fixed step apart all along
    const steps = new Set(ports.slice(1).map((p, i) => p - ports[i]));
    expect(steps.size).toBeGreaterThan(1);
    const toCur = out.find((f) => f[4] === `${clusterIP}:7000`);
    expect(toCur, out.map((f) => f.join(" ")).join("\n")).toBeDefined();

    const back = await netstat(cur);
    // the frontend's end is its pod IP and the ephemeral port
    expect(toCur![3]).toMatch(new RegExp(`^${feIP.replaceAll(".", "\\.")}:\\d+$`));
    expect(back.map((f) => `${f[3]} ${f[4]}`)).toContain(`${curIP}:7000 ${toCur![3]}`);
  });
});
