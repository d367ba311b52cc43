// Online-Boutique's pages as a user (and the harness's user-facing check) sees them, through real
// kubectl: curl from a pod of the namespace to the frontend's routes, the frontend's logs.
//
// The frontend at v0.3.8 (microservices-demo src/frontend):
//   main.go     routes: GET / homeHandler, GET /product/{id}, GET /cart, POST /cart (302),
//               POST /cart/empty (302), POST /cart/checkout, POST /setCurrency, GET /_healthz;
//               mustMapEnv panics on an unset variable; mustConnGRPC dials each callee once, at
//               start (one long-lived ClientConn per callee)
//   handlers.go each handler calls its callees in turn and answers renderHTTPError's 500 page
//               ("Uh, oh! Something has failed.") at the first that fails, logging "request error"
//               with the wrapped error ("could not retrieve products: rpc error: ..."); chooseAd's
//               failure is only a warning (the page shows no ad)
// checkoutservice at v0.3.8 dials a new connection for every call (grpc.DialContext, then
// conn.Close()). kube-router accepts RELATED,ESTABLISHED before any policy (npc_iptables.go
// ensureCommonPolicyChain), so a policy added later leaves the frontend's open connections alone
// while checkoutservice's new ones are refused.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { KObject } from "../../../src/sim/core/objects.js";
import { NETWORK_POLICY } from "../../../src/sim/workloads/topology/netpol.js";
import { startTestCluster, type TestCluster } from "../../helpers/cluster.js";
import { deploySystem, eventually, type Kn, kubectlIn } from "../helpers/failures.js";
import { curl, debugPod, logsShow, nowStamp, type Page, pageUntil, readyPod } from "../helpers/network.js";

const NS = "boutique";
const FE = "http://frontend:80";
const ADD = ["-d", "product_id=OLJCESPC7Z&quantity=1"];
const ORDER = ["-d", "email=someone%40example.com&street_address=1600+Amphitheatre+Parkway&zip_code=94043"];
let t: TestCluster;
let kn: Kn;
let debug: string;

/** The routes the user-facing check requests, with what each answers now. */
async function pages(): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const ask: [string, string, string[]][] = [
    ["home", "/", []],
    ["product", "/product/OLJCESPC7Z", []],
    ["cart", "/cart", []],
    ["add", "/cart", ADD],
    ["checkout", "/cart/checkout", ORDER],
    ["empty", "/cart/empty", ["-X", "POST"]],
    ["healthz", "/_healthz", []],
  ];
  for (const [name, path, extra] of ask) out[name] = (await curl(kn, debug, `${FE}${path}`, extra)).code;
  return out;
}

const HEALTHY = {
  home: "200",
  product: "200",
  cart: "200",
  add: "302",
  checkout: "200",
  empty: "302",
  healthz: "200",
};

async function healthy() {
  for (let i = 0; i < 100; i++) {
    if (JSON.stringify(await pages()) === JSON.stringify(HEALTHY)) return;
    await new Promise((r) => setTimeout(r, 300));
  }
  expect(await pages()).toEqual(HEALTHY);
}

async function scaled(deploy: string, n: number) {
  expect((await kn(["scale", `deployment/${deploy}`, `--replicas=${n}`])).exitCode).toBe(0);
  await eventually(kn, ["get", "deployment", deploy, "-o", "jsonpath={.status.readyReplicas}"], (o) =>
    n === 0 ? o === "" || o === "0" : o === String(n),
  );
}

beforeAll(async () => {
  t = await startTestCluster(60, 51);
  kn = kubectlIn(t, NS);
  await deploySystem(t, "online-boutique", NS);
  debug = await debugPod(kn);
  await healthy();
}, 240_000);
afterAll(() => t?.stop());

describe("each page fails exactly when a callee it calls fails", () => {
  it("healthy: every page answers, POSTs included (curl -d, BusyBox wget --post-data)", async () => {
    const home = await curl(kn, debug, `${FE}/`);
    expect(home.body).toContain("<title>Online Boutique</title>");
    const fe = await readyPod(kn, "frontend");
    const w = await kn([
      "exec",
      fe,
      "-c",
      "sidecar-busybox",
      "--",
      "wget",
      "-q",
      "-O",
      "-",
      "--post-data",
      ORDER[1],
      `${FE}/cart/checkout`,
    ]);
    expect(w.exitCode, w.stderr).toBe(0);
  }, 60_000);

  it("cartservice gone: every page that calls it answers the error page, /_healthz and nothing else survives", async () => {
    const since = nowStamp(t);
    await scaled("cartservice", 0);
    expect(await pages()).toEqual({
      ...HEALTHY,
      home: "500",
      product: "500",
      cart: "500",
      add: "500",
      checkout: "500",
      empty: "500",
    });
    const p = await curl(kn, debug, `${FE}/`);
    expect(p.body).toContain("<h1>Uh, oh!</h1>");
    expect(p.body).toContain("<p><strong>HTTP Status:</strong> 500 Internal Server Error</p>");
    await logsShow(
      kn,
      "frontend",
      "server",
      since,
      /"error":"could not retrieve cart: rpc error: code = Unavailable desc = connection error: desc = \\"transport: Error while dialing dial tcp 10\.43\.\d+\.\d+:7070: connect: connection refused\\""/,
    );
    await scaled("cartservice", 1);
    await healthy();
  }, 120_000);

  it("adservice gone: the pages still answer (chooseAd's failure is only a warning)", async () => {
    const since = nowStamp(t);
    await scaled("adservice", 0);
    expect(await pages()).toEqual(HEALTHY);
    // nor do the shoppers' requests fail: the frontend logs no request error
    await new Promise((r) => setTimeout(r, 1000)); // a minute of cluster time
    const fe = await readyPod(kn, "frontend");
    const logs = await kn(["logs", fe, "-c", "server", `--since-time=${since}`]);
    expect(logs.stdout).toContain('"message":"request complete"');
    expect(logs.stdout).not.toContain('"message":"request error"');
    await scaled("adservice", 1);
  }, 120_000);

  it("shippingservice gone: the cart and checkout fail, the home and product pages do not call it", async () => {
    await scaled("shippingservice", 0);
    expect(await pages()).toEqual({ ...HEALTHY, cart: "500", checkout: "500" });
    await scaled("shippingservice", 1);
    await healthy();
  }, 120_000);

  it("a delayed callee slows the pages that call it, not the others", async () => {
    const slow = (p: Page) => p.code === "200" && p.secs >= 0.2;
    const chaos = `apiVersion: chaos-mesh.org/v1alpha1
kind: NetworkChaos
metadata: { name: slow-catalog, namespace: ${NS} }
spec:
  action: delay
  mode: all
  selector: { namespaces: [${NS}], labelSelectors: { app: productcatalogservice } }
  delay: { latency: 150ms }
  direction: to
  duration: 1h
`;
    const before = await curl(kn, debug, `${FE}/`);
    expect(before.secs).toBeLessThan(0.1);
    expect((await kn(["apply", "-f", "-"], chaos)).exitCode).toBe(0);
    await pageUntil(kn, debug, `${FE}/`, slow);
    // POST /cart/empty calls cartservice alone
    const empty = await curl(kn, debug, `${FE}/cart/empty`, ["-X", "POST"]);
    expect(empty.code).toBe("302");
    expect(empty.secs).toBeLessThan(0.1);
    expect((await kn(["delete", "networkchaos", "slow-catalog"])).exitCode).toBe(0);
    await pageUntil(kn, debug, `${FE}/`, (p) => p.code === "200" && p.secs < 0.1);
  }, 120_000);
});

describe("the environment at start", () => {
  it("checkoutservice without PRODUCT_CATALOG_SERVICE_ADDR panics (exit 2) into CrashLoopBackOff; only checkout fails; undone: healthy", async () => {
    // Recreate, as the expert tier's injections do, so that the old pod does not keep serving
    const strategy = '{"spec":{"strategy":{"type":"Recreate","rollingUpdate":null}}}';
    expect((await kn(["patch", "deployment/checkoutservice", "-p", strategy])).exitCode).toBe(0);
    const r = await kn(["set", "env", "deployment/checkoutservice", "PRODUCT_CATALOG_SERVICE_ADDR-"]);
    expect(r.exitCode, r.stderr).toBe(0);
    const state = await eventually(
      kn,
      [
        "get",
        "pod",
        "-l",
        "app=checkoutservice",
        "-o",
        "jsonpath={.items[0].status.containerStatuses[0].state.waiting.reason} {.items[0].status.containerStatuses[0].lastState.terminated.exitCode}",
      ],
      (o) => o === "CrashLoopBackOff 2",
      60_000,
    );
    expect(state).toBe("CrashLoopBackOff 2");
    const pod = (
      await kn(["get", "pod", "-l", "app=checkoutservice", "-o", "jsonpath={.items[0].metadata.name}"])
    ).stdout;
    const logs = await kn(["logs", pod, "-c", "server", "--previous"]);
    expect(logs.stdout).toContain(
      'panic: environment variable "PRODUCT_CATALOG_SERVICE_ADDR" not set\n\ngoroutine 1 [running]:\nmain.mustMapEnv(',
    );
    expect(await pages()).toEqual({ ...HEALTHY, checkout: "500" });
    expect((await kn(["rollout", "undo", "deployment/checkoutservice"])).exitCode).toBe(0);
    await healthy();
  }, 150_000);
  it("cartservice without REDIS_ADDR keeps carts in memory (Startup.cs: AddDistributedMemoryCache), says so, and serves; redis-cart then does not matter", async () => {
    expect((await kn(["set", "env", "deployment/cartservice", "REDIS_ADDR-"])).exitCode).toBe(0);
    expect((await kn(["rollout", "status", "deployment/cartservice", "--timeout=90s"])).exitCode).toBe(0);
    const pod = await readyPod(kn, "cartservice");
    const logs = await kn(["logs", pod, "-c", "server"]);
    expect(logs.stdout).toContain(
      "Redis cache host(hostname+port) was not specified. Starting a cart service using in memory store",
    );
    await scaled("redis-cart", 0);
    expect(await pages()).toEqual(HEALTHY);
    await scaled("redis-cart", 1);
    expect((await kn(["rollout", "undo", "deployment/cartservice"])).exitCode).toBe(0);
    await healthy();
  }, 150_000);
});

describe("pooled and per-call connections under a policy added later", () => {
  function put(name: string, spec: Record<string, unknown>): void {
    const o: KObject = {
      apiVersion: "networking.k8s.io/v1",
      kind: "NetworkPolicy",
      metadata: { name, namespace: NS },
      spec,
    };
    t.cluster.ctx.store.put(NETWORK_POLICY, o);
  }

  it("deny-all on productcatalogservice: the frontend's open connection keeps working, checkoutservice's new ones are refused; a restarted frontend is refused too", async () => {
    put("deny-catalog", {
      podSelector: { matchLabels: { app: "productcatalogservice" } },
      policyTypes: ["Ingress"],
    });
    const during = await pages();
    expect(during).toEqual({ ...HEALTHY, checkout: "500" });
    const since = nowStamp(t);
    expect((await kn(["rollout", "restart", "deployment/frontend"])).exitCode).toBe(0);
    expect((await kn(["rollout", "status", "deployment/frontend", "--timeout=90s"])).exitCode).toBe(0);
    await pageUntil(kn, debug, `${FE}/`, (p) => p.code === "500");
    await logsShow(
      kn,
      "frontend",
      "server",
      since,
      /"error":"could not retrieve products: rpc error: code = Unavailable desc = connection error: desc = \\"transport: Error while dialing dial tcp 10\.43\.\d+\.\d+:3550: connect: connection refused\\""/,
    );
    t.cluster.ctx.store.remove(NETWORK_POLICY, NS, "deny-catalog");
    await healthy();
  }, 180_000);

  it("HTTPChaos does not reach the gRPC services; on the frontend's POST /cart/checkout it aborts that route alone", async () => {
    const chaos = `apiVersion: chaos-mesh.org/v1alpha1
kind: HTTPChaos
metadata: { name: abort-checkout, namespace: ${NS} }
spec:
  mode: all
  selector: { namespaces: [${NS}], labelSelectors: { app: frontend } }
  target: Request
  port: 8080
  path: /cart/checkout
  method: POST
  abort: true
  duration: 1h
`;
    // gRPC is HTTP/2: the tproxy cannot parse it as HTTP/1 and passes the stream through
    const grpc = chaos
      .replace("abort-checkout", "abort-catalog")
      .replace("app: frontend", "app: productcatalogservice")
      .replace("port: 8080", "port: 3550")
      .replace("  path: /cart/checkout\n  method: POST\n", "");
    expect((await kn(["apply", "-f", "-"], grpc)).exitCode).toBe(0);
    await eventually(
      kn,
      [
        "get",
        "httpchaos",
        "abort-catalog",
        "-o",
        'jsonpath={.status.conditions[?(@.type=="AllInjected")].status}',
      ],
      (o) => o === "True",
    );
    await new Promise((r) => setTimeout(r, 500));
    expect(await pages()).toEqual(HEALTHY);
    expect((await kn(["delete", "httpchaos", "abort-catalog"])).exitCode).toBe(0);
    expect((await kn(["apply", "-f", "-"], chaos)).exitCode).toBe(0);
    await pageUntil(kn, debug, `${FE}/cart/checkout`, (p) => p.exit === 52, ORDER);
    const now = await pages();
    expect(now).toEqual({ ...HEALTHY, checkout: "000" });
    expect((await kn(["delete", "httpchaos", "abort-checkout"])).exitCode).toBe(0);
    await healthy();
  }, 120_000);
});
