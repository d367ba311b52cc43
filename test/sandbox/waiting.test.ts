// The API proxy's account of when the tools wait on the cluster (it drives the embedded clock:
// fast only while the agent waits on a watch, src/kube/time.ts). Fake timers: deterministic.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { isWatch } from "../../src/sandbox/api-proxy.js";
import { WaitTracker } from "../../src/sandbox/waiting.js";

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

describe("waiting on the cluster", () => {
  it("is a watch open with no event in the last moment", () => {
    const told: boolean[] = [];
    const w = new WaitTracker((on) => told.push(on), 50);
    w.opened();
    vi.advanceTimersByTime(1000);
    // an event: the client works on it
    w.event();
    vi.advanceTimersByTime(30);
    expect(w.waitedMs()).toBe(1000);
    // still watching after the grace: waiting again
    vi.advanceTimersByTime(20);
    vi.advanceTimersByTime(500);
    expect(w.waitedMs()).toBe(1500);
    // the last event, then the client closes the watch within the grace: not waiting meanwhile
    w.event();
    vi.advanceTimersByTime(40);
    w.closed();
    vi.advanceTimersByTime(1000);
    expect(w.waitedMs()).toBe(1500);
    expect(told).toEqual([true, false, true, false]);
  });

  it("counts overlapping watches once, and stops with the proxy", () => {
    const w = new WaitTracker(undefined, 50);
    w.opened();
    vi.advanceTimersByTime(100);
    w.opened();
    vi.advanceTimersByTime(100);
    w.closed();
    vi.advanceTimersByTime(100);
    w.stop();
    vi.advanceTimersByTime(100);
    expect(w.waitedMs()).toBe(300);
  });

  it("knows a watch request as client-go sends one", () => {
    expect(isWatch("/apis/apps/v1/namespaces/a/deployments?fieldSelector=x&watch=true")).toBe(true);
    expect(isWatch("/api/v1/watch/namespaces/a/pods")).toBe(true);
    expect(isWatch("/api/v1/namespaces/a/pods?limit=500")).toBe(false);
  });
});
