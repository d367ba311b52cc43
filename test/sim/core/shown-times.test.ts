// What moves when the clock is re-based (src/sim/core/shown-times.ts): the instants an object
// shows, each in its precision (apimachinery meta/v1 time.go whole seconds, micro_time.go
// microseconds), and nothing a user asked for: a spec's template (its restartedAt annotation is
// hashed into pod-template-hash, pkg/controller/controller_utils.go ComputeHash) and a
// ConfigMap's data stay as written.
import { describe, expect, it } from "vitest";
import { moveShownTimes, moveStamp } from "../../../src/sim/core/shown-times.js";
import type { KObject } from "../../../src/sim/core/types.js";

const H = 3_600_000;

describe("moveStamp", () => {
  it("moves whole seconds, milli- and microseconds in their own precision", () => {
    expect(moveStamp("2026-11-29T10:00:00Z", -H)).toBe("2026-11-29T09:00:00Z");
    expect(moveStamp("2026-11-29T10:00:00.123456Z", 1500)).toBe("2026-11-29T10:00:01.623456Z");
    expect(moveStamp("2026-11-29T10:00:00.5Z", 250)).toBe("2026-11-29T10:00:00.7Z");
    expect(moveStamp("not a time", H)).toBe("not a time");
    expect(moveStamp("2026-11-29 10:00:00", H)).toBe("2026-11-29 10:00:00");
  });
});

describe("moveShownTimes", () => {
  it("moves metadata and status, and keeps the spec and the data as asked", () => {
    const at = "2026-11-29T10:00:00Z";
    const d = {
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: {
        name: "web",
        creationTimestamp: at,
        annotations: { "kubectl.kubernetes.io/last-applied-configuration": "{}", seen: at },
        managedFields: [{ manager: "kubectl", time: at }],
      },
      spec: { template: { metadata: { annotations: { "kubectl.kubernetes.io/restartedAt": at } } } },
      status: { conditions: [{ type: "Available", lastTransitionTime: at, lastUpdateTime: at }] },
    } as unknown as KObject;
    const m = moveShownTimes(d, -H) as unknown as typeof d & Record<string, never>;
    const later = "2026-11-29T09:00:00Z";
    expect(m.metadata.creationTimestamp).toBe(later);
    expect(m.metadata.annotations).toEqual({
      "kubectl.kubernetes.io/last-applied-configuration": "{}",
      seen: later,
    });
    expect((m.metadata.managedFields as { time: string }[])[0].time).toBe(later);
    expect(JSON.stringify((m as unknown as { spec: unknown }).spec)).toContain(at);
    expect(JSON.stringify((m as unknown as { status: unknown }).status)).not.toContain(at);
    const cm = {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "c" },
      data: { when: at },
    } as KObject;
    expect(moveShownTimes(cm, H)).toBeUndefined();
  });

  it("moves an Event's own times and a Lease's renew time, not the object it is about", () => {
    const at = "2026-11-29T10:00:00Z";
    const ev = {
      apiVersion: "v1",
      kind: "Event",
      metadata: { name: "e", creationTimestamp: at },
      involvedObject: { name: at },
      firstTimestamp: at,
      lastTimestamp: at,
      series: { lastObservedTime: "2026-11-29T10:00:00.000000Z" },
    } as unknown as KObject;
    const e = moveShownTimes(ev, 60_000) as unknown as Record<string, unknown>;
    expect(e.firstTimestamp).toBe("2026-11-29T10:01:00Z");
    expect(e.series).toEqual({ lastObservedTime: "2026-11-29T10:01:00.000000Z" });
    expect(e.involvedObject).toEqual({ name: at });
    const lease = {
      apiVersion: "coordination.k8s.io/v1",
      kind: "Lease",
      metadata: { name: "n" },
      spec: { renewTime: "2026-11-29T10:00:00.000000Z" },
    } as unknown as KObject;
    expect((moveShownTimes(lease, 60_000) as unknown as { spec: unknown }).spec).toEqual({
      renewTime: "2026-11-29T10:01:00.000000Z",
    });
  });
});
