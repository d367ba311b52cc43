// A container's `date` follows the cluster clock, also across a command that takes cluster time
// (a dd under IOChaos latency), with GNU date's %N and %3N, so a script that times itself (as
// the reference's IO check does with `date +%s%3N`) measures what the simulation did; and images
// carry the executables of their base distribution (/bin/sh, /bin/date, /usr/bin/env in Debian;
// BusyBox's applets in /bin; nothing in a distroless image).
// GNU date: https://www.gnu.org/software/coreutils/manual/html_node/Time-conversion-specifiers.html
// (%N nanoseconds; a field width on %N keeps that many leading digits: %3N milliseconds).
// Debian 12 merges /usr (https://wiki.debian.org/UsrMerge): /bin is a link to /usr/bin.
import { beforeAll, describe, expect, it } from "vitest";
import type { KObject } from "../../../src/sim/core/types.js";
import { deploy, type Sim } from "../helpers/topology.js";

let sim: Sim;
let hello: KObject;
let debian: KObject;
let distroless: KObject;

beforeAll(() => {
  sim = deploy("simple-micro", "dates");
  sim.advance(20_000);
  hello = sim.pod("hello-service");
  debian = sim.addPod("deb", [{ name: "deb", image: "python:3.12-slim", command: ["sleep", "infinity"] }]);
  distroless = sim.addPod("dl", [{ name: "dl", image: "gcr.io/distroless/static:nonroot" }]);
});

describe("date", () => {
  it("prints the cluster clock in GNU formats, %N and %3N included", async () => {
    const now = sim.clock.now();
    const r = await sim.exec(debian, ["date", "+%s %3N %N %Y-%m-%dT%H:%M:%S %-d %j"]);
    const [s, ms, ns, iso, day, yday] = r.out.trim().split(" ");
    expect(Number(s)).toBe(Math.floor(now / 1000));
    expect(ms).toBe(String(now % 1000).padStart(3, "0"));
    expect(ns).toBe(`${ms}000000`);
    expect(iso).toBe(new Date(now).toISOString().slice(0, 19));
    expect(day).toBe(String(new Date(now).getUTCDate()));
    expect(yday).toMatch(/^\d{3}$/);
    expect((await sim.exec(debian, ["date", "-d", "@0", "+%F %T"])).out).toBe("1970-01-01 00:00:00\n");
    expect((await sim.exec(debian, ["date", "-u", "-d", "2026-01-02T03:04:05Z", "+%s"])).out).toBe(
      "1767323045\n",
    );
  });

  it("advances by the cluster time a dd under IOChaos latency takes", async () => {
    sim.inject(
      hello,
      {
        kind: "io",
        action: "latency",
        volumePath: "/var/log/mysql",
        path: "/var/log/mysql/**/*",
        delayMs: 5000,
        percent: 50,
      },
      "IOChaos/dates/io",
    );
    const script =
      "s=$(date +%s%3N); dd if=/dev/zero of=/var/log/mysql/probe bs=1M count=10 oflag=direct 2>/tmp/dd.err; e=$(date +%s%3N); echo $((e - s)); cat /tmp/dd.err";
    const r = await sim.exec(hello, ["sh", "-c", script]);
    sim.cluster.ctx.faults.remove("IOChaos/dates/io");
    const [elapsedMs, , , summary] = r.out.trim().split("\n");
    const ddSeconds = Number(summary.match(/copied, ([\d.]+) s/)?.[1]);
    expect(ddSeconds).toBeGreaterThan(5);
    // the script's own measure agrees with dd's to the millisecond of rounding
    expect(Math.abs(Number(elapsedMs) / 1000 - ddSeconds)).toBeLessThan(0.01);
  });
});

describe("the executables an image has", () => {
  it("Debian-based: /bin/sh, /bin/date and /usr/bin/env exist and run by path", async () => {
    const r = await sim.exec(debian, [
      "sh",
      "-c",
      "ls /bin/sh /bin/date /usr/bin/env && test -e /bin/bash && echo ok",
    ]);
    expect(r.out).toBe("/bin/sh\n/bin/date\n/usr/bin/env\nok\n");
    expect((await sim.exec(debian, ["/usr/bin/env", "/bin/date", "+%Y"])).out).toMatch(/^\d{4}\n$/);
  });

  it("BusyBox: the applets are in /bin, env in /usr/bin, no bash", async () => {
    const r = await sim.exec(
      hello,
      ["sh", "-c", "ls /bin/sh /bin/date /usr/bin/env; test -e /bin/bash || echo nobash"],
      "sidecar-busybox",
    );
    expect(r.out).toBe("/bin/sh\n/bin/date\n/usr/bin/env\nnobash\n");
  });

  it("distroless: no shell to exec", async () => {
    const r = await sim.exec(distroless, ["sh", "-c", "ls /bin"]);
    expect(r.code).toBe(127);
    expect(r.err).toBe(
      'OCI runtime exec failed: exec failed: unable to start container process: exec: "sh": executable file not found in $PATH: unknown\n',
    );
  });
});
