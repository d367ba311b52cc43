// An exec probe's program is found where the image's Dockerfile put it: Online-Boutique's Python,
// Java and Node images download grpc_health_probe into /bin (microservices-demo v0.3.8
// src/emailservice/Dockerfile, src/adservice/Dockerfile, src/currencyservice/Dockerfile:
// `wget -qO/bin/grpc_health_probe .../grpc_health_probe-linux-amd64`), so while the service starts
// its readiness probe fails as grpc_health_probe prints it (grpc-ecosystem/grpc-health-probe
// main.go: "timeout: failed to connect service ... within 1s"), never with runc's "no such file"
// (opencontainers/runc libcontainer: `exec: "<path>": stat <path>: no such file or directory`),
// which an image without the program still answers.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ManualClock } from "../../../src/sim/core/clock.js";
import { ensureNamespace, podManifest, startCluster, type TestCluster } from "../helpers/exec.js";

const NS = "probes";
let t: TestCluster;
const clock = new ManualClock(Date.parse("2026-03-01T00:00:30Z"));

const probe = {
  exec: { command: ["/bin/grpc_health_probe", "-addr=:8080"] },
  periodSeconds: 5,
};

beforeAll(async () => {
  t = await startCluster(1, clock);
  ensureNamespace(t.c, NS);
});
afterAll(async () => {
  await t?.stop();
});

async function unhealthy(name: string, image: string): Promise<string[]> {
  const pod = JSON.stringify(
    podManifest(NS, name, [
      { name: "server", image, ports: [{ containerPort: 8080 }], readinessProbe: probe } as never,
    ]),
  );
  expect((await t.kubectl(["create", "-n", NS, "-f", "-"], pod)).exitCode).toBe(0);
  // through its start: the probe runs before the service listens
  for (let i = 0; i < 40; i++) {
    clock.advance(500);
    await new Promise((r) => setTimeout(r, 5));
  }
  const ev = await t.kubectl([
    "get",
    "events",
    "-n",
    NS,
    "--field-selector",
    `involvedObject.name=${name},reason=Unhealthy`,
    "-o",
    "jsonpath={range .items[*]}{.message}{'\\n'}{end}",
  ]);
  return ev.stdout.split("\n").filter(Boolean);
}

describe("an exec probe's program", () => {
  it("is the image's own where its Dockerfile added it: the probe fails as grpc_health_probe says", async () => {
    const msgs = await unhealthy(
      "emailservice",
      "gcr.m.daocloud.io/google-samples/microservices-demo/emailservice:v0.3.8",
    );
    expect(msgs.length).toBeGreaterThan(0);
    for (const m of msgs) {
      expect(m).not.toMatch(/no such file/);
      expect(m).toMatch(/^Readiness probe failed: timeout: failed to connect service ".*:8080" within 1s$/);
    }
  });

  it("is missing from an image that never had it: runc's stat error", async () => {
    const msgs = await unhealthy("plain", "python:3.9-slim");
    expect(msgs.length).toBeGreaterThan(0);
    expect(msgs[0]).toMatch(/stat \/bin\/grpc_health_probe: no such file or directory/);
  });
});
