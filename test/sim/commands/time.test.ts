// BusyBox's `time` applet (miscutils/time.c: default_format "real\t%E\nuser\t%u\nsys\t%T",
// posix_format "real %e\nuser %U\nsys %S" for -p): the user-facing check times busybox wget with
// it, so what it prints is the request's own time in cluster time, on the embedded cluster as on
// a pod of k3s. Images without BusyBox have no `time` program (bash's is a keyword).
import { beforeAll, describe, expect, it } from "vitest";
import type { Pod } from "../../../src/sim/core/objects.js";
import { deploy, type Sim } from "../helpers/topology.js";

let sim: Sim;
let hello: Pod;

beforeAll(() => {
  sim = deploy("simple-micro", "web");
  sim.advance(20_000);
  hello = sim.pod("hello-service");
});

describe("time", () => {
  it("-p prints the seconds a program took, after the program's own output", async () => {
    const r = await sim.exec(hello, ["time", "-p", "sleep", "2"], "sidecar-busybox");
    expect(r.code).toBe(0);
    expect(r.err).toBe("real 2.00\nuser 0.00\nsys 0.00\n");
  });

  it("prints minutes and seconds by default, and the program's exit code is its own", async () => {
    const r = await sim.exec(hello, ["time", "sh", "-c", "sleep 61; exit 3"], "sidecar-busybox");
    expect(r.code).toBe(3);
    expect(r.err).toBe("real\t1m 1.00s\nuser\t0m 0.00s\nsys\t0m 0.00s\n");
  });

  it("times a wget: the status line on stderr, then the request's time", async () => {
    const r = await sim.exec(
      hello,
      ["time", "-p", "wget", "-q", "-S", "-O", "/dev/null", "http://hello-service:5000/hello"],
      "sidecar-busybox",
    );
    expect(r.code).toBe(0);
    expect(r.err).toMatch(/^ {2}HTTP\/1\.0 200 OK\n[\s\S]*real 0\.\d\d\nuser 0\.00\nsys 0\.00\n$/);
  });

  // The clock also moves while the simulator works (at speed 600 a wall millisecond is 600 ms of
  // it): here it jumps 700 ms a turn of the event loop, so the command ends well after its sleeps;
  // a program's time is what it waited, as on a node
  it("counts the time the program waited, not the simulator's work", async () => {
    const r = await sim.exec(
      hello,
      ["time", "-p", "sh", "-c", "sleep 0.3; cat /etc/hostname | tr a b; (sleep 1) | sleep 2; x=$(sleep 1)"],
      "sidecar-busybox",
      700,
    );
    expect(r.code).toBe(0);
    expect(r.err).toBe("real 3.30\nuser 0.00\nsys 0.00\n");
  });

  it("does not exist in a Debian slim image", async () => {
    const r = await sim.exec(hello, ["time", "-p", "ls"], "hello-service");
    expect(r.code).toBe(127);
    expect(r.err).toContain('exec: "time": executable file not found in $PATH');
  });
});
