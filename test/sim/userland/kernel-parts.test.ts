// The kernel's files on a pinned clock, for what the kubectl tests do not reach: Chaos Mesh's tc
// layout for a NetworkChaos with a target (chaos-mesh pkg/chaosdaemon/tc_server.go, SetTcs: a prio
// qdisc of 3 + n bands after the global rules, sfq on its first three bands, each filtered rule a
// netem on band 4, 5, ...), AppArmor keeping chaos-daemon's processes' environ from the container
// (containerd's default profile), memory.events during the OOM kill the kubelet is about to
// report, /proc/net/tcp6 of a dual-stack listener, BusyBox tc's lack of -s, and tr.
import { beforeAll, describe, expect, it } from "vitest";
import type { Pod } from "../../../src/sim/core/objects.js";
import { deploy, type Sim } from "../helpers/topology.js";

let sim: Sim;
let time: Pod;
let centos: Pod;

beforeAll(() => {
  sim = deploy("simple-micro", "parts");
  sim.advance(20_000);
  time = sim.pod("time-service");
  centos = sim.addPod("debug", [
    {
      name: "debug",
      image: "centos:7",
      command: ["sleep", "infinity"],
      resources: { limits: { memory: "100Mi" } },
      ports: [{ containerPort: 8080 }],
    },
  ]);
});

describe("tc", () => {
  it("a NetworkChaos with a target: netem under a prio qdisc, after the global rules", async () => {
    const target = time.status!.podIP!;
    sim.inject(
      centos,
      { kind: "network", action: "loss", direction: "to", lossPercent: 25 },
      "NetworkChaos/parts/a",
    );
    sim.inject(
      centos,
      { kind: "network", action: "delay", direction: "to", delayMs: 250, jitterMs: 20, targetIPs: [target] },
      "NetworkChaos/parts/b",
    );
    const r = await sim.exec(centos, ["tc", "qdisc", "show", "dev", "eth0"]);
    expect(r.out).toBe(
      [
        "qdisc netem 1: root refcnt 2 limit 1000 loss 25%",
        "qdisc prio 2: parent 1: bands 4 priomap  1 2 2 2 1 2 0 0 1 1 1 1 1 1 1 1",
        "qdisc sfq 3: parent 2:1 limit 127p quantum 1514b depth 127 divisor 1024 ",
        "qdisc sfq 4: parent 2:2 limit 127p quantum 1514b depth 127 divisor 1024 ",
        "qdisc sfq 5: parent 2:3 limit 127p quantum 1514b depth 127 divisor 1024 ",
        "qdisc netem 6: parent 2:4 limit 1000 delay 250.0ms  20.0ms",
        "",
      ].join("\n"),
    );
    sim.cluster.ctx.faults.remove("NetworkChaos/parts/a");
    sim.cluster.ctx.faults.remove("NetworkChaos/parts/b");
    expect((await sim.exec(centos, ["tc", "qdisc", "show", "dev", "eth0"])).out).toBe(
      "qdisc noqueue 0: root refcnt 2 \n",
    );
  });

  it("BusyBox's tc takes no options: -s is not an object", async () => {
    const r = await sim.exec(time, ["tc", "-s", "qdisc"], "sidecar-busybox");
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/^BusyBox v1\.35\.0 multi-call binary\.\n\nUsage: tc OBJECT CMD \[dev STRING\]\n$/);
  });
});

describe("/proc and the cgroup under Chaos Mesh", () => {
  it("toda's environ is not the container's to read; its cmdline is", async () => {
    sim.inject(
      time,
      {
        kind: "io",
        action: "latency",
        volumePath: "/var/log/mysql",
        delayMs: 100,
        percent: 100,
        containers: ["time-service"],
      },
      "IOChaos/parts/io",
    );
    const ls = await sim.exec(time, ["sh", "-c", "for d in /proc/[0-9]*; do grep -l toda $d/comm; done"]);
    const dir = ls.out.trim().replace(/\/comm$/, "");
    expect(dir).toMatch(/^\/proc\/\d+$/);
    const env = await sim.exec(time, ["cat", `${dir}/environ`]);
    expect(env.code).toBe(1);
    expect(env.err).toBe(`cat: ${dir}/environ: Permission denied\n`);
    expect((await sim.exec(time, ["cat", `${dir}/cmdline`])).out).toBe(
      "/usr/local/bin/toda\0--path\0/var/log/mysql\0--verbose\0info\0",
    );
    // PID 1's environment is the container's own
    expect((await sim.exec(time, ["cat", "/proc/1/environ"])).out).toMatch(/(^|\0)PORT=5001\0/);
    sim.cluster.ctx.faults.remove("IOChaos/parts/io");
  });

  it("memory.events counts the OOM kill of a demand over memory.max", async () => {
    const before = await sim.exec(centos, [
      "cat",
      "/sys/fs/cgroup/memory.events",
      "/sys/fs/cgroup/memory.max",
    ]);
    expect(before.out).toBe(`low 0\nhigh 0\nmax 0\noom 0\noom_kill 0\noom_group_kill 0\n${100 * 1048576}\n`);
    sim.inject(
      centos,
      { kind: "stress", memory: { workers: 1, bytes: 200 * 1048576 } },
      "StressChaos/parts/m",
    );
    // read at the instant of the injection, before the kubelet reports the kill
    const fs = sim.cluster.exec.files.forContainer(centos, centos.spec.containers[0], 0);
    expect(fs.read("/sys/fs/cgroup/memory.events").toString()).toBe(
      "low 0\nhigh 0\nmax 1\noom 1\noom_kill 1\noom_group_kill 1\n",
    );
    expect(Number(fs.read("/sys/fs/cgroup/memory.current").toString())).toBe(100 * 1048576);
    sim.cluster.ctx.faults.remove("StressChaos/parts/m");
  });

  it("cpu.stat: while a stressor runs past the quota, every period counts as throttled, and no count goes back", async () => {
    // sched-bwc.rst: nr_throttled counts the periods in which the group ran out of quota, so a
    // group with ten busy threads under a 500m limit is throttled in each period it runs
    const fs = () => sim.cluster.exec.files.forContainer(time, time.spec.containers[0], 0);
    const stat = (): Record<string, number> =>
      Object.fromEntries(
        fs()
          .read("/sys/fs/cgroup/cpu.stat")
          .toString()
          .trim()
          .split("\n")
          .map((l) => [l.split(" ")[0], Number(l.split(" ")[1])]),
      );
    sim.advance(3_737);
    sim.inject(time, { kind: "stress", cpu: { workers: 10, load: 100 } }, "StressChaos/parts/c");
    let last = stat();
    for (let i = 0; i < 40; i++) {
      sim.advance(1_000 + ((i * 377) % 1_000));
      const now = stat();
      expect(now.nr_periods - last.nr_periods).toBeGreaterThan(0);
      expect(now.nr_throttled - last.nr_throttled).toBe(now.nr_periods - last.nr_periods);
      last = now;
    }
    sim.cluster.ctx.faults.remove("StressChaos/parts/c");
    for (let i = 0; i < 20; i++) {
      sim.advance(700 + ((i * 211) % 900));
      const now = stat();
      expect(now.nr_throttled).toBeGreaterThanOrEqual(last.nr_throttled);
      expect(now.nr_periods).toBeGreaterThanOrEqual(last.nr_periods);
      last = now;
    }
  });
});

describe("files an engineer reads with the simple tools", () => {
  it("every mount point /proc/mounts lists exists in the container's tree", async () => {
    for (const [pod, c] of [
      [time, "time-service"],
      [time, "sidecar-busybox"],
      [centos, "debug"],
    ] as const) {
      const points = (await sim.exec(pod, ["cat", "/proc/mounts"], c)).out
        .trim()
        .split("\n")
        .map((l) => l.split(" ")[1])
        // /var/run links to /run in Debian and CentOS; the token is mounted at the path the pod gives
        .map((m) => (m.startsWith("/run/secrets/") ? `/var${m}` : m));
      const r = await sim.exec(pod, ["ls", "-d", ...points], c);
      expect(r.err, c).toBe("");
      expect(r.out.trim().split("\n")).toEqual(points);
    }
  });

  it("/proc/net/tcp6: a dual-stack listener (:::port) as the kernel prints it", async () => {
    const java = sim.addPod("javaapp", [
      { name: "app", image: "codewisdom/ts-route-service:0.2.0", ports: [{ containerPort: 11178 }] },
    ]);
    // the JVM opens its port once it has started
    sim.advance(120_000);
    const r = await sim.exec(java, ["cat", "/proc/net/tcp6"]);
    const lines = r.out.split("\n");
    expect(lines[0]).toMatch(/^ {2}sl {2}local_address {25}remote_address {24}st tx_queue/);
    // 11178 = 0x2BAA, state 0A = LISTEN
    expect(lines[1]).toMatch(/^ {3}0: 0{32}:2BAA 0{32}:0000 0A 00000000:00000000 00:00000000 00000000 /);
  });

  it("tr turns a NUL-separated file into words", async () => {
    const r = await sim.exec(time, [
      "sh",
      "-c",
      "tr '\\0' '\\n' < /proc/1/cmdline | head -3; echo aab | tr -s a; echo abc | tr -d b; echo abc | tr a-c A-C",
    ]);
    expect(r.out).toBe("python\n-u\n-c\nab\nac\nABC\n");
  });
});
