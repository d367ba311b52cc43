// LogBook's --since-time: the kubelet returns the lines written at or after the given instant
// (kubernetes pkg/kubelet/kuberuntime/logs/logs.go, ReadLogs skips a line whose timestamp is before
// opts.since), an RFC 3339 wall time as kubectl's --since-time sends it.
import { describe, expect, it } from "vitest";
import { LogBook } from "../../../src/sim/context/logbook.js";
import { ManualClock } from "../../../src/sim/core/clock.js";
import type { KObject } from "../../../src/sim/core/types.js";

const pod = { apiVersion: "v1", kind: "Pod", metadata: { name: "p", uid: "u1" } } as KObject;

describe("LogBook sinceTime", () => {
  it("keeps the lines written at or after the instant, and all of them for a malformed one", () => {
    const clock = new ManualClock(Date.parse("2026-01-01T00:00:00Z"));
    const book = new LogBook(clock);
    book.append("u1", "c", "first");
    clock.advance(5000);
    book.append("u1", "c", "second");
    clock.advance(5000);
    book.append("u1", "c", "third");
    const since = (sinceTime: string) => book.logs({ pod, container: "c", sinceTime }).lines;
    expect(since("2026-01-01T00:00:05Z")).toEqual(["second", "third"]);
    expect(since("2026-01-01T00:00:06Z")).toEqual(["third"]);
    expect(since("2026-01-01T00:00:11Z")).toEqual([]);
    expect(since("not a time")).toEqual(["first", "second", "third"]);
    // sinceSeconds wins when both are given (kubectl sends one; the API validates at most one)
    expect(
      book.logs({ pod, container: "c", sinceSeconds: 1, sinceTime: "2026-01-01T00:00:00Z" }).lines,
    ).toEqual(["third"]);
  });
});
