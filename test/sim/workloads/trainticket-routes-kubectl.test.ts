// Train-Ticket's entry path through kubectl: ts-ui-dashboard's nginx serves the UI and proxies
// /api/v1/ to ts-gateway-service (a new upstream connection per request, nginx's default without
// `keepalive`), whose Spring Cloud Gateway routes each /api/v1/<x>service/ to its service through
// Nacos (lb://: the pod IPs of the registered instances, never the Service), over reactor-netty's
// pooled connections. A proxy answers what its upstream answers, or its own error when it cannot
// reach it (nginx: 502 for a refused or reset upstream, 504 for one that timed out). nginx resolves
// proxy_pass's host once, when it reads its configuration (ts-ui-dashboard/nginx.conf:
// `proxy_pass http://ts-gateway-service:18888;`, no `resolver`). Requests are made with curl from a
// pod of the namespace (the ts-* images, FROM java:8-jre, ship curl).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestCluster, type TestCluster } from "../../helpers/cluster.js";
import { deploySystem, eventually, type Kn, kubectlIn } from "../helpers/failures.js";
import { curl, logsShow, nowStamp, pageUntil, readyPod } from "../helpers/network.js";

const NS = "trainticket";
const UI = "http://ts-ui-dashboard:8080";
const SEARCH = `${UI}/api/v1/travelservice/trips/left`;
const STATIONS = `${UI}/api/v1/stationservice/stations`;
const QUERY = [
  "-H",
  "Content-Type: application/json",
  "-d",
  '{"startingPlace":"Shang Hai","endPlace":"Su Zhou","departureTime":"2026-01-02"}',
];
let t: TestCluster;
let kn: Kn;
let from: string;

async function scaled(deploy: string, n: number) {
  expect((await kn(["scale", `deployment/${deploy}`, `--replicas=${n}`])).exitCode).toBe(0);
  await eventually(
    kn,
    ["get", "deployment", deploy, "-o", "jsonpath={.status.readyReplicas}"],
    (o) => (n === 0 ? o === "" || o === "0" : o === String(n)),
    90_000,
  );
}

beforeAll(async () => {
  t = await startTestCluster(120, 61);
  kn = kubectlIn(t, NS);
  await deploySystem(t, "train-ticket", NS);
  from = await readyPod(kn, "ts-order-service");
  await pageUntil(kn, from, SEARCH, (p) => p.code === "200", QUERY, 120_000);
}, 300_000);
afterAll(() => t?.stop());

describe("nginx -> gateway -> service", () => {
  it("healthy: the UI page, a ticket search and the station list answer", async () => {
    const page = await curl(kn, from, `${UI}/`);
    expect(page.code).toBe("200");
    expect(page.body).toContain("<title>Train Ticket</title>");
    const search = await curl(kn, from, SEARCH, QUERY);
    expect(search).toMatchObject({ code: "200", body: '{"status":1,"msg":"Success","data":null}' });
    expect((await curl(kn, from, STATIONS)).code).toBe("200");
  }, 60_000);

  it("ts-travel-service gone: the gateway finds no instance, its 503 comes through nginx on that route alone", async () => {
    await scaled("ts-travel-service", 0);
    const search = await pageUntil(kn, from, SEARCH, (p) => p.code === "503", QUERY);
    expect(search.body).toMatch(
      /^\{"timestamp":"[^"]+","path":"\/api\/v1\/travelservice\/trips\/left","status":503,"error":"Service Unavailable"/,
    );
    expect((await curl(kn, from, STATIONS)).code).toBe("200");
    expect((await curl(kn, from, `${UI}/`)).code).toBe("200");
    await scaled("ts-travel-service", 1);
    await pageUntil(kn, from, SEARCH, (p) => p.code === "200", QUERY, 120_000);
  }, 240_000);

  it("ts-travel-service's Service deleted: the gateway reaches it through Nacos all the same", async () => {
    expect((await kn(["delete", "service", "ts-travel-service"])).exitCode).toBe(0);
    expect((await curl(kn, from, SEARCH, QUERY)).code).toBe("200");
    const svc = `apiVersion: v1
kind: Service
metadata: { name: ts-travel-service, labels: { app: ts-travel-service } }
spec:
  selector: { app: ts-travel-service }
  ports: [{ name: http, port: 12346, targetPort: 12346 }]
`;
    expect((await kn(["apply", "-f", "-"], svc)).exitCode).toBe(0);
  }, 60_000);

  it("ts-gateway-service scaled to 0: nginx's upstream is refused, 502 on every /api/ route, the UI page still served", async () => {
    await scaled("ts-gateway-service", 0);
    const search = await pageUntil(kn, from, SEARCH, (p) => p.code === "502", QUERY);
    expect(search.body).toContain("<center><h1>502 Bad Gateway</h1></center>");
    expect((await curl(kn, from, STATIONS)).code).toBe("502");
    expect((await curl(kn, from, `${UI}/`)).code).toBe("200");
    await scaled("ts-gateway-service", 1);
    await pageUntil(kn, from, SEARCH, (p) => p.code === "200", QUERY, 120_000);
  }, 240_000);

  it("ts-gateway-service's Service deleted: nginx keeps the address it resolved at start, /api/ times out (504); a restarted nginx cannot resolve it and crash-loops; recreated: healthy", async () => {
    // nginx resolves proxy_pass's host when it reads nginx.conf (ngx_http_upstream_add ->
    // ngx_parse_url -> ngx_inet_resolve_host; no `resolver`, so never again): the old ClusterIP
    // has no kube-proxy rule once the Service is gone, and proxy_connect_timeout (60 s) ends it
    const saved = JSON.parse((await kn(["get", "service", "ts-gateway-service", "-o", "json"])).stdout);
    expect((await kn(["delete", "service", "ts-gateway-service"])).exitCode).toBe(0);
    // (curl waits longer than nginx's 60 s)
    const slow = [...QUERY, "-m", "90"];
    const search = await pageUntil(kn, from, SEARCH, (p) => p.code === "504", slow);
    expect(search.secs).toBeGreaterThanOrEqual(60);
    expect(search.body).toContain("<center><h1>504 Gateway Time-out</h1></center>");
    expect((await curl(kn, from, `${UI}/`)).code).toBe("200");
    // a new instance (the wrong fix, restarting the caller): "host not found in upstream", exit 1
    expect((await kn(["rollout", "restart", "deployment/ts-ui-dashboard"])).exitCode).toBe(0);
    const crashed = await eventually(
      kn,
      [
        "get",
        "pods",
        "-l",
        "app=ts-ui-dashboard",
        "-o",
        'jsonpath={range .items[*]}{.metadata.name} {.status.containerStatuses[0].lastState.terminated.exitCode}{"\\n"}{end}',
      ],
      (o) => o.split("\n").some((l) => l.endsWith(" 1")),
      90_000,
    );
    const pod = crashed
      .split("\n")
      .find((l) => l.endsWith(" 1"))!
      .split(" ")[0];
    const prev = await kn(["logs", pod, "--previous"]);
    expect(prev.stdout).toContain('nginx: [emerg] host not found in upstream "ts-gateway-service:18888"');
    // without a readiness probe the new pod counted as available for the moment it ran, so the
    // rollout went on and the old nginx is gone: nothing serves, kube-proxy rejects (curl's 7)
    const down = await pageUntil(kn, from, `${UI}/`, (p) => p.exit === 7);
    expect(down.stderr).toContain("Connection refused");
    // recreated (its ports and selector as they were): the new nginx starts and resolves it
    const { metadata, spec } = saved;
    const svc = {
      apiVersion: "v1",
      kind: "Service",
      metadata: { name: metadata.name, labels: metadata.labels },
      spec: { type: spec.type, selector: spec.selector, ports: spec.ports },
    };
    expect((await kn(["apply", "-f", "-"], JSON.stringify(svc))).exitCode).toBe(0);
    expect((await kn(["rollout", "status", "deployment/ts-ui-dashboard", "--timeout=120s"])).exitCode).toBe(
      0,
    );
    await pageUntil(kn, from, SEARCH, (p) => p.code === "200", QUERY);
  }, 240_000);

  it("HTTPChaos on ts-travel-service: the gateway's pooled connection predates it and is spared; on the gateway, nginx's new connections meet it (502)", async () => {
    const chaos = (name: string, app: string, port: number) => `apiVersion: chaos-mesh.org/v1alpha1
kind: HTTPChaos
metadata: { name: ${name}, namespace: ${NS} }
spec:
  mode: all
  selector: { namespaces: [${NS}], labelSelectors: { app: ${app} } }
  target: Request
  port: ${port}
  path: /api/v1/travelservice/*
  abort: true
  duration: 1h
`;
    expect((await kn(["apply", "-f", "-"], chaos("abort-travel", "ts-travel-service", 12346))).exitCode).toBe(
      0,
    );
    await eventually(
      kn,
      [
        "get",
        "httpchaos",
        "abort-travel",
        "-o",
        'jsonpath={.status.conditions[?(@.type=="AllInjected")].status}',
      ],
      (o) => o === "True",
    );
    expect((await curl(kn, from, SEARCH, QUERY)).code).toBe("200");
    expect((await kn(["delete", "httpchaos", "abort-travel"])).exitCode).toBe(0);
    expect(
      (await kn(["apply", "-f", "-"], chaos("abort-gateway", "ts-gateway-service", 18888))).exitCode,
    ).toBe(0);
    await pageUntil(kn, from, SEARCH, (p) => p.code === "502", QUERY);
    expect((await curl(kn, from, STATIONS)).code).toBe("200");
    expect((await kn(["delete", "httpchaos", "abort-gateway"])).exitCode).toBe(0);
    await pageUntil(kn, from, SEARCH, (p) => p.code === "200", QUERY);
  }, 120_000);

  it("a store's address comes from the Secret the container was created with: changed, nothing happens until the pod is recreated; then that route fails", async () => {
    const since = nowStamp(t);
    const bad = '{"stringData":{"STATION_MYSQL_HOST":"tsdb-mysql-follower"}}';
    expect((await kn(["patch", "secret", "ts-station-mysql", "-p", bad])).exitCode).toBe(0);
    expect((await curl(kn, from, STATIONS)).code).toBe("200");
    expect((await kn(["rollout", "restart", "deployment/ts-station-service"])).exitCode).toBe(0);
    expect(
      (await kn(["rollout", "status", "deployment/ts-station-service", "--timeout=120s"])).exitCode,
    ).toBe(0);
    // the datasource's host does not resolve: Hikari fails, the service answers 500, which the
    // gateway and nginx pass on
    const p = await pageUntil(kn, from, STATIONS, (x) => x.code === "500");
    expect(p.body).toMatch(
      /"status":500,"error":"Internal Server Error","path":"\/api\/v1\/stationservice\/stations"/,
    );
    await logsShow(kn, "ts-station-service", "ts-station-service", since, /Communications link failure/);
    // the ticket search reaches ts-station-service through ts-travel-service -> ts-basic-service:
    // it fails too; a route whose calls never reach it does not
    expect((await curl(kn, from, SEARCH, QUERY)).code).toBe("500");
    expect((await curl(kn, from, `${UI}/api/v1/contactservice/contacts`)).code).toBe("200");
    const good = '{"stringData":{"STATION_MYSQL_HOST":"tsdb-mysql-leader"}}';
    expect((await kn(["patch", "secret", "ts-station-mysql", "-p", good])).exitCode).toBe(0);
    expect((await kn(["rollout", "restart", "deployment/ts-station-service"])).exitCode).toBe(0);
    await pageUntil(kn, from, STATIONS, (x) => x.code === "200", [], 120_000);
    await pageUntil(kn, from, SEARCH, (x) => x.code === "200", QUERY);
  }, 240_000);
});
