import { describe, expect, it } from "vitest";
import { parseDd } from "../../src/verify/io.js";
import { handshakeRetried, handshakesRetried, parseCurlTimes, parsePing } from "../../src/verify/network.js";

describe("parsing what the checks run", () => {
  it("reads iputils and busybox ping summaries", () => {
    const iputils =
      "PING 10.42.0.7 (10.42.0.7) 56(84) bytes of data.\n\n--- 10.42.0.7 ping statistics ---\n3 packets transmitted, 3 received, 0% packet loss, time 2003ms\nrtt min/avg/max/mdev = 1000.101/1000.140/1000.181/0.032 ms\n";
    expect(parsePing(iputils)).toEqual({ transmitted: 3, received: 3, lossPercent: 0, avgMs: 1000.14 });
    const busybox =
      "--- 10.42.0.7 ping statistics ---\n3 packets transmitted, 1 packets received, 66% packet loss\nround-trip min/avg/max = 0.061/0.061/0.061 ms\n";
    expect(parsePing(busybox)).toEqual({ transmitted: 3, received: 1, lossPercent: 66, avgMs: 0.061 });
    expect(parsePing("3 packets transmitted, 0 received, 100% packet loss, time 2051ms\n")).toEqual({
      transmitted: 3,
      received: 0,
      lossPercent: 100,
      avgMs: undefined,
    });
    expect(parsePing("ping: bad address 'x'")).toBeUndefined();
  });

  // Linux resends an unanswered SYN after TCP_TIMEOUT_INIT (1 s, include/net/tcp.h), so over TCP a
  // lost packet shows as a handshake a second longer than the request's own round trip
  it("reads curl's connect and total times, and tells a retried handshake from a delay", () => {
    expect(parseCurlTimes("0.001250 0.003500")).toEqual({ connectMs: 1.25, totalMs: 3.5 });
    expect(parseCurlTimes("0.000000 5.001237")).toEqual({ connectMs: 0, totalMs: 5001.237 });
    expect(parseCurlTimes("curl: (7) Failed to connect")).toBeUndefined();
    expect(parseCurlTimes("")).toBeUndefined();
    // healthy, in-cluster
    expect(handshakeRetried({ connectMs: 1.2, totalMs: 3.5 })).toBe(false);
    // the SYN lost once: +1 s on the handshake only
    expect(handshakeRetried({ connectMs: 1001.3, totalMs: 1004.1 })).toBe(true);
    // lost twice (1 + 2 s), and the request's segment once as well (+200 ms RTO)
    expect(handshakeRetried({ connectMs: 3001, totalMs: 3204 })).toBe(true);
    // a 1000 ms delay slows the handshake and the request alike: no loss
    expect(handshakeRetried({ connectMs: 1000.4, totalMs: 2003.9 })).toBe(false);
    // a slow server makes the request long, not the handshake
    expect(handshakeRetried({ connectMs: 0.8, totalMs: 2500 })).toBe(false);
  });

  // at 50% loss a request can lose its SYN (+1 s) and its segment twice (+200 + 400 ms RTO): the
  // request's own round trip is then longer than the SYN's wait, but the run's others show the path's
  it("tells a retried handshake by the run's shortest round trip when the request was resent too", () => {
    const healthy = { connectMs: 1.1, totalMs: 2.6 };
    const both = { connectMs: 1001.2, totalMs: 1001.2 + 601.5 };
    expect(handshakeRetried(both)).toBe(false);
    expect(handshakesRetried([healthy, both, healthy])).toEqual([false, true, false]);
    // a 1000 ms delay on every request: none lost
    const delayed = [
      { connectMs: 1000.4, totalMs: 2003.9 },
      { connectMs: 1000.9, totalMs: 2002.1 },
      { connectMs: 1000.2, totalMs: 2001.7 },
    ];
    expect(handshakesRetried(delayed)).toEqual([false, false, false]);
    // a slow server: long requests, short handshakes
    expect(handshakesRetried([{ connectMs: 0.8, totalMs: 2500 }, healthy])).toEqual([false, false]);
    // every SYN lost once, the segments through: each handshake a second past the requests'
    const syns = [1, 2, 3].map((i) => ({ connectMs: 1000 + i, totalMs: 1003 + i }));
    expect(handshakesRetried(syns)).toEqual([true, true, true]);
    expect(handshakesRetried([])).toEqual([]);
  });

  it("reads GNU and busybox dd summaries in MB/s", () => {
    expect(
      parseDd(
        "10+0 records in\n10+0 records out\n10485760 bytes (10 MB, 10 MiB) copied, 0.0125 s, 839 MB/s\n",
      ),
    ).toBeCloseTo(838.86, 1);
    expect(
      parseDd(
        "10+0 records in\n10+0 records out\n10485760 bytes (10.0MB) copied, 25.003 seconds, 409.5KB/s\n",
      ),
    ).toBeCloseTo(0.42, 2);
    expect(parseDd("dd: can't open '/var/log/mysql/x': No such file or directory\n")).toBeUndefined();
  });
});
