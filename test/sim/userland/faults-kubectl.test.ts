// What an engineer finds inside a container under each of the seven faults,
// read with the real kubectl exec into simple-micro's time-service (python:3.9-slim, a busybox
// sidecar), the faults injected with the shipped templates and the config patch. A centos:7 pod
// (iproute 4.11) receives the NetworkChaos templates too, to read netem's parameters with tc.
// What each must look like follows these sources (fetched into the workspace, cited by tag or
// commit):
// - StressChaos: chaos-mesh pkg/chaosdaemon/stress_server_linux.go starts stress-ng in the target's
//   PID namespace and cgroups/attach_cgroup.go puts it in the target container's cgroup (so
//   /proc/<pid>/cgroup is "0::/" there); a vm worker holds its bytes (VmRSS in kB, proc.rst).
//   CFS throttling counters: Linux Documentation/scheduler/sched-bwc.rst and
//   Documentation/admin-guide/cgroup-v2.rst ("CPU Interface Files": nr_periods, nr_throttled,
//   throttled_usec).
// - IOChaos: chaos-mesh pkg/chaosdaemon/iochaos_server.go runs `/usr/local/bin/toda --path
//   <volume> --verbose info` in the container's mount and PID namespaces (not its cgroup);
//   chaos-mesh/toda src/mount_injector.rs (v0.2.4, 523c67d) moves the volume's mount to
//   <parent>/__chaosfs__<name>__ (MS_MOVE) and mounts FUSE at the volume path with
//   `-o allow_other,fsname=toda,default_permissions,nonempty`, through libfuse 2 (Dockerfile:
//   libfuse-dev): type "fuse", source "toda", nosuid,nodev, and the kernel's user_id/group_id.
//   Recovery unmounts it and moves the volume back.
// - NetworkChaos: chaos-mesh pkg/chaosdaemon/tc_server.go (608b61e7c): a rule without a target is
//   `tc qdisc add dev eth0 root handle 1: netem <args>`, the args from convertNetemToArgs
//   (`delay 1000ms`, `loss 50.000000`); iproute2 v4.11.0 tc/q_netem.c prints "limit 1000 delay
//   1.0s" / "loss 50%" (print_time "%.1fs", sprint_percent "%g%%"), tc_qdisc.c the head; BusyBox
//   1.35 networking/tc.c print_qdisc decodes no netem options: "(options for netem)".
// - PodChaos pod-failure swaps every image for pause, which holds no program to exec.
// - The config patch: limits 2m / 200Mi; the kubelet's MilliCPUToQuota gives a 2m limit the
//   kernel's minimum quota, "1000 100000" (pkg/kubelet/cm/helpers_linux.go, MinQuotaPeriod).
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startTestCluster, type TestCluster } from "../../helpers/cluster.js";
import {
  CHAOS_KIND,
  configPatch,
  deploySystem,
  eventually,
  type Failure,
  type Kn,
  kubectlIn,
  type Pod,
  podsOf,
  template,
  topRows,
} from "../helpers/failures.js";
import { cat, cpuStatOver as cpuStatOverIn, pidsIn, processes, sh } from "../helpers/procfs.js";

const NS = "faults";
const APP = "time-service";
const SIDECAR = "sidecar-busybox";
const CENTOS = "tools";
let t: TestCluster;
let kn: Kn;
let pod: Pod;

async function apply(failure: Failure, target = APP): Promise<void> {
  const r = await kn(["apply", "-f", "-"], template(failure, NS, target));
  expect(r.exitCode, r.stderr).toBe(0);
  await eventually(kn, ["get", CHAOS_KIND[failure]!, failure, "-o", "jsonpath={.status.conditions}"], (o) =>
    /"type":"AllInjected","status":"True"|"status":"True","type":"AllInjected"/.test(o),
  );
}

async function remove(failure: Failure): Promise<void> {
  const r = await kn(["delete", CHAOS_KIND[failure]!, failure, "--timeout=60s"]);
  expect(r.exitCode, r.stderr).toBe(0);
}

const cpuStatOver = (seconds: number) => cpuStatOverIn(kn, pod.metadata.name, APP, seconds);

beforeAll(async () => {
  t = await startTestCluster(60, 7);
  kn = kubectlIn(t, NS);
  await deploySystem(t, "simple-micro", NS);
  [pod] = await podsOf(kn, APP);
  const debug = await kn(
    ["apply", "-f", "-"],
    JSON.stringify({
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: CENTOS, labels: { app: CENTOS } },
      spec: {
        containers: [
          {
            name: CENTOS,
            image: "centos:7",
            command: ["sleep", "infinity"],
            ports: [{ containerPort: 8080 }],
            readinessProbe: { tcpSocket: { port: 8080 }, periodSeconds: 1 },
          },
        ],
      },
    }),
  );
  expect(debug.exitCode, debug.stderr).toBe(0);
  await eventually(kn, ["get", "pod", CENTOS, "--no-headers"], (o) => /\s1\/1\s+Running\s/.test(o));
}, 150_000);
afterAll(() => t?.stop());

// a test that fails half-way leaves no fault behind for the next one
afterEach(async () => {
  for (const kind of new Set(Object.values(CHAOS_KIND))) {
    const left = (await kn(["get", kind!, "-o", "name"])).stdout.split("\n").filter(Boolean);
    for (const obj of left) {
      const del = await kn(["delete", obj, "--timeout=20s"]);
      if (del.exitCode !== 0)
        await kn(["patch", obj, "--type", "merge", "-p", '{"metadata":{"finalizers":[]}}']);
    }
  }
});

describe("StressChaos", () => {
  it("cpu-stress: ten stress-ng-cpu workers in /proc, in the container's cgroup, throttled at 500m", async () => {
    // the service's own requests below its limit wait at a period boundary now and then
    // (cgroup.ts: a burst past a period's share of the quota); nr_throttled counts whole periods of
    // that rate's integral, so 30 s of it may cross one whole period or none, by where it started
    const quiet = await cpuStatOver(30);
    expect(quiet.b.nr_throttled - quiet.a.nr_throttled).toBeLessThanOrEqual(1);
    await apply("cpu-stress");
    const procs = await processes(kn, pod.metadata.name, APP);
    const master = [...procs].find(([, p]) => p.status.get("Name") === "stress-ng")!;
    expect(master[1].cmdline).toEqual(["stress-ng", "--cpu", "10", "--cpu-load", "100"]);
    expect(master[1].status.get("PPid")).toBe("0");
    const workers = [...procs].filter(([, p]) => p.status.get("Name") === "stress-ng-cpu");
    expect(workers).toHaveLength(10);
    for (const [, w] of workers) {
      expect(w.status.get("PPid")).toBe(String(master[0]));
      expect(w.status.get("State")).toBe("R (running)");
      expect(w.cgroup).toBe("0::/");
    }
    // ten cores wanted, 500m allowed: every period runs out of quota
    const busy = await cpuStatOver(30);
    // (the clock moves on between cat's two reads: a percent of slack over 30 s)
    expect(busy.milli).toBeGreaterThan(495);
    expect(busy.milli).toBeLessThanOrEqual(505);
    const periods = busy.b.nr_periods - busy.a.nr_periods;
    // one per 100 ms period, within the same percent
    expect(Math.abs(periods - busy.ms / 100)).toBeLessThanOrEqual(3);
    expect(busy.b.nr_throttled - busy.a.nr_throttled).toBe(periods);
    // each period, the threads waiting on their CPUs count the rest of it: far more than wall time
    expect(busy.b.throttled_usec - busy.a.throttled_usec).toBeGreaterThan(30 * 1e6);
    const top = await eventually(kn, ["top", "pod", pod.metadata.name, "--containers"], (o) =>
      topRows(o).some((r) => r.container === APP && r.cpu >= 475),
    );
    expect(topRows(top).find((r) => r.container === APP)!.cpu).toBeLessThanOrEqual(500);
    await remove("cpu-stress");
    const after = await sh(kn, pod.metadata.name, APP, ["ls", "/proc"]);
    expect(pidsIn(after).filter((p) => procs.get(p)?.status.get("Name")?.startsWith("stress-ng"))).toEqual(
      [],
    );
    const calm = await cpuStatOver(30);
    expect(calm.b.nr_throttled - calm.a.nr_throttled).toBeLessThanOrEqual(1);
  }, 120_000);

  it("memory-stress: the stress-ng-vm worker holds 1280 MiB (VmRSS), memory.current counts it", async () => {
    await apply("memory-stress");
    const procs = await processes(kn, pod.metadata.name, APP);
    const vm = [...procs.values()].find((p) => p.status.get("Name") === "stress-ng-vm")!;
    expect(vm.status.get("VmRSS")).toBe(`${1280 * 1024} kB`);
    expect(vm.cgroup).toBe("0::/");
    const app = procs.get(1)!;
    const [current, max, events] = (
      await cat(
        kn,
        pod.metadata.name,
        APP,
        "/sys/fs/cgroup/memory.current",
        "/sys/fs/cgroup/memory.max",
        "/sys/fs/cgroup/memory.events",
      )
    ).split("\n");
    expect(Number(max)).toBe(2000 * 1024 * 1024);
    // the cgroup's memory is its processes': the worker, the master, python
    const rss = (p: { status: Map<string, string> }) => Number.parseInt(p.status.get("VmRSS")!, 10) * 1024;
    const sum = [...procs.values()].filter((p) => p.cgroup === "0::/").reduce((n, p) => n + rss(p), 0);
    expect(Math.abs(Number(current) - sum)).toBeLessThan(sum * 0.05);
    expect(Number(current)).toBeGreaterThan(1280 * 1048576 + rss(app) * 0.5);
    // under the limit: no OOM event
    expect(events).toBe("low 0");
    const top = await eventually(kn, ["top", "pod", pod.metadata.name, "--containers"], (o) =>
      topRows(o).some((r) => r.container === APP && r.memMi > 1280),
    );
    const mi = topRows(top).find((r) => r.container === APP)!.memMi;
    expect(Math.abs(mi - Number(current) / 1048576)).toBeLessThan(mi * 0.05);
    await remove("memory-stress");
    const gone = await processes(kn, pod.metadata.name, APP);
    expect([...gone.values()].some((p) => p.status.get("Name")?.startsWith("stress-ng"))).toBe(false);
  }, 120_000);
});

describe("IOChaos", () => {
  it("disk-io: toda's FUSE mount over /var/log/mysql, the volume moved aside, toda in /proc", async () => {
    await apply("disk-io");
    const mounts = await cat(kn, pod.metadata.name, APP, "/proc/mounts");
    const lines = mounts.trim().split("\n");
    expect(lines.at(-1)).toBe(
      "toda /var/log/mysql fuse rw,nosuid,nodev,relatime,user_id=0,group_id=0,default_permissions,allow_other 0 0",
    );
    expect(lines).toContain("/dev/sda1 /var/log/__chaosfs__mysql__ ext4 rw,relatime 0 0");
    // mountinfo, as the kernel's show_mountinfo writes it: the mount's own options, then after
    // " - " the type, the source and the filesystem's options
    const info = (await cat(kn, pod.metadata.name, APP, "/proc/self/mountinfo")).trim().split("\n");
    expect(info.at(-1)).toMatch(
      /^\d+ \d+ 0:\d+ \/ \/var\/log\/mysql rw,nosuid,nodev,relatime - fuse toda rw,user_id=0,group_id=0,default_permissions,allow_other$/,
    );
    expect(lines).not.toContain("/dev/sda1 /var/log/mysql ext4 rw,relatime 0 0");
    expect(await sh(kn, pod.metadata.name, APP, ["mount", "-t", "fuse"])).toBe(
      "toda on /var/log/mysql type fuse (rw,nosuid,nodev,relatime,user_id=0,group_id=0,default_permissions,allow_other)",
    );
    expect((await sh(kn, pod.metadata.name, APP, ["ls", "/var/log"])).split("\n")).toContain(
      "__chaosfs__mysql__",
    );
    // toda runs in the container's PID namespace, from chaos-daemon's cgroup
    const procs = await processes(kn, pod.metadata.name, APP);
    const toda = [...procs.values()].find((p) => p.status.get("Name") === "toda")!;
    expect(toda.cmdline).toEqual(["/usr/local/bin/toda", "--path", "/var/log/mysql", "--verbose", "info"]);
    expect(toda.status.get("PPid")).toBe("0");
    expect(toda.cgroup).toMatch(
      /^0::\/\.\.\/\.\.\/\.\.\/kubepods-besteffort\.slice\/kubepods-besteffort-pod[\w]+\.slice\/cri-containerd-[0-9a-f]{64}\.scope$/,
    );
    // the sidecar has its own mount namespace: toda did not touch it
    expect(await cat(kn, pod.metadata.name, SIDECAR, "/proc/mounts")).not.toMatch(/fuse/);
    await remove("disk-io");
    const back = await cat(kn, pod.metadata.name, APP, "/proc/mounts");
    expect(back).not.toMatch(/fuse|__chaosfs__/);
    expect(back.split("\n")).toContain("/dev/sda1 /var/log/mysql ext4 rw,relatime 0 0");
    const gone = await processes(kn, pod.metadata.name, APP);
    expect([...gone.values()].some((p) => p.status.get("Name") === "toda")).toBe(false);
  }, 120_000);

  it("disk-io: the FUSE mount goes with the pod it was injected into", async () => {
    await apply("disk-io");
    expect(await cat(kn, pod.metadata.name, APP, "/proc/mounts")).toMatch(/^toda \/var\/log\/mysql fuse /m);
    const del = await kn(["delete", "pod", pod.metadata.name, "--wait=false"]);
    expect(del.exitCode, del.stderr).toBe(0);
    const fresh = await eventually(kn, ["get", "pod", "-l", `app=${APP}`, "--no-headers"], (o) =>
      o.split("\n").some((l) => !l.startsWith(pod.metadata.name) && /\s2\/2\s+Running\s/.test(l)),
    );
    const name = fresh
      .split("\n")
      .find((l) => !l.startsWith(pod.metadata.name))!
      .split(/\s+/)[0];
    const m = await cat(kn, name, APP, "/proc/mounts");
    expect(m).not.toMatch(/fuse|__chaosfs__/);
    expect(m.split("\n")).toContain("/dev/sda1 /var/log/mysql ext4 rw,relatime 0 0");
    // the record's pod is gone, so recovery cannot reach it and the delete hangs on the
    // finalizer: clear it, as failures.md says
    expect((await kn(["delete", "iochaos", "disk-io", "--wait=false"])).exitCode).toBe(0);
    const patch = await kn([
      "patch",
      "iochaos",
      "disk-io",
      "--type",
      "merge",
      "-p",
      '{"metadata":{"finalizers":[]}}',
    ]);
    expect(patch.exitCode, patch.stderr).toBe(0);
    await eventually(kn, ["get", "iochaos", "-o", "name"], (o) => o.trim() === "");
    [pod] = (await podsOf(kn, APP)).filter((p) => p.metadata.name === name);
  }, 120_000);
});

describe("NetworkChaos", () => {
  const tc = (podName: string, container: string, ...args: string[]) =>
    sh(kn, podName, container, ["tc", ...args, "qdisc", "show"]);
  const NOQUEUE = "qdisc noqueue 0: dev lo root refcnt 2 \nqdisc noqueue 0: dev eth0 root refcnt 2 ";

  it("network-delay: netem on eth0 while it lasts (BusyBox tc cannot decode it, iproute2 can)", async () => {
    await apply("network-delay");
    // the sidecar shares the pod's network namespace, so its tc sees the qdisc
    expect(await tc(pod.metadata.name, SIDECAR)).toBe(
      "qdisc noqueue 0: dev lo root refcnt 2 \nqdisc netem 1: dev eth0 root refcnt 2 (options for netem)",
    );
    await remove("network-delay");
    expect(await tc(pod.metadata.name, SIDECAR)).toBe(NOQUEUE);
    await apply("network-delay", CENTOS);
    expect(await tc(CENTOS, CENTOS)).toBe(
      "qdisc noqueue 0: dev lo root refcnt 2 \nqdisc netem 1: dev eth0 root refcnt 2 limit 1000 delay 1.0s",
    );
    await remove("network-delay");
    expect(await tc(CENTOS, CENTOS)).toBe(NOQUEUE);
  }, 120_000);

  it("network-loss: netem loss 50%, and tc -s counts what it sent and dropped", async () => {
    await apply("network-loss");
    expect(await tc(pod.metadata.name, SIDECAR)).toContain(
      "qdisc netem 1: dev eth0 root refcnt 2 (options for netem)",
    );
    await remove("network-loss");
    await apply("network-loss", CENTOS);
    // the kubelet's probe crosses the pod's eth0 every second: netem passes half and drops half
    const out = await sh(kn, CENTOS, CENTOS, [
      "sh",
      "-c",
      "tc -s qdisc show dev eth0; sleep 30; tc -s qdisc show dev eth0",
    ]);
    const lines = out.split("\n");
    expect(lines[0]).toBe("qdisc netem 1: root refcnt 2 limit 1000 loss 50%");
    expect(lines[2]).toBe(" backlog 0b 0p requeues 0");
    const stats = (l: string) => {
      const m = l.match(/^ Sent (\d+) bytes (\d+) pkt \(dropped (\d+), overlimits 0 requeues 0\) $/);
      expect(m, l).not.toBeNull();
      return m!.slice(1).map(Number);
    };
    const [a, b] = [stats(lines[1]), stats(lines[4])];
    expect(b[1]).toBeGreaterThan(a[1]);
    expect(b[2]).toBeGreaterThan(a[2]);
    // half lost: as many dropped as sent, give or take the counting instant
    expect(Math.abs(b[2] - a[2] - (b[1] - a[1]))).toBeLessThanOrEqual(2);
    const denied = await kn(["exec", CENTOS, "--", "tc", "qdisc", "del", "dev", "eth0", "root"]);
    expect(denied.exitCode).toBe(2);
    expect(denied.stderr).toMatch(
      /^RTNETLINK answers: Operation not permitted\ncommand terminated with exit code 2$/,
    );
    await remove("network-loss");
    expect(await tc(CENTOS, CENTOS)).toBe(NOQUEUE);
  }, 120_000);
});

describe("PodChaos and the config patch", () => {
  it("pod-fail: pause holds no program, so nothing of /proc can be read until recovery", async () => {
    await apply("pod-fail");
    await eventually(
      kn,
      ["get", "pod", pod.metadata.name, "-o", "jsonpath={.spec.containers[0].image}"],
      (o) => /pause/.test(o),
    );
    // python's command line cannot start in pause, so the kubelet has no running container to exec in
    const r = await kn(["exec", pod.metadata.name, "-c", APP, "--", "cat", "/proc/1/status"]);
    expect(r.exitCode).not.toBe(0);
    expect(r.stderr).toMatch(/unable to upgrade connection: container not found \("time-service"\)/);
    await remove("pod-fail");
    await eventually(
      kn,
      ["get", "pod", pod.metadata.name, "--no-headers"],
      (o) => /\s2\/2\s+Running\s/.test(o),
      60_000,
    );
    const procs = await processes(kn, pod.metadata.name, APP);
    expect(procs.get(1)!.status.get("Name")).toBe("python");
  }, 120_000);

  it("pod-config-error: the new pod's cgroup has the starved limits and is throttled", async () => {
    const p = await kn([
      "patch",
      "deployment",
      APP,
      "--type",
      "strategic",
      "--patch-file",
      t.file("config.yaml", configPatch(APP)),
    ]);
    expect(p.exitCode, p.stderr).toBe(0);
    const fresh = await eventually(kn, ["get", "pod", "-l", `app=${APP}`, "--no-headers"], (o) =>
      o.split("\n").some((l) => !l.startsWith(pod.metadata.name) && /\s\d\/2\s+Running\s/.test(l)),
    );
    const name = fresh
      .split("\n")
      .find((l) => !l.startsWith(pod.metadata.name))!
      .split(/\s+/)[0];
    const limits = await cat(kn, name, APP, "/sys/fs/cgroup/cpu.max", "/sys/fs/cgroup/memory.max");
    expect(limits).toBe(`1000 100000\n${200 * 1024 * 1024}`);
    const { a, b, milli } = await cpuStatOverIn(kn, name, APP, 30);
    // python wants more than 2m: throttled in every period it runs, held at the limit
    expect(b.nr_throttled - a.nr_throttled).toBeGreaterThan(0);
    expect(b.nr_throttled - a.nr_throttled).toBe(b.nr_periods - a.nr_periods);
    expect(milli).toBeLessThanOrEqual(2.05);
  }, 120_000);
});
