// What `kubectl exec <pod> -- ...` may run, rule by rule: the read-only forms of tc and mount
// that show a NetworkChaos's netem and an IOChaos's FUSE mount, the reads of /proc and
// /sys/fs/cgroup, and the refusals that say what to write instead.
import { describe, expect, it } from "vitest";
import { checkExec, EXEC_ALLOWED, EXEC_RULES } from "../../src/probe/exec-rules.js";

const check = (command: string) => checkExec(command.split(" "), "shop");

describe("tc lists qdiscs and changes none", () => {
  it.each([
    "tc qdisc show",
    "tc qdisc",
    "tc qdisc list",
    "tc qdisc ls",
    "tc -s qdisc show",
    "tc -s qdisc show dev eth0",
    "tc -stats -d qdisc show dev lo",
    "/sbin/tc qdisc show",
    "/usr/sbin/tc -s qdisc show",
  ])("%s runs", (command) => {
    expect(check(command)).toBeUndefined();
  });

  // iproute2 reads words by prefix: `tc qdisc l` is link, `tc m` monitor (never ends), `tc e` exec
  it.each([
    "tc qdisc add dev eth0 root netem delay 100ms",
    "tc qdisc del dev eth0 root",
    "tc qdisc change dev eth0 root netem delay 1ms",
    "tc qdisc replace dev eth0 root netem loss 0%",
    "tc qdisc l",
    "tc q show",
    "tc monitor",
    "tc exec bpf graft m:globals/jmp_tc key 0 obj foo.o",
    "tc -batch /tmp/cmds",
    "tc -force qdisc show",
    "tc class show dev eth0",
    "tc qdisc show dev",
    "tc qdisc show dev eth0 root",
    "tc",
  ])("%s is refused with the form that lists", (command) => {
    expect(check(command)).toBe(
      "exec tc: tc may only list qdiscs: tc [-s] qdisc show [dev <device>] (changing them needs NET_ADMIN, which no probe has)",
    );
  });
});

describe("mount lists the mounts and mounts nothing", () => {
  it.each([
    "mount",
    "mount -l",
    "mount -t fuse",
    "mount -tfuse",
    "mount --types=overlay",
    "mount -l -t tmpfs",
  ])("%s runs", (command) => {
    expect(check(command)).toBeUndefined();
  });

  it.each([
    "mount -o remount,rw /",
    "mount /dev/sda1 /mnt",
    "mount /mnt",
    "mount -a",
    "mount --bind /etc /mnt",
    "mount -t tmpfs none /mnt",
    "mount --move /var/log/mysql /tmp",
  ])("%s is refused with the forms that list", (command) => {
    expect(check(command)).toBe(
      "exec mount: mount may only list the mounts here: mount [-l] [-t <type>] (lists the mounts; cat /proc/mounts too)",
    );
  });
});

describe("the kernel's read-only files", () => {
  it.each([
    "cat /proc/mounts",
    "cat /proc/self/mountinfo",
    "cat /proc/1/status",
    "cat /proc/1/cmdline",
    "cat /proc/net/dev",
    "cat /sys/fs/cgroup/memory.current",
    "cat /sys/fs/cgroup/memory.max",
    "cat /sys/fs/cgroup/cpu.max",
    "cat /sys/fs/cgroup/cpu.stat",
    "ls /proc",
    "head -n 5 /proc/net/dev",
    "grep VmRSS /proc/1/status",
  ])("%s runs", (command) => {
    expect(check(command)).toBeUndefined();
  });
});

describe("refusals say what may run instead", () => {
  it("a program off the list gets every rule's usage", () => {
    const why = check("ip route") as string;
    expect(why).toBe(
      `exec ip is refused: it is not on the read-only list; read-only exec commands: ${EXEC_ALLOWED}`,
    );
    for (const rule of Object.values(EXEC_RULES)) expect(why).toContain(rule.usage);
  });

  it("a program from another folder is refused, with the folders that are allowed", () => {
    expect(check("/tmp/tc qdisc show")).toBe(
      "exec /tmp/tc: run tc by name, or from /bin, /usr/bin, /sbin, /usr/sbin, /usr/local/bin, not from /tmp",
    );
  });

  it("names that are properties of every object are not rules", () => {
    for (const name of ["constructor", "toString", "__proto__", "hasOwnProperty"])
      expect(check(`${name} x`)).toContain("is not on the read-only list");
  });

  it("ping states its bounds", () => {
    expect(check("ping -c 20 checkout")).toContain("N from 1 to 10");
    expect(check("ping -c 3 -i 0.1 checkout")).toBe(
      "exec ping: ping -i below 0.2 s floods; use -i 0.2 or more",
    );
    expect(check("ping -c 3 -w 60 checkout")).toBe("exec ping: ping -w must be 30 s or less");
    expect(check("ping -c 3 -i 0.2 -w 30 checkout")).toBeUndefined();
  });
});
