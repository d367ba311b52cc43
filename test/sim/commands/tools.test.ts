// The probe commands against golden output (pinned clock; measured numbers masked): ping and dd
// healthy and under the fault book's network and IO faults, ps showing stress-ng, kill, and the
// toolboxes (a command the image lacks fails as the runtime or the shell says).
import { beforeAll, describe, expect, it } from "vitest";
import { R } from "../../../src/sim/api/resources.js";
import type { Pod, Service } from "../../../src/sim/core/objects.js";
import { deploy, type Sim } from "../helpers/topology.js";

let sim: Sim;
let hello: Pod;
let time: Pod;
let centos: Pod;

/** Mask what is measured: reply times, rtt summaries, dd's seconds and rate, ps times. */
const mask = (s: string) =>
  s
    .replace(/time=[\d.]+ ms/g, "time=T ms")
    .replace(/= [\d.]+\/[\d.]+\/[\d.]+(\/[\d.]+)? ms/g, "= R ms")
    .replace(/time \d+ms/g, "time Nms")
    .replace(/copied, [\d.]+ s(econds)?, [\d.]+ ?[kMG]?B\/s/g, "copied, S, RATE");

beforeAll(() => {
  sim = deploy("simple-micro", "tools");
  sim.advance(20_000);
  hello = sim.pod("hello-service");
  time = sim.pod("time-service");
  centos = sim.addPod("debug", [{ name: "debug", image: "centos:7", command: ["sleep", "infinity"] }]);
});

describe("ping", () => {
  it("busybox, healthy: 0% loss at sub-millisecond RTT", async () => {
    const r = await sim.exec(hello, ["ping", "-c", "3", "-W", "2", time.status!.podIP!], "sidecar-busybox");
    const ip = time.status!.podIP!;
    expect(r.code).toBe(0);
    expect(mask(r.out)).toBe(
      `PING ${ip} (${ip}): 56 data bytes\n64 bytes from ${ip}: seq=0 ttl=64 time=T ms\n64 bytes from ${ip}: seq=1 ttl=64 time=T ms\n64 bytes from ${ip}: seq=2 ttl=64 time=T ms\n\n--- ${ip} ping statistics ---\n3 packets transmitted, 3 packets received, 0% packet loss\nround-trip min/avg/max = R ms\n`,
    );
    const avg = Number(r.out.match(/= [\d.]+\/([\d.]+)\//)![1]);
    expect(avg).toBeGreaterThan(0.04);
    expect(avg).toBeLessThan(0.25);
  });

  it("iputils, healthy, and a ClusterIP that never answers", async () => {
    const ip = time.status!.podIP!;
    const r = await sim.exec(centos, ["ping", "-c", "3", "-W", "2", ip]);
    expect(mask(r.out)).toBe(
      `PING ${ip} (${ip}) 56(84) bytes of data.\n64 bytes from ${ip}: icmp_seq=1 ttl=64 time=T ms\n64 bytes from ${ip}: icmp_seq=2 ttl=64 time=T ms\n64 bytes from ${ip}: icmp_seq=3 ttl=64 time=T ms\n\n--- ${ip} ping statistics ---\n3 packets transmitted, 3 received, 0% packet loss, time Nms\nrtt min/avg/max/mdev = R ms\n`,
    );
    expect(r.out).toMatch(/time 200\dms/);
    const svc = (sim.cluster.ctx.registry.get(R("Service"), sim.ns, "time-service") as Service).spec
      .clusterIP;
    const c = await sim.exec(centos, ["ping", "-c", "2", "-W", "1", "time-service"]);
    expect(c.code).toBe(1);
    expect(mask(c.out)).toBe(
      `PING time-service.tools.svc.cluster.local (${svc}) 56(84) bytes of data.\n\n--- time-service.tools.svc.cluster.local ping statistics ---\n2 packets transmitted, 0 received, 100% packet loss, time Nms\n\n`,
    );
  });

  it("under a 1000 ms delay on the pinging pod every reply arrives ~1000 ms late", async () => {
    sim.inject(
      time,
      { kind: "network", action: "delay", direction: "to", delayMs: 1000 },
      "NetworkChaos/tools/delay",
    );
    const before = sim.clock.now();
    const r = await sim.exec(time, ["ping", "-c", "3", "-W", "2", hello.status!.podIP!], "sidecar-busybox");
    sim.cluster.ctx.faults.remove("NetworkChaos/tools/delay");
    expect(r.code).toBe(0);
    expect(r.out).toContain("3 packets transmitted, 3 packets received, 0% packet loss");
    const [min, avg] = r.out
      .match(/= ([\d.]+)\/([\d.]+)\//)!
      .slice(1)
      .map(Number);
    expect(min).toBeGreaterThanOrEqual(1000);
    expect(avg).toBeLessThan(1001);
    // it took cluster time: three sends a second apart, the last reply a second later
    expect(sim.clock.now() - before).toBeGreaterThanOrEqual(3000);
  });

  it("under 50% loss on the target some echoes never come back", async () => {
    sim.inject(
      time,
      { kind: "network", action: "loss", direction: "to", lossPercent: 50 },
      "NetworkChaos/tools/loss",
    );
    const r = await sim.exec(centos, ["ping", "-c", "10", "-W", "2", time.status!.podIP!]);
    sim.cluster.ctx.faults.remove("NetworkChaos/tools/loss");
    const m = r.out.match(/10 packets transmitted, (\d+) received, ([\d.]+)% packet loss/)!;
    expect(Number(m[1])).toBeGreaterThan(0);
    expect(Number(m[1])).toBeLessThan(10);
    expect(Number(m[2])).toBe(((10 - Number(m[1])) * 100) / 10);
  });
});

describe("dd", () => {
  const dd = ["dd", "if=/dev/zero", "of=/var/log/mysql/x", "bs=1M", "count=10", "oflag=direct"];

  it("GNU and BusyBox, healthy: hundreds of MB/s, and the file is written", async () => {
    const gnu = await sim.exec(hello, dd);
    expect(gnu.code).toBe(0);
    expect(mask(gnu.err)).toBe(
      "10+0 records in\n10+0 records out\n10485760 bytes (10 MB, 10 MiB) copied, S, RATE\n",
    );
    expect(gnu.err).toMatch(/, [1-4]\d\d MB\/s\n$/);
    const bb = await sim.exec(hello, dd, "sidecar-busybox");
    expect(mask(bb.err)).toBe("10+0 records in\n10+0 records out\n10485760 bytes (10.0MB) copied, S, RATE\n");
    const ls = await sim.exec(hello, ["ls", "-l", "/var/log/mysql/x"]);
    expect(ls.out).toContain("10485760");
  });

  it("under IOChaos latency 5 s on 50% of operations: far below 10 MB/s", async () => {
    sim.inject(
      hello,
      {
        kind: "io",
        action: "latency",
        volumePath: "/var/log/mysql",
        path: "/var/log/mysql/**/*",
        delayMs: 5000,
        percent: 50,
      },
      "IOChaos/tools/io",
    );
    const r = await sim.exec(hello, dd);
    const elsewhere = await sim.exec(hello, [
      "dd",
      "if=/dev/zero",
      "of=/tmp/x",
      "bs=1M",
      "count=10",
      "oflag=direct",
    ]);
    sim.cluster.ctx.faults.remove("IOChaos/tools/io");
    expect(r.code).toBe(0);
    const m = r.err.match(/copied, ([\d.]+) s, ([\d.]+) (kB|MB)\/s/)!;
    expect(Number(m[1])).toBeGreaterThan(5);
    expect(m[3] === "kB" || Number(m[2]) < 10).toBe(true);
    expect(elsewhere.err).toMatch(/\d\d\d MB\/s/);
  });
});

describe("ps, top and kill", () => {
  it("show the stress-ng processes of a StressChaos", async () => {
    sim.inject(
      centos,
      { kind: "stress", cpu: { workers: 2, load: 100 }, containers: ["debug"] },
      "StressChaos/tools/cpu",
    );
    const r = await sim.exec(centos, ["ps", "-ef"]);
    const lines = r.out.trim().split("\n");
    expect(lines[0]).toBe("UID          PID    PPID  C STIME TTY          TIME CMD");
    expect(lines[1]).toMatch(/^root {11}1 {7}0 +\d+ \d\d:\d\d \? {8}\d\d:\d\d:\d\d sleep infinity$/);
    expect(r.out).toMatch(
      /root +\d+ +0 +\d+ \d\d:\d\d \? +\d\d:\d\d:\d\d stress-ng --cpu 2 --cpu-load 100\n/,
    );
    expect(r.out.match(/stress-ng-cpu \[run\]/g)).toHaveLength(2);
    const top = await sim.exec(centos, ["top", "-b", "-n", "1"]);
    expect(top.out).toMatch(/^top - \d\d:\d\d:\d\d up .*load average/);
    expect(top.out).toMatch(
      /\n {4}PID USER {6}PR {2}NI {4}VIRT {4}RES {4}SHR S {2}%CPU {2}%MEM {5}TIME\+ COMMAND\n/,
    );
    // the generic container's limit is unset: each worker takes its full core
    expect(top.out).toMatch(/ R 100\.0 .* stress-ng-cpu\n/);
  });

  it("kill: PID 1 ignores what it has no handler for; stress-ng workers die", async () => {
    const ps = (await sim.exec(centos, ["ps", "aux"])).out;
    const master = Number(ps.match(/root +(\d+) .*stress-ng --cpu/)![1]);
    expect((await sim.exec(centos, ["kill", "-9", "1"])).code).toBe(0);
    expect((await sim.exec(centos, ["kill", String(master)])).code).toBe(0);
    sim.advance(2000);
    const after = sim.cluster.ctx.registry.get(R("Pod"), sim.ns, "debug") as Pod;
    expect(after.status!.containerStatuses![0].restartCount).toBe(0);
    expect((await sim.exec(centos, ["ps", "aux"])).out).not.toContain("stress-ng");
    const missing = await sim.exec(centos, ["kill", "4242"]);
    expect(missing.err).toBe("kill: (4242): No such process\n");
    sim.cluster.ctx.faults.remove("StressChaos/tools/cpu");
  });

  it("kill: a JVM exits 143 on TERM and the kubelet restarts it", async () => {
    const nacos = sim.addPod("nacos-test", [{ name: "nacos", image: "nacos/nacos-server:2.0.1" }], {
      app: "other",
    });
    expect((await sim.exec(nacos, ["kill", "1"])).code).toBe(0);
    sim.advance(20_000);
    const st = (sim.cluster.ctx.registry.get(R("Pod"), sim.ns, "nacos-test") as Pod).status!
      .containerStatuses![0];
    expect(st.restartCount).toBe(1);
    expect(st.lastState!.terminated!.exitCode).toBe(143);
  });
});

describe("toolboxes", () => {
  it("a command the image lacks: the runtime's message, or the shell's", async () => {
    const direct = await sim.exec(hello, ["ping", "-c", "1", "10.42.0.1"]);
    expect(direct.code).toBe(127);
    expect(direct.err).toBe(
      'OCI runtime exec failed: exec failed: unable to start container process: exec: "ps": executable file not found in $PATH: unknown\n'.replace(
        "ps",
        "ping",
      ),
    );
    const inShell = await sim.exec(hello, ["sh", "-c", "ps aux; echo $?"]);
    expect(inShell.err).toBe("sh: 1: ps: not found\n");
    expect(inShell.out).toBe("127\n");
    expect((await sim.exec(hello, ["sh", "-c", "getent hosts time-service"])).out).toMatch(
      /^10\.43\.\d+\.\d+ +time-service\.tools\.svc\.cluster\.local\n$/,
    );
  });
});
