// The expert tier's readiness-bad and liveness-bad, through real kubectl on Simple-Micro and
// Online-Boutique: chaos/expert/{readiness,liveness}-bad.yaml applied with `kubectl patch
// --patch-file` (placeholders filled by hand), what an engineer reads (get pods, describe's
// events, endpoints, logs --previous, rollout status), then `rollout undo` back to healthy.
//
// The kubelet's prober (pkg/kubelet/prober/prober.go runProbe) probes the pod IP: httpGet is a
// GET whose 200-399 passes and any other status fails as "HTTP probe failed with statuscode: %d"
// (pkg/probe/http/http.go DoHTTPProbe), a client error as Go's net/http error text; tcpSocket a
// connect (pkg/probe/tcp/tcp.go DoTCPProbe: err.Error(), "dial tcp <ip>:<port>: connect: connection
// refused"); each failure is recorded as "%s probe failed: %s" (Unhealthy). A liveness failure
// past failureThreshold kills the container ("Container %s failed liveness probe, will be
// restarted", Killing); its restarts back off (BackOff). Who answers: time-service's Python serves
// /health and /time and answers 404 elsewhere; the frontend's Go mux answers "404 page not found";
// productcatalogservice speaks gRPC (HTTP/2) only, so an HTTP/1 GET reads its SETTINGS frame.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestCluster, type TestCluster } from "../../helpers/cluster.js";
import { deploySystem, eventually, isReady, type Kn, kubectlIn } from "../helpers/failures.js";
import {
  curlFrom,
  curlUntil,
  endpointsOf,
  eventsShow,
  onePod,
  patchWith,
  rolloutStatus,
  statusOf,
  undo,
} from "../helpers/lifecycle.js";
import { debugPod } from "../helpers/network.js";

let t: TestCluster;

beforeAll(async () => {
  t = await startTestCluster(60, 31);
}, 60_000);
afterAll(() => t?.stop());

describe("Simple-Micro: time-service's probes", () => {
  const NS = "probes-sm";
  let kn: Kn;
  let debug: string;
  const HELLO = "http://hello-service:5000/hello";

  beforeAll(async () => {
    kn = kubectlIn(t, NS);
    await deploySystem(t, "simple-micro", NS);
    debug = await debugPod(kn);
  }, 180_000);

  it("readiness on a path the app does not serve: its 404, never Ready, out of the endpoints, callers fail; undone: healthy", async () => {
    const r = await patchWith(t, kn, "time-service", "readiness-bad", {
      target_container: "time-service",
      probe_kind: "httpGet",
      probe_target: '{"path": "/ready", "port": 5001}',
    });
    expect(r.exitCode, r.stderr).toBe(0);
    // Recreate: the old pod goes first, the new one runs but is never Ready
    const pod = await onePod(
      kn,
      "time-service",
      (p) => statusOf(p, "time-service")?.state?.running !== undefined,
    );
    const events = await eventsShow(kn, pod.metadata.name, /Readiness probe failed/);
    expect(events).toMatch(
      /Warning\s+Unhealthy\s+.*Readiness probe failed: HTTP probe failed with statuscode: 404/,
    );
    expect(statusOf(pod, "time-service")?.ready).toBe(false);
    // listed as not ready, so kube-proxy sends nothing there
    expect(await endpointsOf(kn, "time-service")).toEqual({ ready: [], notReady: [pod.status!.podIP] });
    expect((await curlUntil(kn, debug, HELLO, (p) => p.code === "503")).body).toBe(
      '{"error": "time-service unavailable"}',
    );
    const status = await rolloutStatus(kn, "time-service", "5s");
    expect(status.exitCode).not.toBe(0);
    expect(status.stdout).toMatch(
      /Waiting for deployment "time-service" rollout to finish: 0 of 1 updated replicas are available/,
    );
    await undo(kn, "time-service");
    await curlUntil(kn, debug, HELLO, (p) => p.code === "200");
  }, 180_000);

  it("readiness on a port nothing listens on: connection refused", async () => {
    const r = await patchWith(t, kn, "time-service", "readiness-bad", {
      target_container: "time-service",
      probe_kind: "httpGet",
      probe_target: '{"path": "/health", "port": 5005}',
    });
    expect(r.exitCode, r.stderr).toBe(0);
    const pod = await onePod(
      kn,
      "time-service",
      (p) => !!p.status?.podIP && statusOf(p, "time-service")?.state?.running !== undefined,
    );
    const ip = pod.status!.podIP!.replaceAll(".", "\\.");
    const events = await eventsShow(kn, pod.metadata.name, /Readiness probe failed/);
    expect(events).toMatch(
      new RegExp(
        `Readiness probe failed: Get "http://${ip}:5005/health": dial tcp ${ip}:5005: connect: connection refused`,
      ),
    );
    await undo(kn, "time-service");
  }, 180_000);

  it("liveness on a port nothing listens on: killed and restarted in a loop, the app's own logs in --previous; undone: healthy", async () => {
    const r = await patchWith(t, kn, "time-service", "liveness-bad", {
      target_container: "time-service",
      probe_kind: "tcpSocket",
      probe_target: '{"port": 5005}',
    });
    expect(r.exitCode, r.stderr).toBe(0);
    const pod = await onePod(
      kn,
      "time-service",
      (p) => (statusOf(p, "time-service")?.restartCount ?? 0) >= 2,
    );
    const ip = pod.status!.podIP!.replaceAll(".", "\\.");
    const events = await eventsShow(kn, pod.metadata.name, /BackOff/);
    expect(events).toMatch(
      new RegExp(
        `Warning\\s+Unhealthy\\s+.*Liveness probe failed: dial tcp ${ip}:5005: connect: connection refused`,
      ),
    );
    expect(events).toMatch(
      /Normal\s+Killing\s+.*Container time-service failed liveness probe, will be restarted/,
    );
    expect(events).toMatch(/Warning\s+BackOff\s+.*Back-off restarting failed container time-service in pod/);
    const last = statusOf(pod, "time-service")?.lastState?.terminated;
    expect(last).toMatchObject({ reason: "Error", exitCode: 137 });
    // the application itself was fine: it served until it was killed
    const prev = await kn(["logs", pod.metadata.name, "-c", "time-service", "--previous"]);
    expect(prev.stdout).toMatch(/\[INFO\] time-service: time-service ready, listening on 0\.0\.0\.0:5001/);
    await undo(kn, "time-service");
    const healthy = await onePod(kn, "time-service", isReady);
    expect(statusOf(healthy, "time-service")?.restartCount).toBe(0);
  }, 180_000);
});

describe("Online-Boutique: the frontend's and a gRPC service's probes", () => {
  const NS = "probes-ob";
  let kn: Kn;

  beforeAll(async () => {
    kn = kubectlIn(t, NS);
    await deploySystem(t, "online-boutique", NS);
  }, 240_000);

  it("the frontend's readiness on a path its mux does not serve: Go's 404; the home page is gone; undone: healthy", async () => {
    const r = await patchWith(t, kn, "frontend", "readiness-bad", {
      target_container: "server",
      probe_kind: "httpGet",
      probe_target: '{"path": "/ready", "port": 8080}',
    });
    expect(r.exitCode, r.stderr).toBe(0);
    const pod = await onePod(kn, "frontend", (p) => statusOf(p, "server")?.state?.running !== undefined);
    const events = await eventsShow(kn, pod.metadata.name, /Readiness probe failed/);
    expect(events).toMatch(/Readiness probe failed: HTTP probe failed with statuscode: 404/);
    expect((await endpointsOf(kn, "frontend")).ready).toEqual([]);
    // the home page: kube-proxy rejects a Service without endpoints
    const home = await curlFrom(kn, await debugPod(kn), "http://frontend:80/");
    expect(home.stderr).toMatch(/curl: \(7\) Failed to connect to frontend port 80: Connection refused/);
    await undo(kn, "frontend");
  }, 240_000);

  it("a liveness httpGet on a gRPC port: Go's client reads an HTTP/2 SETTINGS frame, the container restarts", async () => {
    const r = await patchWith(t, kn, "productcatalogservice", "liveness-bad", {
      target_container: "server",
      probe_kind: "httpGet",
      probe_target: '{"path": "/healthz", "port": 3550}',
    });
    expect(r.exitCode, r.stderr).toBe(0);
    const pod = await onePod(
      kn,
      "productcatalogservice",
      (p) => (statusOf(p, "server")?.restartCount ?? 0) >= 1,
    );
    const ip = pod.status!.podIP!.replaceAll(".", "\\.");
    const events = await eventsShow(kn, pod.metadata.name, /Killing/);
    expect(events).toContain(
      `net/http: HTTP/1.x transport connection broken: malformed HTTP response "\\x00\\x00\\x06\\x04\\x00\\x00\\x00\\x00\\x00\\x00\\x05\\x00\\x00@\\x00"`,
    );
    expect(events).toMatch(new RegExp(`Liveness probe failed: Get "http://${ip}:3550/healthz": net/http`));
    await undo(kn, "productcatalogservice");
    await eventually(kn, ["get", "deploy", "productcatalogservice", "--no-headers"], (o) =>
      /\s1\/1\s/.test(o),
    );
  }, 240_000);
});
