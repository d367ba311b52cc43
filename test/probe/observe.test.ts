// What a model reads through the probe (createProbe, as ThinkRemed's probe_system runs it) with
// the real kubectl on the embedded cluster, for the limits its contract states:
// stderr merged into a pipe with 2>&1, a long `get -o yaml` cut head-and-tail with the count of
// lines cut, and the read-only tc, mount, /proc and cgroup files that show a fault from inside the
// pod (tc under the shipped NetworkChaos delay template). The pod is busybox, whose tc and mount
// are BusyBox's applets.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createProbe, type Probe } from "../../src/probe/index.js";
import { startTestCluster, type TestCluster } from "../helpers/cluster.js";
import { eventually, type Kn, kubectlIn, template } from "../sim/helpers/failures.js";

const NS = "shop";
const MAX_OUTPUT = 8000;
let t: TestCluster;
let kn: Kn;
let probe: Probe;

beforeAll(async () => {
  t = await startTestCluster(20);
  kn = kubectlIn(t, NS);
  await t.kubectl(["create", "namespace", NS]);
  const pod = {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: "web", labels: { app: "web" } },
    spec: { containers: [{ name: "web", image: "busybox:1.36", command: ["sleep", "infinity"] }] },
  };
  // a ConfigMap whose YAML is a thousand lines, longer than one probe's output
  const text = Array.from({ length: 1000 }, (_, k) => `line ${k + 1}`).join("\n");
  const lines = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "lines" }, data: { text } };
  for (const obj of [pod, lines]) {
    const r = await kn(["create", "-f", "-"], JSON.stringify(obj));
    expect(r.exitCode, r.stderr).toBe(0);
  }
  await eventually(kn, ["get", "pod", "web", "--no-headers"], (o) => /\s1\/1\s+Running\s/.test(o));
  probe = createProbe({ kubeconfig: t.kubeconfig, namespace: NS, timeoutMs: 20_000, maxOutput: MAX_OUTPUT });
}, 60_000);

afterAll(() => t?.stop());

/** What one command printed, without the "$ command" line. */
const body = (out: string) => out.slice(out.indexOf("\n") + 1);

describe("2>&1 merges kubectl's stderr into the pipe", () => {
  it("describe of a missing pod: the error reaches grep with 2>&1 and |&, and only then", async () => {
    const plain = await probe("kubectl describe pod nosuch | grep -c NotFound");
    expect(body(plain)).toBe('0\nError from server (NotFound): pods "nosuch" not found\n[exit code 1]\n');
    for (const merge of ["2>&1 |", "|&"]) {
      const out = await probe(`kubectl describe pod nosuch ${merge} grep -c NotFound`);
      expect(out).toBe("$ kubectl -n shop describe pod nosuch 2>&1 | grep -c NotFound\n1\n[exit code 1]\n");
    }
  });

  it("describe of a pod with 2>&1 | tail: its Events, at the end", async () => {
    const out = body(await probe("kubectl describe pod web 2>&1 | tail -n 3")).split("\n");
    expect(out).toHaveLength(4);
    expect(out[0]).toMatch(/^ {2}Normal {2}Pulled +\S+ +kubelet +Successfully pulled image "busybox:1.36"/);
    expect(out[1]).toMatch(/^ {2}Normal {2}Created +\S+ +kubelet +Created container: web$/);
    expect(out[2]).toMatch(/^ {2}Normal {2}Started +\S+ +kubelet +Started container web$/);
    expect(out[3]).toBe("");
  });
});

describe("a long output keeps its head and its tail", () => {
  it("get -o yaml: the real first and last lines, and one line counting those cut", async () => {
    const whole = (await kn(["get", "cm", "lines", "-o", "yaml"])).stdout.trimEnd().split("\n");
    expect(whole.join("\n").length).toBeGreaterThan(MAX_OUTPUT);
    const shown = body(await probe("kubectl get cm lines -o yaml"))
      .trimEnd()
      .split("\n");
    const at = shown.findIndex((l) => l.startsWith("[… "));
    const note =
      /^\[… (\d+) of (\d+) lines \((\d+) characters\) cut from the middle; to see them, narrow the command: \| grep WORD .*\]$/.exec(
        shown[at],
      );
    expect(note, shown[at]).not.toBeNull();
    const [cutLines, total] = [Number(note?.[1]), Number(note?.[2])];
    const head = shown.slice(0, at);
    const tail = shown.slice(at + 1);
    expect(total).toBe(whole.length);
    expect(head.length + cutLines + tail.length).toBe(whole.length);
    expect(head).toEqual(whole.slice(0, head.length));
    expect(tail).toEqual(whole.slice(whole.length - tail.length));
    // the object's start and its metadata at the end are both there
    expect(head[0]).toBe("apiVersion: v1");
    expect(tail).toContain("kind: ConfigMap");
    expect(tail).toContain("  name: lines");
    expect([...head, ...tail].join("\n").length).toBeLessThanOrEqual(MAX_OUTPUT);
  });

  it("narrowed as the note says, it comes back whole", async () => {
    expect(body(await probe("kubectl get cm lines -o yaml | grep -c 'line '"))).toBe("1000\n");
    expect(body(await probe("kubectl get cm lines -o yaml | grep -A1 'line 500$'"))).toBe(
      "    line 500\n    line 501\n",
    );
  });
});

describe("inside the pod: tc, mount, /proc and the cgroup", () => {
  it("tc qdisc show: noqueue, the netem of a NetworkChaos delay while it lasts, noqueue again", async () => {
    const NOQUEUE = "qdisc noqueue 0: dev lo root refcnt 2 \nqdisc noqueue 0: dev eth0 root refcnt 2\n";
    expect(body(await probe("kubectl exec web -- tc qdisc show"))).toBe(NOQUEUE);
    const r = await kn(["apply", "-f", "-"], template("network-delay", NS, "web"));
    expect(r.exitCode, r.stderr).toBe(0);
    try {
      await eventually(
        kn,
        ["get", "networkchaos", "network-delay", "-o", "jsonpath={.status.conditions}"],
        (o) => /"type":"AllInjected","status":"True"|"status":"True","type":"AllInjected"/.test(o),
      );
      // BusyBox's tc decodes no netem options (networking/tc.c print_qdisc)
      expect(body(await probe("kubectl exec web -- tc qdisc show dev eth0"))).toBe(
        "qdisc netem 1: root refcnt 2 (options for netem)\n",
      );
    } finally {
      expect((await kn(["delete", "networkchaos", "network-delay", "--timeout=60s"])).exitCode).toBe(0);
    }
    expect(body(await probe("kubectl exec web -- tc qdisc show"))).toBe(NOQUEUE);
  }, 90_000);

  it("tc that changes a qdisc is refused with the form that lists, and nothing runs", async () => {
    const out = await probe("kubectl exec web -- tc qdisc add dev eth0 root netem delay 100ms");
    expect(body(out)).toBe(
      "refused: exec tc: tc may only list qdiscs: tc [-s] qdisc show [dev <device>] (changing them needs NET_ADMIN, which no probe has)\n",
    );
  });

  it("mount lists the mount table; mounting is refused", async () => {
    const table = (await kn(["exec", "web", "--", "cat", "/proc/mounts"])).stdout;
    expect(table).toMatch(/^overlay \/ overlay /);
    const out = body(await probe("kubectl exec web -- mount"));
    expect(out.split("\n")[0]).toMatch(/^overlay on \/ type overlay \(/);
    expect(out.trimEnd().split("\n")).toHaveLength(table.trimEnd().split("\n").length);
    for (const bad of ["mount -o remount,rw /", "mount /dev/sda1 /mnt"])
      expect(body(await probe(`kubectl exec web -- ${bad}`))).toMatch(
        /^refused: exec mount: mount may only list the mounts here: mount \[-l\] \[-t <type>\]/,
      );
  });

  it("cat reads /proc and /sys/fs/cgroup", async () => {
    expect(body(await probe("kubectl exec web -- cat /proc/mounts"))).toMatch(/^overlay \/ overlay /);
    expect(body(await probe("kubectl exec web -- cat /proc/1/status | grep Name"))).toBe("Name:\tsleep\n");
    // no limit set: the container's cgroup has none (cgroup-v2.rst, memory.max "max")
    expect(body(await probe("kubectl exec web -- cat /sys/fs/cgroup/memory.max"))).toBe("max\n");
    expect(body(await probe("kubectl exec web -- cat /sys/fs/cgroup/cpu.stat | head -n 1"))).toMatch(
      /^usage_usec \d+\n$/,
    );
  });
});
