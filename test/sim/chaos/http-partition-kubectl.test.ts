// HTTPChaos and NetworkChaos `partition` on Simple-Micro, applied and read back with real kubectl.
//
// HTTPChaos (chaos-mesh api/v1alpha1/httpchaos_types.go; chaos-mesh/chaos-tproxy): the proxy takes
// new TCP connections to `port` (chaos-tproxy-controller/src/proxy/net/iptables.rs: TPROXY, with
// `-m socket` diverting existing sockets) and applies the rule to the HTTP/1 requests it selects
// by path (WildMatch) and method (handler/http/selector.rs select_request); `abort` returns an
// error from the handler (handler/http/action.rs apply_request_action: "Abort applied"), so the
// connection closes without a response: curl's "(52) Empty reply from server", BusyBox wget's
// "error getting response", urllib's RemoteDisconnected; `delay` sleeps before forwarding. The
// webhook (api/v1alpha1/httpchaos_webhook.go) refuses port <= 0.
// Partition (controllers/chaosimpl/networkchaos/partition/impl.go): ipset + iptables DROP in the
// pods' network namespaces, OUTPUT towards the targets and INPUT from them (direction both), so
// nothing passes between the two sides and connects time out; traffic to anyone else is untouched.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestCluster, type TestCluster } from "../../helpers/cluster.js";
import { deploySystem, eventually, type Kn, kubectlIn, parsePing, podsOf } from "../helpers/failures.js";
import { curl, debugPod, logsShow, nowStamp, pageUntil, readyPod, wget } from "../helpers/network.js";

const NS = "httpchaos";
const HELLO = "http://hello-service:5000/hello";
let t: TestCluster;
let kn: Kn;
let debug: string;

const httpChaos = (name: string, app: string, rule: string) => `apiVersion: chaos-mesh.org/v1alpha1
kind: HTTPChaos
metadata: { name: ${name}, namespace: ${NS} }
spec:
  mode: all
  selector: { namespaces: [${NS}], labelSelectors: { app: ${app} } }
  duration: 1h
${rule}
`;

async function applied(kind: string, name: string, yaml: string) {
  const r = await kn(["apply", "-f", "-"], yaml);
  expect(r.exitCode, r.stderr).toBe(0);
  await eventually(kn, ["get", kind, name, "-o", "jsonpath={.status.conditions}"], (o) =>
    /"status":"True","type":"AllInjected"|"type":"AllInjected","status":"True"/.test(o),
  );
}

async function deleted(kind: string, name: string) {
  const r = await kn(["delete", kind, name, "--wait=true", "--timeout=60s"]);
  expect(r.exitCode, r.stderr).toBe(0);
}

beforeAll(async () => {
  t = await startTestCluster(60, 41);
  kn = kubectlIn(t, NS);
  await deploySystem(t, "simple-micro", NS);
  debug = await debugPod(kn);
  await pageUntil(kn, debug, HELLO, (p) => p.code === "200");
}, 180_000);
afterAll(() => t?.stop());

describe("HTTPChaos", () => {
  it("abort on one path: that route's requests get no answer, the others are served; status as the other kinds; deleted: healthy", async () => {
    await applied(
      "httpchaos",
      "abort-hello",
      httpChaos(
        "abort-hello",
        "hello-service",
        "  target: Request\n  port: 5000\n  path: /hello\n  abort: true",
      ),
    );
    const pod = await readyPod(kn, "hello-service");
    const inst = await kn(["get", "httpchaos", "abort-hello", "-o", "jsonpath={.status.instances}"]);
    expect(JSON.parse(inst.stdout)).toEqual({ [`${NS}/${pod}`]: 1 });
    const listed = await kn(["get", "httpchaos"]);
    // the CRD's printer columns (+kubebuilder:printcolumn duration): Name, then those alone
    expect(listed.stdout).toMatch(/^NAME\s+DURATION\nabort-hello\s+1h\n?$/);
    const p = await curl(kn, debug, HELLO);
    expect(p).toMatchObject({ code: "000", exit: 52 });
    expect(p.stderr).toContain("curl: (52) Empty reply from server");
    const time = (await podsOf(kn, "time-service"))[0].metadata.name;
    const w = await wget(kn, time, "sidecar-busybox", HELLO);
    expect(w.exit).toBe(1);
    expect(w.err).toContain("wget: error getting response\n");
    // another path of the same port is not selected
    expect((await curl(kn, debug, "http://hello-service:5000/health")).code).toBe("200");
    await deleted("httpchaos", "abort-hello");
    await pageUntil(kn, debug, HELLO, (x) => x.code === "200");
  }, 90_000);

  it("abort on the callee: hello-service's new connection per call meets it, logs urllib's RemoteDisconnected and answers 503", async () => {
    const since = nowStamp(t);
    await applied(
      "httpchaos",
      "abort-time",
      httpChaos(
        "abort-time",
        "time-service",
        "  target: Request\n  port: 5001\n  path: /time\n  method: GET\n  abort: true",
      ),
    );
    await pageUntil(kn, debug, HELLO, (x) => x.code === "503");
    await logsShow(
      kn,
      "hello-service",
      "hello-service",
      since,
      /GET http:\/\/time-service:5001\/time failed after \d+ms: Remote end closed connection without response$/,
    );
    await deleted("httpchaos", "abort-time");
    await pageUntil(kn, debug, HELLO, (x) => x.code === "200");
  }, 90_000);

  it("delay: the route is answered, that much later", async () => {
    const before = await curl(kn, debug, HELLO);
    expect(before.secs).toBeLessThan(0.5);
    await applied(
      "httpchaos",
      "delay-hello",
      httpChaos(
        "delay-hello",
        "hello-service",
        "  target: Request\n  port: 5000\n  path: /hello\n  delay: 2s",
      ),
    );
    const p = await curl(kn, debug, HELLO);
    expect(p.code).toBe("200");
    expect(p.secs).toBeGreaterThanOrEqual(2);
    expect(p.secs).toBeLessThan(2.5);
    await deleted("httpchaos", "delay-hello");
    expect((await curl(kn, debug, HELLO)).secs).toBeLessThan(0.5);
  }, 90_000);

  it("a port the webhook refuses: the record fails with its message and nothing is injected", async () => {
    const r = await kn(
      ["apply", "-f", "-"],
      httpChaos("bad-port", "hello-service", "  target: Request\n  port: 0\n  abort: true"),
    );
    expect(r.exitCode, r.stderr).toBe(0);
    await eventually(kn, ["get", "events", "--field-selector", "involvedObject.name=bad-port"], (o) =>
      o.includes("Failed to apply chaos: port 0 is not supported"),
    );
    expect((await curl(kn, debug, HELLO)).code).toBe("200");
    await deleted("httpchaos", "bad-port");
  }, 60_000);
});

describe("NetworkChaos partition between hello-service and time-service", () => {
  it("their connections time out both ways, everyone else reaches time-service; deleted: healthy", async () => {
    const since = nowStamp(t);
    await applied(
      "networkchaos",
      "cut",
      `apiVersion: chaos-mesh.org/v1alpha1
kind: NetworkChaos
metadata: { name: cut, namespace: ${NS} }
spec:
  action: partition
  mode: all
  selector: { namespaces: [${NS}], labelSelectors: { app: hello-service } }
  direction: both
  target:
    mode: all
    selector: { namespaces: [${NS}], labelSelectors: { app: time-service } }
  duration: 1h
`,
    );
    // urlopen's connect waits its timeout=3, then the handler answers 503
    const p = await pageUntil(kn, debug, HELLO, (x) => x.code === "503");
    expect(p.secs).toBeGreaterThanOrEqual(3);
    await logsShow(
      kn,
      "hello-service",
      "hello-service",
      since,
      /GET http:\/\/time-service:5001\/time failed after 30\d\dms: timed out$/,
    );
    const hello = await readyPod(kn, "hello-service");
    const time = (await podsOf(kn, "time-service"))[0];
    const w = await wget(kn, hello, "sidecar-busybox", "http://time-service:5001/time", ["-T", "2"]);
    expect(w.exit).toBe(1);
    expect(w.err).toContain("wget: download timed out\n");
    const ping = await kn([
      "exec",
      hello,
      "-c",
      "sidecar-busybox",
      "--",
      "ping",
      "-c",
      "2",
      "-W",
      "1",
      time.status!.podIP!,
    ]);
    expect(parsePing(ping.stdout), ping.stdout).toMatchObject({ loss: 100 });
    // the other direction: time-service's sidecar cannot reach hello-service either
    const back = await wget(kn, time.metadata.name, "sidecar-busybox", "http://hello-service:5000/health", [
      "-T",
      "2",
    ]);
    expect(back.exit).toBe(1);
    // a third pod is not part of the partition
    expect((await curl(kn, debug, "http://time-service:5001/time")).code).toBe("200");
    expect((await curl(kn, debug, "http://hello-service:5000/health")).code).toBe("200");
    await deleted("networkchaos", "cut");
    await pageUntil(kn, debug, HELLO, (x) => x.code === "200");
  }, 120_000);
});
