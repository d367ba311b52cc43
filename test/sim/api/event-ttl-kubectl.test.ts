// Events expire an hour after their last write, through real kubectl on a pinned clock. Checked
// against kubernetes' sources (v1.31): pkg/registry/core/event/storage/storage.go (TTLFunc: the
// event TTL on create and on update), cmd/kube-apiserver/app/options (--event-ttl, default 1h;
// k3s passes it unchanged), staging/src/k8s.io/apiserver/pkg/storage/etcd3/lease_manager.go
// (leases reused for 60 s: an event lives its TTL and up to a minute more).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ManualClock } from "../../../src/sim/core/clock.js";
import { ensureNamespace, startCluster, type TestCluster } from "../helpers/exec.js";

const NS = "ttl";
let t: TestCluster;
const clock = new ManualClock(Date.parse("2026-03-01T00:00:30Z"));

beforeAll(async () => {
  t = await startCluster(1, clock);
  ensureNamespace(t.c, NS);
});
afterAll(async () => {
  await t?.stop();
});

const event = (name: string, message: string) =>
  JSON.stringify({
    apiVersion: "v1",
    kind: "Event",
    metadata: { name },
    involvedObject: { kind: "Pod", name: "web", namespace: NS },
    reason: "Testing",
    message,
    type: "Normal",
  });

const names = async () =>
  (await t.kubectl(["get", "events", "-n", NS, "-o", "name"])).stdout.split("\n").filter(Boolean).sort();

describe("event TTL", () => {
  it("keeps an event an hour after its last write, then it is gone; a write starts its hour again", async () => {
    expect((await t.kubectl(["create", "-n", NS, "-f", "-"], event("old", "first"))).exitCode).toBe(0);
    clock.advance(30 * 60_000);
    expect((await t.kubectl(["create", "-n", NS, "-f", "-"], event("younger", "second"))).exitCode).toBe(0);
    clock.advance(20 * 60_000);
    // "old" written again 50 min after it was made: its hour counts from now
    const patched = await t.kubectl([
      "patch",
      "event",
      "old",
      "-n",
      NS,
      "--type",
      "merge",
      "-p",
      '{"count":2}',
    ]);
    expect(patched.exitCode, patched.stderr).toBe(0);
    clock.advance(42 * 60_000);
    // "younger" was last written 62 min ago: gone; "old" 42 min ago: kept
    expect(await names()).toEqual(["event/old"]);
    clock.advance(20 * 60_000);
    expect(await names()).toEqual([]);
  });
});
