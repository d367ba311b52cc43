// wget/curl to services answering by their health and the network between the pods, and the
// name and socket tools (nslookup, getent, netstat), against golden output (pinned clock).
import { beforeAll, describe, expect, it } from "vitest";
import { R } from "../../../src/sim/api/resources.js";
import { podReady } from "../../../src/sim/core/meta.js";
import type { Pod, Service } from "../../../src/sim/core/objects.js";
import { deploy, type Sim } from "../helpers/topology.js";

let sim: Sim;
let hello: Pod;
let centos: Pod;
const clusterIP = (svc: string) =>
  (sim.cluster.ctx.registry.get(R("Service"), sim.ns, svc) as Service).spec.clusterIP!;
const wget = (url: string, ...opts: string[]) => sim.exec(hello, ["wget", ...opts, url], "sidecar-busybox");

beforeAll(() => {
  sim = deploy("simple-micro", "web");
  sim.advance(20_000);
  hello = sim.pod("hello-service");
  centos = sim.addPod("debug", [{ name: "debug", image: "centos:7", command: ["sleep", "infinity"] }]);
});

describe("a Ready service", () => {
  it("answers wget -qO- and curl -s with its page", async () => {
    const r = await wget("http://time-service:5001/time", "-qO-");
    expect(r.code).toBe(0);
    expect(r.err).toBe("");
    expect(r.out).toMatch(/^\{"time": "2026-01-01T00:00:\d\d\.\d{6}\+00:00"\}$/);
    const c = await sim.exec(centos, ["curl", "-s", "http://hello-service.web.svc.cluster.local:5000/hello"]);
    expect(c.out).toMatch(/^\{"message": "Hello from simple-micro!", "time": "[^"]+"\}$/);
    const h = await sim.exec(centos, ["curl", "-sI", "http://time-service:5001/health"]);
    expect(h.out).toMatch(
      /^HTTP\/1\.0 200 OK\r\nServer: BaseHTTP\/0\.6 Python\/3\.9\.\d+\r\nDate: .+ GMT\r\nContent-Type: text\/plain\r\nContent-Length: 2\r\n\r\n$/,
    );
  });

  it("prints BusyBox's progress without -q", async () => {
    const r = await wget("http://time-service:5001/health", "-O-");
    expect(r.out).toBe("ok");
    expect(r.err).toBe(
      `Connecting to time-service:5001 (${clusterIP("time-service")}:5001)\nwriting to stdout\n-                    100% |********************************|     2  0:00:00 ETA\nwritten to stdout\n`,
    );
  });

  it("is slow behind a 1000 ms delay: -T 1 times out, a longer wait gets the page", async () => {
    const time = sim.pod("time-service");
    sim.inject(
      time,
      { kind: "network", action: "delay", direction: "to", delayMs: 1000 },
      "NetworkChaos/web/delay",
    );
    const short = await wget("http://time-service:5001/time", "-qO-", "-T", "1");
    const before = sim.clock.now();
    const long = await wget("http://time-service:5001/time", "-qO-", "-T", "5");
    const took = sim.clock.now() - before;
    sim.cluster.ctx.faults.remove("NetworkChaos/web/delay");
    expect(short).toEqual({ code: 1, out: "", err: "wget: download timed out\n" });
    expect(long.code).toBe(0);
    // the SYN-ACK and the response each leave the delayed pod
    expect(took).toBeGreaterThanOrEqual(2000);
    expect(took).toBeLessThan(2100);
  });
});

describe("a service without Ready endpoints", () => {
  it("refuses at once; its caller answers 503", async () => {
    sim.advance(30_000);
    // Chaos Mesh's pod-failure: the container's image becomes pause, readiness fails
    const time = sim.pod("time-service");
    const spec = structuredClone(time.spec);
    spec.containers[0].image = "gcr.io/google-containers/pause:latest";
    sim.cluster.ctx.registry.update(R("Pod"), sim.ns, time.metadata.name!, { ...time, spec });
    sim.inject(time, { kind: "pod-failure" }, "PodChaos/web/fail");
    sim.advance(30_000);
    expect(podReady(sim.pod("time-service"))).toBe(false);
    const r = await wget("http://time-service:5001/time", "-qO-");
    expect(r).toEqual({
      code: 1,
      out: "",
      err: `wget: can't connect to remote host (${clusterIP("time-service")}): Connection refused\n`,
    });
    const c = await sim.exec(centos, ["curl", "-sS", "http://time-service:5001/time"]);
    expect(c).toEqual({
      code: 7,
      out: "",
      err: "curl: (7) Failed to connect to time-service port 5001: Connection refused\n",
    });
    expect((await sim.exec(centos, ["curl", "-s", "http://time-service:5001/time"])).err).toBe("");
    const up = await wget("http://hello-service:5000/hello", "-qO-");
    expect(up.err).toBe("wget: server returned error: HTTP/1.0 503 Service Unavailable\n");
    const f = await sim.exec(centos, ["curl", "-sSf", "http://hello-service:5000/hello"]);
    expect(f).toEqual({
      code: 22,
      out: "",
      err: "curl: (22) The requested URL returned error: 503 Service Unavailable\n",
    });
    expect((await sim.exec(centos, ["curl", "-s", "http://hello-service:5000/hello"])).out).toBe(
      '{"error": "time-service unavailable"}',
    );
  });

  it("an unknown name does not resolve", async () => {
    expect(await wget("http://nope:80/", "-qO-")).toEqual({
      code: 1,
      out: "",
      err: "wget: bad address 'nope'\n",
    });
    expect((await sim.exec(centos, ["curl", "-sS", "http://nope/"])).err).toBe(
      "curl: (6) Could not resolve host: nope\n",
    );
  });
});

describe("names and sockets", () => {
  it("nslookup and getent answer from CoreDNS's records", async () => {
    const ip = clusterIP("hello-service");
    // BusyBox 1.35 asks A then AAAA under each search domain and prints every reply; the other
    // search domains' NXDOMAIN make it exit 1 although the name resolves (networking/nslookup.c)
    const n = await sim.exec(hello, ["nslookup", "hello-service"], "sidecar-busybox");
    const nx = (d: string) => `** server can't find hello-service.${d}: NXDOMAIN\n\n`;
    expect(n.out).toBe(
      `Server:\t\t10.43.0.10\nAddress:\t10.43.0.10:53\n\nName:\thello-service.web.svc.cluster.local\nAddress: ${ip}\n\n${nx("svc.cluster.local")}${nx("cluster.local")}\n${nx("svc.cluster.local")}${nx("cluster.local")}`,
    );
    expect(n.code).toBe(1);
    // a dotted name is asked as it is: `<svc>.<ns>` is no name CoreDNS knows
    const dotted = await sim.exec(hello, ["nslookup", "hello-service.web"], "sidecar-busybox");
    expect(dotted.out).toBe(
      "Server:\t\t10.43.0.10\nAddress:\t10.43.0.10:53\n\n** server can't find hello-service.web: NXDOMAIN\n\n** server can't find hello-service.web: NXDOMAIN\n\n",
    );
    const fqdn = await sim.exec(
      hello,
      ["nslookup", "hello-service.web.svc.cluster.local"],
      "sidecar-busybox",
    );
    expect(fqdn.out).toBe(
      `Server:\t\t10.43.0.10\nAddress:\t10.43.0.10:53\n\nName:\thello-service.web.svc.cluster.local\nAddress: ${ip}\n\n\n`,
    );
    expect(fqdn.code).toBe(0);
    const g = await sim.exec(hello, ["getent", "hosts", "hello-service.web"]);
    expect(g.out).toBe(`${ip.padEnd(15)} hello-service.web.svc.cluster.local\n`);
  });

  it("netstat lists the application's port to every container of the pod", async () => {
    const r = await sim.exec(hello, ["netstat", "-tlnp"], "sidecar-busybox");
    expect(r.out).toBe(
      "Active Internet connections (only servers)\nProto Recv-Q Send-Q Local Address           Foreign Address         State       PID/Program name    \ntcp        0      0 0.0.0.0:5000            0.0.0.0:*               LISTEN      -\n",
    );
  });
});
