// A container looks like Linux from inside, read the way an engineer reads it,
// with the real kubectl exec into simple-micro (python:3.9-slim with a busybox:1.35 sidecar), no
// fault injected. What each file must look like follows these sources:
// - /proc/<pid>/status and stat: Linux Documentation/filesystems/proc.rst (tables 1-2 and 1-4),
//   fs/proc/array.c ("VmRSS:\t%8lu kB"); /proc/<pid>/mountinfo: proc.rst section 3.5.
// - /proc/net/dev: net/core/net-procfs.c, dev_seq_printf_stats ("%6s: %7llu %7llu ...").
// - /proc/<pid>/cgroup "0::/": containerd's CRI plugin gives every unprivileged container a
//   private cgroup namespace on cgroup v2 (container_create_linux.go: "cgroupns is used for
//   hiding /sys/fs/cgroup from containers"), so the container's own cgroup is the root; k3s
//   picks the systemd driver when it runs as a service (pkg/agent/containerd/config_linux.go:
//   SystemdCgroup = cpuset controller && INVOCATION_ID), which only the node sees.
// - /sys/fs/cgroup: Documentation/admin-guide/cgroup-v2.rst, "CPU Interface Files" (cpu.max
//   "$MAX $PERIOD", cpu.stat usage_usec/user_usec/system_usec, nr_periods/nr_throttled/
//   throttled_usec) and "Memory Interface Files" (memory.current, memory.max, memory.events);
//   the limits as the kubelet writes them (pkg/kubelet/cm/helpers_linux.go, MilliCPUToQuota:
//   quota = milli x 100000 / 1000, at least 1000; period 100000).
// - The mount table: runc's default mounts, the kubelet's (volumes, /etc/hosts,
//   /dev/termination-log) and containerd's (/etc/hostname, /etc/resolv.conf, /dev/shm), which
//   containerd's WithMounts sorts stably by depth; the node's k3s paths.
// - mount: BusyBox 1.35 util-linux/mount.c prints "%s on %s type %s (%s)" from /proc/mounts;
//   util-linux's mount the same from mountinfo. tc: BusyBox 1.35 networking/tc.c print_qdisc
//   ("qdisc %s %x: dev %s root refcnt %d "); python:3.9-slim has no iproute2.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestCluster, type TestCluster } from "../../helpers/cluster.js";
import { deploySystem, type Kn, kubectlIn, type Pod, podsOf, topRows } from "../helpers/failures.js";
import { cat, cpuStatOver, eth0, flatKeyed, pidsIn, processes, sh, statusOf } from "../helpers/procfs.js";

const NS = "procfs";
let t: TestCluster;
let kn: Kn;
let time: Pod;
const APP = "time-service";
const SIDECAR = "sidecar-busybox";

beforeAll(async () => {
  t = await startTestCluster(60, 21);
  kn = kubectlIn(t, NS);
  await deploySystem(t, "simple-micro", NS);
  [time] = await podsOf(kn, APP);
}, 120_000);
afterAll(() => t?.stop());

describe("/proc lists the container's processes", () => {
  it("ls /proc: PID 1 and the looking process, beside the kernel's own files", async () => {
    const ls = await sh(kn, time.metadata.name, APP, ["ls", "/proc"]);
    const pids = pidsIn(ls);
    expect(pids[0]).toBe(1);
    // the ls itself: the only other process of python's PID namespace
    expect(pids).toHaveLength(2);
    for (const f of ["cpuinfo", "meminfo", "loadavg", "uptime", "mounts", "net", "self"])
      expect(ls.split("\n")).toContain(f);
  });

  it("ps and /proc agree (the sidecar's BusyBox ps)", async () => {
    const out = await sh(kn, time.metadata.name, SIDECAR, ["sh", "-c", "echo $$; ls /proc; echo @@; ps"]);
    const [shell, rest] = [Number(out.split("\n")[0]), out.slice(out.indexOf("\n") + 1)];
    const [ls, ps] = rest.split("@@\n");
    const inLs = pidsIn(ls);
    const inPs = ps
      .trim()
      .split("\n")
      .slice(1)
      .map((l) => Number(l.trim().split(/\s+/)[0]));
    // each sees itself and its shell: the two lists differ only by the looking command
    expect(inLs.filter((p) => p !== inLs.at(-1))).toEqual(inPs.filter((p) => p !== inPs.at(-1)));
    expect(inLs).toContain(shell);
    expect(inPs).toContain(shell);
    expect(ps).toMatch(/^ {4}1 root {6}\d+:\d\d sleep infinity$/m);
    expect(ps).toMatch(new RegExp(`^ +${shell} root +\\d+:\\d\\d sh -c echo`, "m"));
  });

  it("/proc/self is the reader; its status names it, its parent is the shell", async () => {
    const out = await sh(kn, time.metadata.name, APP, ["sh", "-c", "echo $$; cat /proc/self/status"]);
    const shell = Number(out.split("\n")[0]);
    const st = statusOf(out.slice(out.indexOf("\n") + 1));
    expect(st.get("Name")).toBe("cat");
    expect(st.get("State")).toBe("R (running)");
    expect(st.get("PPid")).toBe(String(shell));
    expect(Number(st.get("Pid"))).toBeGreaterThan(shell);
    expect(st.get("NSpid")).toBe(st.get("Pid"));
    expect(st.get("Uid")).toBe("0\t0\t0\t0");
    // containerd's default capabilities for root
    expect(st.get("CapEff")).toBe("00000000a80425fb");
    const link = await sh(kn, time.metadata.name, APP, ["ls", "-l", "/proc/self"]);
    expect(link).toMatch(/^lrwxrwxrwx 1 root root 0 .* \/proc\/self -> \d+$/m);
  });

  it("PID 1 is the pod's command: status, NUL-separated cmdline, its cgroup, stat", async () => {
    const procs = await processes(kn, time.metadata.name, APP);
    const one = procs.get(1)!;
    expect(one.status.get("Name")).toBe("python");
    expect(one.status.get("State")).toBe("S (sleeping)");
    expect(one.status.get("PPid")).toBe("0");
    expect(one.cmdline.slice(0, 4)).toEqual(["python", "-u", "-c", "import datetime"]);
    expect(one.cgroup).toBe("0::/");
    // VmRSS is what the process holds, in kB as the kernel prints it; kubectl top agrees
    const rss = one.status.get("VmRSS")!;
    expect(rss).toMatch(/^\d+ kB$/);
    const top = topRows((await kn(["top", "pod", time.metadata.name, "--containers"])).stdout).find(
      (r) => r.container === APP,
    );
    if (top) expect(Math.abs(Number.parseInt(rss, 10) / 1024 - top.memMi)).toBeLessThan(top.memMi * 0.2 + 2);
    const cmdline = await kn(["exec", time.metadata.name, "-c", APP, "--", "cat", "/proc/1/cmdline"]);
    expect(cmdline.stdout.startsWith("python\0-u\0-c\0import datetime\n")).toBe(true);
    // kubectl keeps a final NUL (only a final newline is trimmed)
    expect(cmdline.stdout.endsWith("\0")).toBe(true);
    const stat = (await cat(kn, time.metadata.name, APP, "/proc/1/stat")).trim().split(" ");
    expect(stat.slice(0, 5)).toEqual(["1", "(python)", "S", "0", "1"]);
    expect(stat).toHaveLength(52);
  });
});

describe("the mount table", () => {
  it("/proc/mounts: the root overlay, runc's mounts, the emptyDir, the kubelet's files, the token", async () => {
    const m = await cat(kn, time.metadata.name, APP, "/proc/mounts");
    const lines = m.trim().split("\n");
    expect(lines[0]).toMatch(
      /^overlay \/ overlay rw,relatime,lowerdir=\/var\/lib\/rancher\/k3s\/agent\/containerd\/io\.containerd\.snapshotter\.v1\.overlayfs\/snapshots\/\d+\/fs(:[^,]+)*,upperdir=[^,]+\/fs,workdir=[^ ]+\/work 0 0$/,
    );
    expect(lines.slice(1, 7)).toEqual([
      "proc /proc proc rw,nosuid,nodev,noexec,relatime 0 0",
      "tmpfs /dev tmpfs rw,nosuid,size=65536k,mode=755,inode64 0 0",
      "devpts /dev/pts devpts rw,nosuid,noexec,relatime,gid=5,mode=620,ptmxmode=666 0 0",
      "mqueue /dev/mqueue mqueue rw,nosuid,nodev,noexec,relatime 0 0",
      "sysfs /sys sysfs ro,nosuid,nodev,noexec,relatime 0 0",
      "cgroup /sys/fs/cgroup cgroup2 ro,nosuid,nodev,noexec,relatime,nsdelegate,memory_recursiveprot 0 0",
    ]);
    for (const l of [
      "/dev/sda1 /etc/hosts ext4 rw,relatime 0 0",
      "/dev/sda1 /dev/termination-log ext4 rw,relatime 0 0",
      "/dev/sda1 /etc/hostname ext4 rw,relatime 0 0",
      "/dev/sda1 /etc/resolv.conf ext4 rw,relatime 0 0",
      "shm /dev/shm tmpfs rw,nosuid,nodev,noexec,relatime,size=65536k,inode64 0 0",
      "/dev/sda1 /var/log/mysql ext4 rw,relatime 0 0",
      "proc /proc/sys proc ro,nosuid,nodev,noexec,relatime 0 0",
      "tmpfs /proc/kcore tmpfs rw,nosuid,size=65536k,mode=755,inode64 0 0",
    ])
      expect(lines).toContain(l);
    // the projected token: a tmpfs the size of the pod's memory limits (2000Mi + 64Mi)
    expect(lines).toContain(
      `tmpfs /run/secrets/kubernetes.io/serviceaccount tmpfs ro,relatime,size=${2064 * 1024}k,inode64 0 0`,
    );
    expect(m).not.toMatch(/fuse/);
    // /proc/mounts is a link to the reader's own
    expect(await cat(kn, time.metadata.name, APP, "/proc/self/mounts")).toBe(m);
  });

  it("mountinfo: the emptyDir is a bind of the kubelet's directory for this pod", async () => {
    const uid = (await kn(["get", "pod", time.metadata.name, "-o", "jsonpath={.metadata.uid}"])).stdout;
    const info = await cat(kn, time.metadata.name, APP, "/proc/self/mountinfo");
    const rows = info
      .trim()
      .split("\n")
      .map((l) => l.split(" "));
    const root = rows[0];
    expect(root[4]).toBe("/");
    const mysql = rows.find((r) => r[4] === "/var/log/mysql")!;
    // id parent major:minor root mountpoint options - fstype source superoptions
    expect(mysql.slice(2)).toEqual([
      "8:1",
      `/var/lib/kubelet/pods/${uid}/volumes/kubernetes.io~empty-dir/mysql-log`,
      "/var/log/mysql",
      "rw,relatime",
      "-",
      "ext4",
      "/dev/sda1",
      "rw",
    ]);
    expect(mysql[1]).toBe(root[0]);
    const hosts = rows.find((r) => r[4] === "/etc/hosts")!;
    expect(hosts[3]).toBe(`/var/lib/kubelet/pods/${uid}/etc-hosts`);
  });

  it("mount lists the table (util-linux in python:3.9-slim, BusyBox in the sidecar); mounting is refused", async () => {
    const debian = await sh(kn, time.metadata.name, APP, ["mount", "-t", "ext4"]);
    expect(debian.split("\n")).toContain("/dev/sda1 on /var/log/mysql type ext4 (rw,relatime)");
    expect(debian).not.toContain("overlay");
    const bb = await sh(kn, time.metadata.name, SIDECAR, ["mount"]);
    expect(bb.split("\n")[0]).toMatch(/^overlay on \/ type overlay \(rw,relatime,lowerdir=/);
    expect(bb.split("\n")).toContain(
      "cgroup on /sys/fs/cgroup type cgroup2 (ro,nosuid,nodev,noexec,relatime,nsdelegate,memory_recursiveprot)",
    );
    const denied = await kn([
      "exec",
      time.metadata.name,
      "-c",
      APP,
      "--",
      "mount",
      "-t",
      "tmpfs",
      "tmpfs",
      "/mnt",
    ]);
    expect(denied.exitCode).toBe(32);
    expect(denied.stderr).toMatch(
      /^mount: \/mnt: permission denied\.\ncommand terminated with exit code 32$/,
    );
  });
});

describe("the network namespace", () => {
  it("/proc/net/dev: eth0 counts the traffic the service receives and sends", async () => {
    const out = await sh(kn, time.metadata.name, APP, [
      "sh",
      "-c",
      "cat /proc/net/dev; sleep 30; cat /proc/net/dev",
    ]);
    const [a, b] = out
      .split("Inter-|")
      .filter(Boolean)
      .map((x) => `Inter-|${x}`);
    expect(a.split("\n").slice(0, 2)).toEqual([
      "Inter-|   Receive                                                |  Transmit",
      " face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs drop fifo colls carrier compressed",
    ]);
    expect(a).toMatch(/^ {4}lo: +0 +0 +0/m);
    const [before, after] = [eth0(a), eth0(b)];
    // hello-service calls /time and the kubelet probes every 5 s: both ways, 30 s of it
    expect(after.rxBytes).toBeGreaterThan(before.rxBytes);
    expect(after.txBytes).toBeGreaterThan(before.txBytes);
    expect(after.rxPackets - before.rxPackets).toBeGreaterThanOrEqual(6 * 5);
    // the sidecar shares the pod's network namespace: the same counters
    const side = eth0(await cat(kn, time.metadata.name, SIDECAR, "/proc/net/dev"));
    expect(side.rxBytes).toBeGreaterThanOrEqual(after.rxBytes);
  });

  it("/proc/net/tcp holds python's listener on 0.0.0.0:5001 (what BusyBox netstat reads)", async () => {
    const tcp = await cat(kn, time.metadata.name, SIDECAR, "/proc/net/tcp");
    const lines = tcp.split("\n");
    expect(lines[0].trimEnd()).toBe(
      "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode",
    );
    // 5001 = 0x1389, state 0A = LISTEN
    expect(tcp).toMatch(/^ {3}0: 00000000:1389 00000000:0000 0A 00000000:00000000 00:00000000 00000000 /m);
    const netstat = await sh(kn, time.metadata.name, SIDECAR, ["netstat", "-ltn"]);
    expect(netstat).toMatch(/^tcp +0 +0 0\.0\.0\.0:5001 +0\.0\.0\.0:\* +LISTEN/m);
  });

  it("tc: only where the image has it; no qdisc but noqueue without a fault", async () => {
    const none = await kn(["exec", time.metadata.name, "-c", APP, "--", "tc", "qdisc", "show"]);
    expect(none.exitCode).not.toBe(0);
    expect(none.stderr).toMatch(/exec: "tc": executable file not found in \$PATH/);
    const bb = await sh(kn, time.metadata.name, SIDECAR, ["tc", "qdisc", "show"]);
    expect(bb).toBe("qdisc noqueue 0: dev lo root refcnt 2 \nqdisc noqueue 0: dev eth0 root refcnt 2 ");
  });
});

describe("/sys/fs/cgroup is the container's cgroup", () => {
  it("limits as the kubelet sets them: cpu.max, memory.max, cpu.weight; no throttling when healthy", async () => {
    const [cpuMax, memMax, weight] = (
      await cat(
        kn,
        time.metadata.name,
        APP,
        "/sys/fs/cgroup/cpu.max",
        "/sys/fs/cgroup/memory.max",
        "/sys/fs/cgroup/cpu.weight",
      )
    ).split("\n");
    // limits 500m and 2000Mi; request 100m = 102 shares = weight 4
    expect([cpuMax, memMax, weight]).toEqual(["50000 100000", String(2000 * 1024 * 1024), "4"]);
    const side = await cat(
      kn,
      time.metadata.name,
      SIDECAR,
      "/sys/fs/cgroup/cpu.max",
      "/sys/fs/cgroup/memory.max",
    );
    expect(side).toBe(`5000 100000\n${64 * 1024 * 1024}`);
    const ev = flatKeyed(await cat(kn, time.metadata.name, APP, "/sys/fs/cgroup/memory.events"));
    expect(ev).toEqual({ low: 0, high: 0, max: 0, oom: 0, oom_kill: 0, oom_group_kill: 0 });
    expect(await cat(kn, time.metadata.name, APP, "/sys/fs/cgroup/memory.oom.group")).toBe("1");
    const procs = (await cat(kn, time.metadata.name, APP, "/sys/fs/cgroup/cgroup.procs")).trim().split("\n");
    expect(procs[0]).toBe("1");
  });

  it("cpu.stat grows at the rate kubectl top shows; memory.current is top's memory", async () => {
    const over = await cpuStatOver(kn, time.metadata.name, APP, 60, "; cat /sys/fs/cgroup/memory.current");
    const [s0, s1] = [over.a, over.b];
    const memory = Number(over.tail.filter(Boolean).at(-1));
    expect(Object.keys(s0)).toEqual([
      "usage_usec",
      "user_usec",
      "system_usec",
      "nr_periods",
      "nr_throttled",
      "throttled_usec",
      "nr_bursts",
      "burst_usec",
    ]);
    expect(s0.user_usec + s0.system_usec).toBe(s0.usage_usec);
    const milli = over.milli;
    const top = topRows((await kn(["top", "pod", time.metadata.name, "--containers"])).stdout).find(
      (r) => r.container === APP,
    )!;
    expect(milli).toBeGreaterThan(0);
    expect(Math.abs(milli - top.cpu)).toBeLessThanOrEqual(Math.max(3, top.cpu * 0.3));
    expect(Math.abs(memory / 1048576 - top.memMi)).toBeLessThan(top.memMi * 0.1 + 1);
    // a few millicores under a 500m quota: the period timer runs now and then, never out of quota
    expect(s1.nr_periods).toBeGreaterThan(s0.nr_periods);
    expect(s1.nr_periods - s0.nr_periods).toBeLessThan(600);
    expect(s1.nr_throttled).toBe(0);
    expect(s1.throttled_usec).toBe(0);
  });
});
