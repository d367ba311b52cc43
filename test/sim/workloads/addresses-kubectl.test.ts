// Where hello-service's calls go, driven as the harness and a model see it: real kubectl against
// Simple-Micro on the embedded cluster, the user-facing request (curl /hello from a pod of the
// namespace), hello-service's logs, `kubectl get endpoints`. Each change is made, its symptoms
// read, and undone; the healthy state returns.
//
// The application (envs/simple-micro/manifests.yaml, hello-service's Python):
//   TIME_URL = "http://%s/time" % os.environ.get("TIME_SERVICE_ADDR", "time-service:5001")
//   urllib.request.urlopen(TIME_URL, timeout=3); on an exception it logs
//   log.error("GET %s failed after %dms: %s", TIME_URL, took, err) and answers 503
//   {"error": "time-service unavailable"}.
// The kubelet composes the environment once per container (kubelet_pods.go
// makeEnvironmentVariables: env entries in order, a later one of the same name replacing the
// earlier); kube-proxy (iptables) sends a ClusterIP's port to a ready endpoint on its targetPort,
// REJECTs a Service without endpoints ("has no endpoints") and has no rule for a port the Service
// lacks; CoreDNS answers NXDOMAIN for a Service that is gone.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestCluster, type TestCluster } from "../../helpers/cluster.js";
import { deploySystem, eventually, type Kn, kubectlIn } from "../helpers/failures.js";
import { curl, debugPod, logsShow, nowStamp, pageUntil, readyPod } from "../helpers/network.js";

const NS = "addresses";
const HELLO = "http://hello-service:5000/hello";
let t: TestCluster;
let kn: Kn;
let debug: string;

const ok = (p: { code: string }) => p.code === "200";
const unavailable = (p: { code: string; body: string }) =>
  p.code === "503" && p.body === '{"error": "time-service unavailable"}';
/** hello-service's log line for a failed call to the address it dialled. */
const failed = (addr: string, why: string) =>
  new RegExp(`\\[ERROR\\] hello-service: GET http://${addr}/time failed after \\d+ms: ${why}$`);

async function rolledOut(deploy: string) {
  const r = await kn(["rollout", "status", `deployment/${deploy}`, "--timeout=90s"]);
  expect(r.exitCode, r.stderr).toBe(0);
}

beforeAll(async () => {
  t = await startTestCluster(60, 21);
  kn = kubectlIn(t, NS);
  await deploySystem(t, "simple-micro", NS);
  debug = await debugPod(kn);
}, 180_000);
afterAll(() => t?.stop());

describe("the address comes from the caller's environment", () => {
  it("healthy: /hello answers with time-service's time", async () => {
    const p = await pageUntil(kn, debug, HELLO, ok);
    expect(p.body).toMatch(/^\{"message": "Hello from simple-micro!", "time": "[^"]+"\}$/);
  }, 60_000);

  it("a port the Service lacks: the connect times out (no kube-proxy rule), urlopen gives up after 3 s, 503; undone: healthy", async () => {
    const since = nowStamp(t);
    const r = await kn(["set", "env", "deployment/hello-service", "TIME_SERVICE_ADDR=time-service:5002"]);
    expect(r.exitCode, r.stderr).toBe(0);
    await rolledOut("hello-service");
    const p = await pageUntil(kn, debug, HELLO, unavailable);
    // the handler waits urlopen's timeout=3 before it answers
    expect(p.secs).toBeGreaterThanOrEqual(3);
    expect(p.secs).toBeLessThan(4);
    await logsShow(kn, "hello-service", "hello-service", since, failed("time-service:5002", "timed out"));
    expect((await kn(["rollout", "undo", "deployment/hello-service"])).exitCode).toBe(0);
    await rolledOut("hello-service");
    await pageUntil(kn, debug, HELLO, ok);
  }, 150_000);

  it("the variable removed: the application's default time-service:5001 is dialled, healthy", async () => {
    const r = await kn(["set", "env", "deployment/hello-service", "TIME_SERVICE_ADDR-"]);
    expect(r.exitCode, r.stderr).toBe(0);
    await rolledOut("hello-service");
    const pod = await readyPod(kn, "hello-service");
    const env = await kn(["exec", pod, "-c", "hello-service", "--", "env"]);
    expect(env.stdout).not.toMatch(/^TIME_SERVICE_ADDR=/m);
    await pageUntil(kn, debug, HELLO, ok);
    expect((await kn(["rollout", "undo", "deployment/hello-service"])).exitCode).toBe(0);
    await rolledOut("hello-service");
  }, 150_000);

  it("a duplicate, later entry wins: the first looks right, the name dialled does not resolve, 503; undone: healthy", async () => {
    const since = nowStamp(t);
    const patch = JSON.stringify([
      {
        op: "add",
        path: "/spec/template/spec/containers/0/env/-",
        value: { name: "TIME_SERVICE_ADDR", value: "time-svc:5001" },
      },
    ]);
    const r = await kn(["patch", "deployment/hello-service", "--type=json", "-p", patch]);
    expect(r.exitCode, r.stderr).toBe(0);
    // kube-apiserver >= 1.30 warns (pkg/api/pod/warnings.go); kubectl prints it and goes on
    expect(r.stderr).toMatch(
      /^Warning: spec\.template\.spec\.containers\[0\]\.env\[\d+\]: hides previous definition of "TIME_SERVICE_ADDR", which may be dropped when using apply$/m,
    );
    await rolledOut("hello-service");
    const spec = await kn([
      "get",
      "deployment/hello-service",
      "-o",
      'jsonpath={range .spec.template.spec.containers[0].env[?(@.name=="TIME_SERVICE_ADDR")]}{.value} {end}',
    ]);
    expect(spec.stdout.trim()).toBe("time-service:5001 time-svc:5001");
    const pod = await readyPod(kn, "hello-service");
    const env = await kn(["exec", pod, "-c", "hello-service", "--", "printenv", "TIME_SERVICE_ADDR"]);
    expect(env.stdout.trim()).toBe("time-svc:5001");
    await pageUntil(kn, debug, HELLO, unavailable);
    await logsShow(
      kn,
      "hello-service",
      "hello-service",
      since,
      failed("time-svc:5001", "<urlopen error \\[Errno -2\\] Name or service not known>"),
    );
    expect((await kn(["rollout", "undo", "deployment/hello-service"])).exitCode).toBe(0);
    await rolledOut("hello-service");
    await pageUntil(kn, debug, HELLO, ok);
  }, 150_000);
  it("$(VAR) expands from entries before it; a reference to a later one stays as written", async () => {
    const since = nowStamp(t);
    const env = (list: { name: string; value: string }[]) =>
      JSON.stringify([{ op: "replace", path: "/spec/template/spec/containers/0/env", value: list }]);
    const port = { name: "PORT", value: "5000" };
    const host = { name: "TIME_HOST", value: "time-service" };
    const addr = { name: "TIME_SERVICE_ADDR", value: "$(TIME_HOST):5001" };
    expect(
      (await kn(["patch", "deployment/hello-service", "--type=json", "-p", env([port, host, addr])]))
        .exitCode,
    ).toBe(0);
    await rolledOut("hello-service");
    await pageUntil(kn, debug, HELLO, ok);
    expect(
      (await kn(["patch", "deployment/hello-service", "--type=json", "-p", env([port, addr, host])]))
        .exitCode,
    ).toBe(0);
    await rolledOut("hello-service");
    const pod = await readyPod(kn, "hello-service");
    const printed = await kn(["exec", pod, "-c", "hello-service", "--", "printenv", "TIME_SERVICE_ADDR"]);
    expect(printed.stdout.trim()).toBe("$(TIME_HOST):5001");
    await pageUntil(kn, debug, HELLO, unavailable);
    await logsShow(
      kn,
      "hello-service",
      "hello-service",
      since,
      failed("\\$\\(TIME_HOST\\):5001", "<urlopen error \\[Errno -2\\] Name or service not known>"),
    );
    const original = env([port, { name: "TIME_SERVICE_ADDR", value: "time-service:5001" }]);
    expect((await kn(["patch", "deployment/hello-service", "--type=json", "-p", original])).exitCode).toBe(0);
    await rolledOut("hello-service");
    await pageUntil(kn, debug, HELLO, ok);
  }, 180_000);
});

describe("the Service decides where the address leads", () => {
  const endpoints = () => kn(["get", "endpoints", "time-service", "-o", "jsonpath={.subsets}"]);

  it("targetPort changed: the endpoint is listed on a port nothing listens on, connections refused, 503; undone: healthy", async () => {
    const since = nowStamp(t);
    const r = await kn([
      "patch",
      "service/time-service",
      "-p",
      '{"spec":{"ports":[{"name":"http","port":5001,"targetPort":5002}]}}',
    ]);
    expect(r.exitCode, r.stderr).toBe(0);
    await eventually(
      kn,
      ["get", "endpoints", "time-service", "-o", "jsonpath={.subsets[0].ports[0].port}"],
      (o) => o === "5002",
    );
    expect((await endpoints()).stdout).toMatch(/"addresses":\[\{"ip":"10\.42\./);
    await pageUntil(kn, debug, HELLO, unavailable);
    await logsShow(
      kn,
      "hello-service",
      "hello-service",
      since,
      failed("time-service:5001", "<urlopen error \\[Errno 111\\] Connection refused>"),
    );
    const direct = await curl(kn, debug, "http://time-service:5001/time");
    expect(direct.exit).toBe(7);
    expect(direct.stderr).toContain("Failed to connect to time-service port 5001: Connection refused");
    await kn([
      "patch",
      "service/time-service",
      "-p",
      '{"spec":{"ports":[{"name":"http","port":5001,"targetPort":5001}]}}',
    ]);
    await pageUntil(kn, debug, HELLO, ok);
  }, 120_000);

  it("an extra selector key: no endpoints, kube-proxy rejects at once, 503; undone: healthy", async () => {
    const since = nowStamp(t);
    const r = await kn(["patch", "service/time-service", "-p", '{"spec":{"selector":{"tier":"backend"}}}']);
    expect(r.exitCode, r.stderr).toBe(0);
    await eventually(kn, ["get", "endpoints", "time-service", "-o", "jsonpath={.subsets}"], (o) => o === "");
    const p = await pageUntil(kn, debug, HELLO, unavailable);
    expect(p.secs).toBeLessThan(0.5);
    await logsShow(
      kn,
      "hello-service",
      "hello-service",
      since,
      failed("time-service:5001", "<urlopen error \\[Errno 111\\] Connection refused>"),
    );
    await kn(["patch", "service/time-service", "-p", '{"spec":{"selector":{"tier":null}}}']);
    await pageUntil(kn, debug, HELLO, ok);
  }, 120_000);

  it("the Service deleted: its name no longer resolves, 503; recreated from the manifest: healthy", async () => {
    const since = nowStamp(t);
    expect((await kn(["delete", "service/time-service"])).exitCode).toBe(0);
    await pageUntil(kn, debug, HELLO, unavailable);
    await logsShow(
      kn,
      "hello-service",
      "hello-service",
      since,
      failed("time-service:5001", "<urlopen error \\[Errno -2\\] Name or service not known>"),
    );
    const svc = `apiVersion: v1
kind: Service
metadata: { name: time-service, labels: { app: time-service } }
spec:
  selector: { app: time-service }
  ports: [{ name: http, port: 5001, targetPort: 5001 }]
`;
    expect((await kn(["apply", "-f", "-"], svc)).exitCode).toBe(0);
    await pageUntil(kn, debug, HELLO, ok);
  }, 120_000);
});
