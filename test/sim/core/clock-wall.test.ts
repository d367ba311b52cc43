// One clock: cluster time is what every timestamp shows, and it never runs ahead of the wall
// clock, so an age that kubectl computes from its own clock (describe, `kubectl events`) is never
// less than the time the cluster spent. A fast clock starts behind by its lead, gains on the wall
// clock at its speed, and once level follows the wall clock at speed 1 (docs/clock.md).
import { describe, expect, it } from "vitest";
import { defaultLead, microStamp, parseStamp, stamp, WallClock } from "../../../src/sim/core/clock.js";

const sleep = (ms: number) => new Promise((ok) => setTimeout(ok, ms));

describe("a clock behind the wall clock", () => {
  it("starts its lead behind, gains at its speed and never passes the wall clock", async () => {
    const before = Date.now();
    const clock = new WallClock(100, 2_000);
    const t0 = clock.now();
    const after = Date.now();
    // 2 s behind when made; by the read it may have gained 100 times the wall time in between
    // (a loaded machine's few milliseconds are a few hundred at speed 100)
    expect(t0).toBeLessThanOrEqual(after - 2_000 + 100 * (after - before));
    expect(t0).toBeGreaterThanOrEqual(before - 2_000);
    // 2 s of lead at speed 100: level with the wall clock after about 20 ms of wall time
    for (let i = 0; i < 40; i++) {
      await sleep(5);
      expect(clock.now()).toBeLessThanOrEqual(Date.now());
    }
    const level = clock.now();
    expect(Date.now() - level).toBeLessThan(50);
    expect(clock.stats().behindWallMs).toBeLessThan(50);
    // now at the wall clock's pace: 100 ms of wall time is about 100 ms of cluster time
    await sleep(100);
    const gained = clock.now() - level;
    expect(gained).toBeGreaterThanOrEqual(90);
    expect(gained).toBeLessThan(400);
  });

  it("runs a timer due past the wall clock when the wall clock reaches it, not before", async () => {
    const clock = new WallClock(1000, 0);
    const due = clock.now() + 80;
    const ranAt = await new Promise<number>((ok) => clock.after(80, () => ok(Date.now())));
    expect(ranAt).toBeGreaterThanOrEqual(due);
  });

  it("keeps its lead for the fast phases while slowed to speed 1", async () => {
    const clock = new WallClock(60, 3_600_000);
    clock.setSpeed(1);
    const behind = clock.stats().behindWallMs;
    await sleep(100);
    expect(Math.abs(clock.stats().behindWallMs - behind)).toBeLessThan(50);
  });

  it("gives no lead at speed 1 and half an hour of wall time's worth when faster", () => {
    expect(defaultLead(1)).toBe(0);
    expect(defaultLead(60)).toBe(59 * 30 * 60_000);
  });
});

describe("a clock re-based between cases (showLead)", () => {
  it("moves every shown instant alike and leaves the engine's time and timers as they were", async () => {
    const clock = new WallClock(1, 0);
    const moved: number[] = [];
    clock.onShift((d) => moved.push(d));
    const t = clock.now();
    const written = stamp(clock, t);
    let fired = 0;
    clock.after(50, () => fired++);
    const delta = clock.showLead(3_600_000);
    expect(moved).toEqual([delta]);
    expect(delta).toBeLessThan(-3_590_000);
    // shown: an hour behind the wall clock; the engine goes on from where it was
    expect(Date.now() - clock.toWall(clock.now())).toBeGreaterThanOrEqual(3_600_000 - 50);
    expect(clock.now()).toBeGreaterThanOrEqual(t);
    expect(clock.now() - t).toBeLessThan(50);
    // a stamp written before reads back only once moved with the rest (as the store's are)
    expect(Math.abs(parseStamp(clock, written) - t)).toBeGreaterThan(3_500_000);
    expect(Math.abs(parseStamp(clock, stamp(clock, t)) - t)).toBeLessThan(1000);
    await sleep(80);
    expect(fired).toBe(1);
  });

  it("lets a fast clock gain the new lead and no more: shown time never passes the wall clock", async () => {
    const clock = new WallClock(100, 0);
    clock.showLead(2_000);
    for (let i = 0; i < 40; i++) {
      await sleep(5);
      expect(clock.toWall(clock.now())).toBeLessThanOrEqual(Date.now());
    }
    expect(clock.stats().behindWallMs).toBeLessThan(50);
  });
});

describe("timestamps", () => {
  // apimachinery pkg/apis/meta/v1/time.go: Time.MarshalJSON writes t.UTC().Format(time.RFC3339);
  // micro_time.go: MicroTime writes RFC3339Micro, "2006-01-02T15:04:05.000000Z07:00"
  it("writes whole seconds for metav1.Time and microseconds for MicroTime at any speed", () => {
    const ms = Date.parse("2026-11-28T15:58:41.603Z");
    expect(stamp(new WallClock(60, 60_000), ms)).toBe("2026-11-28T15:58:41Z");
    expect(stamp(new WallClock(1), ms)).toBe("2026-11-28T15:58:41Z");
    expect(microStamp(ms)).toBe("2026-11-28T15:58:41.603000Z");
  });
});
