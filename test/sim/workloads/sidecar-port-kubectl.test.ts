// The expert tier's sidecar-port, through real kubectl on Simple-Micro and Online-Boutique:
// chaos/expert/sidecar-port.yaml adds a BusyBox sidecar running `nc -lk -p <port> -e cat`, which
// starts at once and binds the application's port; the application opens its port only when its
// start-up ends, finds it taken (EADDRINUSE: one socket per port in the pod's network namespace)
// and exits with its runtime's own words, in a restart loop, while the sidecar keeps running.
//
// The words (src/sim/stages/toolboxes.yaml bindFailures): time-service's ThreadingHTTPServer
// raises CPython's `OSError: [Errno 98] Address already in use` from socketserver.server_bind
// (exit 1); productcatalogservice's `net.Listen("tcp", ":3550")` error under logrus' Fatal
// (microservices-demo v0.3.8 server.go: `log.Fatal(err)`, exit 1); cartservice's Kestrel throws
// IOException "Failed to bind to address" out of Program.cs's Run() (an unhandled .NET exception
// aborts: 134). BusyBox's nc holds the port (netstat shows it); a second nc on the same port
// fails as its xbind does: "nc: bind: Address already in use".
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestCluster, type TestCluster } from "../../helpers/cluster.js";
import { deploySystem, eventually, isReady, type Kn, kubectlIn, type Pod } from "../helpers/failures.js";
import { curlUntil, eventsShow, onePod, patchWith, statusOf, undo } from "../helpers/lifecycle.js";
import { debugPod } from "../helpers/network.js";

let t: TestCluster;

beforeAll(async () => {
  t = await startTestCluster(60, 51);
}, 60_000);
afterAll(() => t?.stop());

/** The app's pod once its main container has crashed `n` times. */
const crashed = (kn: Kn, app: string, container: string, n = 2) =>
  onePod(kn, app, (p: Pod) => (statusOf(p, container)?.restartCount ?? 0) >= n);

describe("Simple-Micro: a sidecar takes time-service's port", () => {
  const NS = "sidecar-sm";
  let kn: Kn;

  beforeAll(async () => {
    kn = kubectlIn(t, NS);
    await deploySystem(t, "simple-micro", NS);
  }, 180_000);

  it("the app exits with Python's EADDRINUSE traceback in a CrashLoopBackOff, the sidecar runs; undone: healthy", async () => {
    const curl = await debugPod(kn);
    const r = await patchWith(t, kn, "time-service", "sidecar-port", { port: "5001" });
    expect(r.exitCode, r.stderr).toBe(0);
    const pod = await crashed(kn, "time-service", "time-service");
    const name = pod.metadata.name;
    expect(statusOf(pod, "time-service")?.lastState?.terminated).toMatchObject({
      reason: "Error",
      exitCode: 1,
    });
    expect(statusOf(pod, "metrics-exporter")).toMatchObject({ ready: true, restartCount: 0 });
    expect(statusOf(pod, "metrics-exporter")?.state?.running).toBeDefined();
    const events = await eventsShow(kn, name, /BackOff/);
    expect(events).toMatch(/Back-off restarting failed container time-service in pod/);
    await curlUntil(kn, curl, "http://hello-service:5000/hello", (a) => a.code === "503");
    const prev = await kn(["logs", name, "-c", "time-service", "--previous"]);
    const lines = prev.stdout.trim().split("\n");
    expect(lines[0]).toMatch(/\[INFO\] time-service: starting time-service on port 5001$/);
    expect(lines.slice(1)).toEqual([
      "Traceback (most recent call last):",
      '  File "<string>", line 36, in <module>',
      '  File "/usr/local/lib/python3.9/socketserver.py", line 452, in __init__',
      "    self.server_bind()",
      '  File "/usr/local/lib/python3.9/http/server.py", line 137, in server_bind',
      "    socketserver.TCPServer.server_bind(self)",
      '  File "/usr/local/lib/python3.9/socketserver.py", line 466, in server_bind',
      "    self.socket.bind(self.server_address)",
      "OSError: [Errno 98] Address already in use",
    ]);
    // the pod's network namespace: nc holds 5001 (its process is in another container: "-")
    const ns = await kn(["exec", name, "-c", "sidecar-busybox", "--", "netstat", "-tlnp"]);
    expect(ns.stdout).toMatch(/tcp\s+0\s+0 0\.0\.0\.0:5001\s+0\.0\.0\.0:\*\s+LISTEN\s+-/);
    const own = await kn(["exec", name, "-c", "metrics-exporter", "--", "netstat", "-tlnp"]);
    expect(own.stdout).toMatch(/0\.0\.0\.0:5001\s+0\.0\.0\.0:\*\s+LISTEN\s+\d+\/nc/);
    // a second listener on the port fails as BusyBox's xbind does
    const again = await kn(["exec", name, "-c", "sidecar-busybox", "--", "nc", "-l", "-p", "5001"]);
    expect(again.exitCode).not.toBe(0);
    expect(again.stderr).toContain("nc: bind: Address already in use");
    // between its tries `get pods` shows the back-off, with two of three containers ready
    await eventually(kn, ["get", "pod", name, "--no-headers"], (o) => /\s2\/3\s+CrashLoopBackOff\s/.test(o));
    await undo(kn, "time-service");
    const healthy = await onePod(kn, "time-service", isReady);
    expect(healthy.spec.containers.map((c) => c.name)).toEqual(["time-service", "sidecar-busybox"]);
    await curlUntil(kn, curl, "http://hello-service:5000/hello", (a) => a.code === "200");
  }, 240_000);
});

describe("Online-Boutique: the Go and .NET services' own words", () => {
  const NS = "sidecar-ob";
  let kn: Kn;

  beforeAll(async () => {
    kn = kubectlIn(t, NS);
    await deploySystem(t, "online-boutique", NS);
  }, 240_000);

  it("productcatalogservice: logrus' fatal line with Go's listen error, exit 1", async () => {
    const r = await patchWith(t, kn, "productcatalogservice", "sidecar-port", { port: "3550" });
    expect(r.exitCode, r.stderr).toBe(0);
    const pod = await crashed(kn, "productcatalogservice", "server");
    expect(statusOf(pod, "server")?.lastState?.terminated).toMatchObject({ reason: "Error", exitCode: 1 });
    const prev = await kn(["logs", pod.metadata.name, "-c", "server", "--previous"]);
    expect(prev.stdout.trim().split("\n").pop()).toMatch(
      /^\{"message":"listen tcp :3550: bind: address already in use","severity":"fatal","timestamp":"[^"]+"\}$/,
    );
    await undo(kn, "productcatalogservice");
  }, 240_000);

  it("cartservice: Kestrel's unhandled IOException aborts the process (134)", async () => {
    const r = await patchWith(t, kn, "cartservice", "sidecar-port", { port: "7070" });
    expect(r.exitCode, r.stderr).toBe(0);
    const pod = await crashed(kn, "cartservice", "server");
    expect(statusOf(pod, "server")?.lastState?.terminated).toMatchObject({ reason: "Error", exitCode: 134 });
    const prev = await kn(["logs", pod.metadata.name, "-c", "server", "--previous"]);
    expect(prev.stdout).toContain(
      "Unhandled exception. System.IO.IOException: Failed to bind to address http://[::]:7070: address already in use.",
    );
    expect(prev.stdout).toContain(
      " ---> Microsoft.AspNetCore.Connections.AddressInUseException: Address already in use",
    );
    await undo(kn, "cartservice");
  }, 240_000);
});
