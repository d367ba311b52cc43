// What Online-Boutique's services write agrees with what they do, read with real kubectl:
//   - cartservice prints the Redis address it was given (src/cartservice/src/Startup.cs reads
//     REDIS_ADDR and prints "Connecting to Redis: " + that address), so a wrong port shows there;
//   - the frontend's request log (src/frontend/middleware.go logHandler) writes "request started"
//     when a request comes in and "request complete" with http.resp.took_ms when it ends, so the
//     two stamps are took_ms apart; a failed page's "request error" (handlers.go renderHTTPError)
//     names that request: a checkout failure is POST /cart/checkout, not GET /;
//   - requests come when they come: no line on an exact cadence at one millisecond;
//   - an OOM-killed Go service (productcatalogservice) writes no "fatal error: runtime: out of
//     memory": the memory cgroup's OOM killer sends SIGKILL, which the Go runtime never sees;
//     the kubelet reports OOMKilled, 137 (pkg/kubelet/kuberuntime toKubeContainerState);
//   - an exec probe's failure is the command's own output: grpc_health_probe aimed at a port
//     nobody serves prints `timeout: failed to connect service ":3551" within 1s`
//     (grpc-ecosystem/grpc-health-probe main.go), which kubelet puts after "Readiness probe
//     failed: " (pkg/kubelet/prober/prober.go); the pod, not Ready, is among the Endpoints'
//     notReadyAddresses (pkg/controller/endpoint/endpoints_controller.go podToEndpointAddress).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestCluster, type TestCluster } from "../../helpers/cluster.js";
import {
  deploySystem,
  eventually,
  isReady,
  type Kn,
  kubectlIn,
  type Pod,
  podsOf,
} from "../helpers/failures.js";
import { endpointsOf, eventsShow, onePod, patchWith, statusOf, undo } from "../helpers/lifecycle.js";

let t: TestCluster;
let kn: Kn;
const NS = "words-ob";

beforeAll(async () => {
  t = await startTestCluster(60, 73);
  kn = kubectlIn(t, NS);
  await deploySystem(t, "online-boutique", NS);
}, 300_000);
afterAll(() => t?.stop());

type Line = Record<string, string | number>;
const jsonLines = (out: string): Line[] =>
  out
    .split("\n")
    .filter((l) => l.startsWith("{"))
    .map((l) => JSON.parse(l) as Line);

describe("Online-Boutique's words", () => {
  it("cartservice names the REDIS_ADDR it was given", async () => {
    const r = await kn(["set", "env", "deployment/cartservice", "REDIS_ADDR=redis-cart:6380"]);
    expect(r.exitCode, r.stderr).toBe(0);
    const pod = await onePod(
      kn,
      "cartservice",
      (p) =>
        !!p.spec.containers[0]?.env?.some((e) => e.name === "REDIS_ADDR" && e.value === "redis-cart:6380"),
    );
    const logs = await eventually(kn, ["logs", pod.metadata.name, "-c", "server"], (o) =>
      o.includes("Connecting to Redis"),
    );
    expect(logs).toContain("Connecting to Redis: redis-cart:6380");
    expect(logs).not.toContain("redis-cart:6379");
    await undo(kn, "cartservice");
  }, 240_000);

  it("the frontend's request lines: started took_ms before complete, off any fixed grid", async () => {
    const out = await eventually(
      kn,
      ["logs", "deployment/frontend", "-c", "server"],
      (o) => jsonLines(o).filter((l) => l.message === "request complete").length >= 4,
      120_000,
    );
    const lines = jsonLines(out);
    const done = lines.filter((l) => l.message === "request complete");
    for (const c of done) {
      const started = lines.find(
        (l) => l.message === "request started" && l["http.req.id"] === c["http.req.id"],
      );
      expect(started, JSON.stringify(c)).toBeDefined();
      expect(Date.parse(String(c.timestamp)) - Date.parse(String(started!.timestamp))).toBe(
        c["http.resp.took_ms"],
      );
    }
    const millis = new Set(done.map((l) => String(l.timestamp).slice(-4)));
    expect(millis.size).toBeGreaterThan(1);
  }, 180_000);

  it("a checkout that fails is logged on POST /cart/checkout", async () => {
    const r = await kn(["scale", "deployment/checkoutservice", "--replicas=0"]);
    expect(r.exitCode, r.stderr).toBe(0);
    const out = await eventually(
      kn,
      ["logs", "deployment/frontend", "-c", "server"],
      (o) => jsonLines(o).some((l) => String(l.error ?? "").startsWith("failed to complete the order")),
      240_000,
    );
    const failed = jsonLines(out).filter((l) =>
      String(l.error ?? "").startsWith("failed to complete the order"),
    );
    for (const l of failed)
      expect([l["http.req.method"], l["http.req.path"]]).toEqual(["POST", "/cart/checkout"]);
    await kn(["scale", "deployment/checkoutservice", "--replicas=1"]);
  }, 300_000);

  it("an OOM-killed Go service leaves no runtime message: OOMKilled, 137", async () => {
    const r = await patchWith(t, kn, "productcatalogservice", "oom-limit", {
      target_container: "server",
      memory: "12Mi",
    });
    expect(r.exitCode, r.stderr).toBe(0);
    const pod = await onePod(
      kn,
      "productcatalogservice",
      (p) => statusOf(p, "server")?.lastState?.terminated?.reason === "OOMKilled",
      120_000,
    );
    expect(statusOf(pod, "server")?.lastState?.terminated?.exitCode).toBe(137);
    // the kernel's report names the victim's anonymous memory, short of the 12Mi limit (the
    // cgroup also holds its mapped files and page tables: mm/oom_kill.c)
    const events = await eventually(kn, ["get", "events", "-o", "jsonpath={.items[*].message}"], (o) =>
      /anon-rss:\d+kB/.test(o),
    );
    const anon = Number(/anon-rss:(\d+)kB/.exec(events)![1]);
    expect(anon).toBeGreaterThan(0);
    expect(anon).toBeLessThan(12 * 1024);
    const prev = await kn(["logs", pod.metadata.name, "-c", "server", "--previous"]);
    expect(prev.stdout).not.toContain("fatal error");
    expect(prev.stdout).not.toContain("out of memory");
    await undo(kn, "productcatalogservice");
  }, 300_000);

  it("ls -la / in productcatalogservice shows its image's tree: Alpine's top, the binary's folder", async () => {
    const pod = await onePod(kn, "productcatalogservice", isReady);
    const root = await kn(["exec", pod.metadata.name, "-c", "server", "--", "ls", "-la", "/"]);
    expect(root.exitCode, root.stderr).toBe(0);
    const names = root.stdout
      .trim()
      .split("\n")
      .slice(1)
      .map((l) => l.split(/\s+/).pop());
    // src/productcatalogservice/Dockerfile: FROM alpine, WORKDIR /src; Alpine has no boot or lib64
    expect(names).toContain("src");
    expect(names).not.toContain("boot");
    expect(names).not.toContain("lib64");
    const src = await kn(["exec", pod.metadata.name, "-c", "server", "--", "ls", "-la", "/src"]);
    expect(src.stdout).toMatch(/ server$/m);
    expect(src.stdout).toMatch(/ products\.json$/m);
    // the image's files date from its build, not from the container's start
    const stamps = new Set(
      root.stdout
        .trim()
        .split("\n")
        .slice(1)
        .map((l) => l.split(/\s+/).slice(5, 8).join(" ")),
    );
    expect(stamps.size).toBeGreaterThan(1);
  }, 120_000);

  it("grpc_health_probe on a port nobody serves: its own words, and the pod is a not-ready address", async () => {
    const r = await kn([
      "patch",
      "deployment",
      "shippingservice",
      "--type",
      "json",
      "-p",
      JSON.stringify([
        {
          op: "replace",
          path: "/spec/template/spec/containers/0/readinessProbe/exec/command",
          value: ["/bin/grpc_health_probe", "-addr=:50052"],
        },
      ]),
    ]);
    expect(r.exitCode, r.stderr).toBe(0);
    // the rollout waits on the new pod, which never becomes Ready: the old one keeps serving
    let pod: Pod | undefined;
    for (const deadline = Date.now() + 90_000; !pod && Date.now() < deadline; ) {
      pod = (await podsOf(kn, "shippingservice")).find(
        (p) =>
          p.spec.containers[0]?.readinessProbe?.exec?.command?.[1] === "-addr=:50052" && !!p.status?.podIP,
      );
      if (!pod) await new Promise((res) => setTimeout(res, 200));
    }
    if (!pod) throw new Error("no shippingservice pod with the new probe");
    const events = await eventsShow(kn, pod.metadata.name, /Unhealthy/);
    expect(events).toContain('Readiness probe failed: timeout: failed to connect service ":50052" within 1s');
    expect(isReady(pod)).toBe(false);
    await eventually(kn, ["get", "endpoints", "shippingservice", "-o", "json"], (o) =>
      o.includes("notReadyAddresses"),
    );
    const ep = await endpointsOf(kn, "shippingservice");
    expect(ep.notReady).toContain(pod.status!.podIP);
    expect(ep.ready).not.toContain(pod.status!.podIP);
    await undo(kn, "shippingservice");
  }, 240_000);
});
