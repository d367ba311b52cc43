// Addresses outside the cluster through real kubectl exec, as on a k3s node with Internet access:
// ping and curl/wget of public addresses and names answer at a plausible round trip, and the
// shipped NetworkChaos templates (direction `to`, no target) delay and drop that egress too.
// Chaos Mesh puts netem on the pod's interface, so every packet leaving the pod is affected:
// https://chaos-mesh.org/docs/simulate-network-chaos-on-kubernetes/ ("direction: to" with no
// target affects all egress; `target` limits the rule to the target's addresses) and
// chaos-mesh/pkg/chaosdaemon/tc_server.go (the qdisc on the pod's eth0). CoreDNS forwards names
// outside cluster.local upstream (k3s's Corefile: `forward . /etc/resolv.conf`).
// The reference runner's network check pings from inside the pod: 0% loss and avg RTT <= 1000 ms.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { simData } from "../../../src/cli/sim-data.js";
import { EmbeddedCluster } from "../../../src/sim/cluster/cluster.js";
import { publicAddress } from "../../../src/sim/workloads/topology/outside.js";
import { parsePing } from "../helpers/failures.js";

const NS = "egress";

const manifest = `
apiVersion: v1
kind: Namespace
metadata: { name: ${NS} }
---
apiVersion: apps/v1
kind: Deployment
metadata: { name: web, namespace: ${NS} }
spec:
  replicas: 1
  selector: { matchLabels: { app: web } }
  template:
    metadata: { labels: { app: web } }
    spec:
      containers:
        - name: tools
          image: busybox:1.35
          command: ["sh", "-c", "sleep infinity"]
        - name: centos
          image: centos:7
          command: ["sleep", "infinity"]
`;

const chaos = (name: string, spec: string) => `
apiVersion: chaos-mesh.org/v1alpha1
kind: NetworkChaos
metadata: { name: ${name}, namespace: ${NS} }
spec:
  mode: one
  selector: { namespaces: [${NS}], labelSelectors: { app: web } }
${spec}
`;

interface Sim {
  c: EmbeddedCluster;
  kubectl(args: string[], input?: string): Promise<{ exitCode: number; stdout: string; stderr: string }>;
  pod: string;
  stop(): Promise<void>;
}

async function start(egress: "internet" | "none"): Promise<Sim> {
  const c = new EmbeddedCluster({ ...simData(), speed: 60, seed: 7, egress });
  await c.listen();
  const dir = mkdtempSync(join(tmpdir(), "microremed-egress-"));
  const kubeconfig = c.writeKubeconfig(join(dir, "kubeconfig"));
  const kubectl = async (args: string[], input?: string) => {
    const r = await execa("kubectl", ["--kubeconfig", kubeconfig, "-n", NS, ...args], {
      reject: false,
      input,
      timeout: 60_000,
    });
    return { exitCode: r.exitCode ?? -1, stdout: String(r.stdout), stderr: String(r.stderr) };
  };
  const ap = await kubectl(["apply", "-f", "-"], manifest);
  expect(ap.exitCode, ap.stderr).toBe(0);
  const rs = await kubectl(["rollout", "status", "deployment/web", "--timeout=60s"]);
  expect(rs.exitCode, rs.stderr).toBe(0);
  const pods = await kubectl(["get", "pod", "-l", "app=web", "-o", "jsonpath={.items[0].metadata.name}"]);
  return {
    c,
    kubectl,
    pod: pods.stdout,
    stop: async () => {
      await c.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

const exec = (s: Sim, container: string, cmd: string[]) =>
  s.kubectl(["exec", s.pod, "-c", container, "--", ...cmd]);

/** The reference's check: ping -c 3 -W 2 from the pod, 0% loss and avg <= 1000 ms. */
async function referenceCheck(s: Sim, address: string) {
  const r = await exec(s, "tools", ["ping", "-c", "3", "-W", "2", address]);
  const p = parsePing(r.stdout);
  return { ...r, p, passes: !!p && p.loss === 0 && (p.avg ?? Infinity) <= 1000 };
}

async function applied(s: Sim, kind: string, name: string, yaml: string) {
  const r = await s.kubectl(["apply", "-f", "-"], yaml);
  expect(r.exitCode, r.stderr).toBe(0);
  for (let i = 0; i < 200; i++) {
    const st = await s.kubectl(["get", kind, name, "-o", "jsonpath={.status.conditions}"]);
    if (/"type":"AllInjected","status":"True"|"status":"True","type":"AllInjected"/.test(st.stdout)) return;
    await new Promise((ok) => setTimeout(ok, 100));
  }
  throw new Error(`${kind}/${name} never injected`);
}

describe("with Internet access (the default)", () => {
  let s: Sim;
  beforeAll(async () => {
    s = await start("internet");
  }, 120_000);
  afterAll(async () => {
    await s?.stop();
  });

  it("pings a public address and a public name at 5-40 ms", async () => {
    const ip = await referenceCheck(s, "8.8.8.8");
    expect(ip.exitCode, ip.stderr).toBe(0);
    expect(ip.stdout).toMatch(
      /^PING 8\.8\.8\.8 \(8\.8\.8\.8\): 56 data bytes\n64 bytes from 8\.8\.8\.8: seq=0 ttl=\d+ time=/,
    );
    expect(ip.p).toMatchObject({ sent: 3, received: 3, loss: 0 });
    expect(ip.p!.avg).toBeGreaterThan(4);
    expect(ip.p!.avg).toBeLessThan(45);
    expect(ip.passes).toBe(true);

    const name = await exec(s, "tools", ["ping", "-c", "3", "www.google.com"]);
    const addr = publicAddress(s.c.ctx, "www.google.com")!;
    expect(name.exitCode, name.stderr).toBe(0);
    expect(name.stdout).toContain(`PING www.google.com (${addr}): 56 data bytes`);
    expect(parsePing(name.stdout)).toMatchObject({ received: 3, loss: 0 });
  });

  it("resolves public names to stable addresses, and not names under reserved or made-up TLDs", async () => {
    const a = await exec(s, "tools", ["nslookup", "example.com"]);
    expect(a.exitCode, a.stdout).toBe(0);
    const addr = publicAddress(s.c.ctx, "example.com")!;
    expect(a.stdout).toContain(`Name:\texample.com\nAddress: ${addr}\n`);
    expect(addr).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
    expect(publicAddress(s.c.ctx, "EXAMPLE.com.")).toBe(addr);
    expect(publicAddress(s.c.ctx, "example.org")).not.toBe(addr);
    // a mistyped Service (`<svc>.<ns>` with no such Service) is NXDOMAIN as on a real cluster
    const typo = await exec(s, "tools", ["nslookup", "no-such-svc.egress"]);
    expect(typo.exitCode).toBe(1);
    expect(typo.stdout).toContain("NXDOMAIN");
    const local = await exec(s, "centos", ["getent", "hosts", "printer.local"]);
    expect(local.exitCode).toBe(2);
  });

  it("fetches https://example.com with curl and wget", async () => {
    const c = await exec(s, "centos", ["curl", "-s", "-w", "%{http_code}", "https://example.com"]);
    expect(c.exitCode, c.stderr).toBe(0);
    expect(c.stdout).toContain("<title>Example Domain</title>");
    expect(c.stdout.endsWith("200")).toBe(true);
    const w = await exec(s, "tools", ["wget", "-qO-", "http://www.example.com/"]);
    expect(w.exitCode, w.stderr).toBe(0);
    expect(w.stdout).toContain("<h1>Example Domain</h1>");
    const missing = await exec(s, "centos", ["curl", "-sf", "-o", "/dev/null", "https://example.com/nope"]);
    expect(missing.exitCode).toBe(22);
    // a filtered port: the SYN is never answered
    const filtered = await exec(s, "centos", [
      "curl",
      "-sS",
      "--connect-timeout",
      "2",
      "http://example.com:8081/",
    ]);
    expect(filtered.exitCode).toBe(28);
  });

  it("network-delay on the pod delays its pings to outside: the reference's check fails, then passes after the fix", async () => {
    await applied(
      s,
      "networkchaos",
      "network-delay",
      chaos(
        "network-delay",
        '  action: delay\n  delay: { latency: 1000ms, correlation: "0" }\n  direction: to',
      ),
    );
    const during = await referenceCheck(s, "8.8.8.8");
    expect(during.p, during.stdout).toMatchObject({ sent: 3, received: 3, loss: 0 });
    expect(during.p!.avg).toBeGreaterThan(1000);
    expect(during.passes).toBe(false);
    // curl to outside waits for the delay on each packet out (handshake, TLS, request)
    const c = await exec(s, "centos", [
      "curl",
      "-s",
      "-o",
      "/dev/null",
      "-w",
      "%{time_total}",
      "https://example.com",
    ]);
    expect(Number(c.stdout)).toBeGreaterThan(3);

    const del = await s.kubectl(["delete", "networkchaos", "network-delay"]);
    expect(del.exitCode, del.stderr).toBe(0);
    const after = await referenceCheck(s, "8.8.8.8");
    expect(after.p).toMatchObject({ loss: 0 });
    expect(after.p!.avg).toBeLessThan(45);
    expect(after.passes).toBe(true);
  });

  it("network-loss drops about half the pings to outside, none after the fix", async () => {
    await applied(
      s,
      "networkchaos",
      "network-loss",
      chaos("network-loss", '  action: loss\n  loss: { loss: "50", correlation: "0" }\n  direction: to'),
    );
    const during = await exec(s, "tools", ["ping", "-c", "20", "-i", "0.2", "-W", "2", "1.1.1.1"]);
    const p = parsePing(during.stdout)!;
    expect(p.sent).toBe(20);
    expect(p.loss).toBeGreaterThan(20);
    expect(p.loss).toBeLessThan(80);
    const del = await s.kubectl(["delete", "networkchaos", "network-loss"]);
    expect(del.exitCode, del.stderr).toBe(0);
    const after = await referenceCheck(s, "1.1.1.1");
    expect(after.passes, after.stdout).toBe(true);
  });

  it("externalTargets limit a rule to those outside destinations (an address or a domain)", async () => {
    // Chaos Mesh's NetworkChaos spec: externalTargets, "network targets except for Kubernetes,
    // which can be IPv4 addresses or domains", with direction `to`
    await applied(
      s,
      "networkchaos",
      "to-google",
      chaos(
        "to-google",
        "  action: delay\n  delay: { latency: 500ms }\n  direction: to\n  externalTargets: [www.google.com]",
      ),
    );
    const google = await exec(s, "tools", ["ping", "-c", "2", "www.google.com"]);
    expect(parsePing(google.stdout)!.avg).toBeGreaterThan(500);
    const other = await referenceCheck(s, "8.8.8.8");
    expect(other.p!.avg, other.stdout).toBeLessThan(45);
    await s.kubectl(["delete", "networkchaos", "to-google"]);
    const after = await exec(s, "tools", ["ping", "-c", "2", "www.google.com"]);
    expect(parsePing(after.stdout)!.avg).toBeLessThan(45);
  });

  it("a rule with a target leaves outside addresses alone", async () => {
    await applied(
      s,
      "networkchaos",
      "to-dns",
      chaos(
        "to-dns",
        `  action: delay\n  delay: { latency: 1000ms }\n  direction: to\n  target:\n    mode: all\n    selector: { namespaces: [${NS}], labelSelectors: { app: web } }`,
      ),
    );
    const r = await referenceCheck(s, "8.8.8.8");
    expect(r.passes, r.stdout).toBe(true);
    await s.kubectl(["delete", "networkchaos", "to-dns"]);
  });
});

describe("air-gapped (--egress none)", () => {
  let s: Sim;
  beforeAll(async () => {
    s = await start("none");
  }, 120_000);
  afterAll(async () => {
    await s?.stop();
  });

  it("drops packets to outside addresses and resolves no public name", async () => {
    const r = await exec(s, "tools", ["ping", "-c", "2", "-W", "1", "8.8.8.8"]);
    expect(r.exitCode).toBe(1);
    expect(parsePing(r.stdout)).toMatchObject({ sent: 2, received: 0, loss: 100 });
    const n = await exec(s, "tools", ["ping", "-c", "1", "www.google.com"]);
    expect(n.exitCode).toBe(1);
    expect(n.stderr).toContain("ping: bad address 'www.google.com'");
    const c = await exec(s, "centos", ["curl", "-sS", "https://example.com"]);
    expect(c.exitCode).toBe(6);
    expect(c.stderr).toContain("curl: (6) Could not resolve host: example.com");
  });
});
