// End to end with the real kubectl at --speed 60: simple-micro deployed from its manifests, then
// the reference's checks (ping from the busybox sidecar, dd into /var/log/mysql), the services'
// own log lines, and kubectl top.
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { packageRoot } from "../../../src/util/paths.js";
import { startCluster, type TestCluster } from "../helpers/exec.js";

let t: TestCluster;
const NS = "sm";
/** The fields of `kubectl get pods -o json` items these tests read. */
interface PodJson {
  metadata: { name: string; labels?: Record<string, string> };
  status: { podIP: string };
}
let pods: PodJson[];

const podOf = (app: string): PodJson => {
  const pod = pods.find((p) => p.metadata.labels?.app === app);
  if (!pod) throw new Error(`no pod of app ${app} in ${NS}`);
  return pod;
};

beforeAll(async () => {
  t = await startCluster(60);
  expect((await t.kubectl(["create", "namespace", NS])).exitCode).toBe(0);
  const apply = await t.kubectl([
    "apply",
    "-n",
    NS,
    "-f",
    join(packageRoot(), "envs", "simple-micro", "manifests.yaml"),
  ]);
  expect(apply.stderr).toBe("");
  const wait = await t.kubectl(["wait", "-n", NS, "--for=condition=Ready", "pod", "--all", "--timeout=60s"]);
  expect(wait.exitCode).toBe(0);
  pods = JSON.parse((await t.kubectl(["get", "pods", "-n", NS, "-o", "json"])).stdout).items;
}, 90_000);

afterAll(async () => {
  await t?.stop();
});

describe("simple-micro through kubectl", () => {
  it("ping from the sidecar to the other app's pod: 0% loss, sub-ms RTT", async () => {
    const target = podOf("time-service").status.podIP;
    const r = await t.kubectl([
      "exec",
      "-n",
      NS,
      podOf("hello-service").metadata.name,
      "-c",
      "sidecar-busybox",
      "--",
      "ping",
      "-c",
      "3",
      "-W",
      "2",
      target,
    ]);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toContain("3 packets transmitted, 3 packets received, 0% packet loss");
    expect(Number(r.stdout.match(/round-trip min\/avg\/max = [\d.]+\/([\d.]+)\//)![1])).toBeLessThan(1);
  });

  it("the main container has no ping (python:3.9-slim): exit 127", async () => {
    const r = await t.kubectl([
      "exec",
      "-n",
      NS,
      podOf("hello-service").metadata.name,
      "-c",
      "hello-service",
      "--",
      "ping",
      "-c",
      "1",
      "127.0.0.1",
    ]);
    expect(r.exitCode).not.toBe(0);
    expect(`${r.stdout}${r.stderr}`).toMatch(/executable file not found in \$PATH/);
  });

  it("dd into /var/log/mysql reaches at least 10 MB/s", async () => {
    const r = await t.kubectl([
      "exec",
      "-n",
      NS,
      podOf("time-service").metadata.name,
      "--",
      "dd",
      "if=/dev/zero",
      "of=/var/log/mysql/x",
      "bs=1M",
      "count=10",
      "oflag=direct",
    ]);
    expect(r.exitCode).toBe(0);
    const m = r.stderr.match(/10485760 bytes \(10 MB, 10 MiB\) copied, ([\d.]+) s, ([\d.]+) MB\/s/)!;
    expect(10485760 / Number(m[1]) / 1e6).toBeGreaterThanOrEqual(10);
  });

  it("kubectl logs shows the topology's startup and ready lines, then requests", async () => {
    const r = await t.kubectl([
      "logs",
      "-n",
      NS,
      podOf("hello-service").metadata.name,
      "-c",
      "hello-service",
    ]);
    const lines = r.stdout.trim().split("\n");
    // Python logging's asctime (basicConfig's %(asctime)s): "2026-11-28 06:03:01,369"
    expect(lines[0]).toMatch(
      /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} \[INFO\] hello-service: starting hello-service on port 5000, time source http:\/\/time-service:5001\/time$/,
    );
    expect(lines[1]).toMatch(/\[INFO\] hello-service: hello-service ready, listening on 0\.0\.0\.0:5000$/);
  });

  it("kubectl top pod: a few millicores and tens of Mi per pod", async () => {
    let out = "";
    for (let i = 0; i < 20 && !/hello-service/.test(out); i++) {
      out = (await t.kubectl(["top", "pod", "-n", NS, "--containers"])).stdout;
      if (!/hello-service/.test(out)) await new Promise((r) => setTimeout(r, 500));
    }
    const row = out.split("\n").find((l) => /^hello-service-\S+\s+hello-service\s/.test(l))!;
    const [, cpu, mem] = row.match(/\s(\d+)m\s+(\d+)Mi/)!.map(Number);
    expect(cpu).toBeGreaterThanOrEqual(2);
    expect(cpu).toBeLessThan(50);
    expect(mem).toBeGreaterThan(30);
    expect(mem).toBeLessThan(60);
  });
});
