// The pure parts of the expert tier's own checks (calls, throttle, store): a request's command
// line and what each tool's output says came of it (curl's exit codes, man curl "EXIT CODES";
// BusyBox wget's messages, networking/wget.c; GNU wget's), an application's environment and the
// address it dials, the edge a fault's values name, the verdict of a reading, the CFS counts of
// cpu.stat (Documentation/scheduler/sched-bwc.rst) and their thresholds, redis-cli's answers.
import { describe, expect, it } from "vitest";
import { loadEnv } from "../../src/envs/env.js";
import {
  callersOf,
  dialedAddress,
  dialOf,
  parseAddress,
  passwordIn,
  protocolOf,
  routeRequest,
} from "../../src/verify/address.js";
import { type CallRow, edgeOf, judgeCalls } from "../../src/verify/calls.js";
import { callArgv, callOutcome, parseEnviron } from "../../src/verify/requests.js";
import { pingAnswer } from "../../src/verify/store.js";
import {
  FAULT_SHARE,
  judgeThrottle,
  parseCpuStat,
  RECOVERED_SHARE,
  throttledShare,
} from "../../src/verify/throttle.js";

const out = (exitCode: number, stdout: string, stderr = "") => ({ exitCode, stdout, stderr });

describe("a request along an edge", () => {
  it("is curl -w %{http_code} with a connect timeout, or BusyBox wget -S with -T", () => {
    expect(callArgv("curl", { url: "http://time-service:5001/time" }, 10)).toEqual([
      ...["curl", "-sS", "-o", "/dev/null", "-w", "%{http_code}", "--connect-timeout", "5", "-m", "10"],
      "http://time-service:5001/time",
    ]);
    expect(callArgv("wget", { url: "http://10.42.0.9:8080/cart", method: "POST", data: "a=1" }, 10)).toEqual([
      ...["wget", "-S", "-O", "/dev/null", "-T", "10", "--post-data=a=1"],
      "http://10.42.0.9:8080/cart",
    ]);
    expect(
      callArgv(
        "curl",
        { url: "http://u/api", method: "POST", data: "{}", contentType: "application/json" },
        90,
      ),
    ).toEqual(expect.arrayContaining(["-X", "POST", "--data", "{}", "-H", "Content-Type: application/json"]));
  });

  it("reads curl: the status, or its exit code (52 empty reply, 56 reset, 7 connect, 28 timeout, 6 DNS)", () => {
    expect(callOutcome("curl", out(0, "404"))).toEqual({ kind: "answered", status: 404 });
    expect(callOutcome("curl", out(22, "503", "curl: (22) The requested URL returned error: 503"))).toEqual({
      kind: "answered",
      status: 503,
    });
    expect(callOutcome("curl", out(52, "000", "curl: (52) Empty reply from server")).kind).toBe("closed");
    expect(
      callOutcome("curl", out(56, "000", "curl: (56) Recv failure: Connection reset by peer")).kind,
    ).toBe("closed");
    const refused = "curl: (7) Failed to connect to ts-travel-service port 12346: Connection refused";
    expect(callOutcome("curl", out(7, "000", refused)).kind).toBe("refused");
    expect(
      callOutcome("curl", out(7, "000", "curl: (7) Failed to connect to x port 1: Connection timed out"))
        .kind,
    ).toBe("timeout");
    expect(
      callOutcome("curl", out(7, "000", "curl: (7) Failed to connect to x port 1: No route to host")).kind,
    ).toBe("unreachable");
    expect(
      callOutcome("curl", out(28, "000", "curl: (28) Connection timed out after 5001 milliseconds")).kind,
    ).toBe("timeout");
    expect(callOutcome("curl", out(6, "000", "curl: (6) Could not resolve host: ts-route-mysql")).kind).toBe(
      "no such host",
    );
    expect(callOutcome("curl", out(35, "000", "curl: (35) SSL connect error"))).toEqual({
      kind: "unknown",
      words: "curl: (35) SSL connect error",
    });
  });

  it("reads wget: the last status line, or its words (BusyBox and GNU)", () => {
    const ok =
      "Connecting to time-service:5001 (10.43.0.11:5001)\n  HTTP/1.0 200 OK\n  Server: BaseHTTP/0.6\n";
    expect(callOutcome("wget", out(0, "", ok))).toEqual({ kind: "answered", status: 200 });
    const err =
      "  HTTP/1.1 500 Internal Server Error\nwget: server returned error: HTTP/1.1 500 Internal Server Error\n";
    expect(callOutcome("wget", out(1, "", err))).toEqual({ kind: "answered", status: 500 });
    const reset =
      "Connecting to productcatalogservice:3550 (10.43.0.14:3550)\nwget: error getting response: Connection reset by peer\n";
    expect(callOutcome("wget", out(1, "", reset)).kind).toBe("closed");
    expect(
      callOutcome(
        "wget",
        out(1, "", "Connecting to 10.42.0.19:8080 (10.42.0.19:8080)\nwget: error getting response\n"),
      ).kind,
    ).toBe("closed");
    expect(
      callOutcome("wget", out(1, "", "wget: can't connect to remote host (10.43.0.20): Connection refused\n"))
        .kind,
    ).toBe("refused");
    expect(
      callOutcome(
        "wget",
        out(1, "", "Connecting to time-service:5002 (10.43.0.11:5002)\nwget: download timed out\n"),
      ),
    ).toEqual({
      kind: "timeout",
      words: "wget: download timed out",
    });
    expect(callOutcome("wget", out(1, "", "wget: bad address 'redis-cart:6380'\n")).kind).toBe(
      "no such host",
    );
    // GNU wget (Debian's): its own words
    expect(
      callOutcome("wget", out(4, "", "Connecting to x (x)|10.0.0.1|:80... failed: Connection refused.\n"))
        .kind,
    ).toBe("refused");
    expect(
      callOutcome(
        "wget",
        out(4, "", "HTTP request sent, awaiting response... No data received.\nGiving up.\n\n"),
      ).kind,
    ).toBe("closed");
    expect(callOutcome("wget", out(1, "", "wget: unrecognized option\n")).kind).toBe("unknown");
  });
});

describe("the address an application dials", () => {
  it("reads a process's environment: NUL-separated or one a line, a later entry of a name winning", () => {
    const env = parseEnviron(
      "PATH=/bin\0TIME_SERVICE_ADDR=time-service:5001\0TIME_SERVICE_ADDR=time-service:5000\0X=a=b\0",
    );
    expect(env.get("TIME_SERVICE_ADDR")).toBe("time-service:5000");
    expect(env.get("X")).toBe("a=b");
    expect(parseEnviron("A=1\nB=2\n")).toEqual(
      new Map([
        ["A", "1"],
        ["B", "2"],
      ]),
    );
  });

  it("parses host:port, URLs and a redis client's connection string", () => {
    expect(parseAddress("productcatalogservice:3550")).toEqual({ host: "productcatalogservice", port: 3550 });
    expect(parseAddress("http://time-service:5001/time")).toEqual({
      host: "time-service",
      port: 5001,
      path: "/time",
    });
    expect(parseAddress("http://frontend")).toEqual({ host: "frontend", port: 80 });
    expect(parseAddress("redis://:pw@redis-cart:6380")).toEqual({ host: "redis-cart", port: 6380 });
    expect(parseAddress("jdbc:mysql://ts-mysql:3306/ts?useSSL=false")).toEqual({
      host: "ts-mysql",
      port: 3306,
      path: "/ts",
    });
    expect(parseAddress("redis-cart:6379,password=x,ssl=false")).toEqual({ host: "redis-cart", port: 6379 });
    expect(parseAddress("ts-route-mysql")).toEqual({ host: "ts-route-mysql" });
    expect(parseAddress("")).toBeUndefined();
  });

  it("follows the topology's dial: the variable, host and port variables, or the default", () => {
    const tt = loadEnv("train-ticket").topology;
    const travel = dialOf(tt.services["ts-travel-service"], "TRAVEL_MYSQL_PORT");
    expect(travel?.key).toBe("mysql");
    const env = new Map([
      ["TRAVEL_MYSQL_HOST", "tsdb-mysql-leader"],
      ["TRAVEL_MYSQL_PORT", "3307"],
    ]);
    expect(dialedAddress(travel?.dial, "TRAVEL_MYSQL_PORT", env)).toEqual({
      host: "tsdb-mysql-leader",
      port: 3307,
    });
    // unset: the application's default
    expect(dialedAddress(travel?.dial, "TRAVEL_MYSQL_PORT", new Map())).toEqual({
      host: "ts-travel-mysql",
      port: 3306,
    });
    const sm = loadEnv("simple-micro").topology;
    const hello = dialOf(sm.services["hello-service"], "TIME_SERVICE_ADDR");
    expect(hello?.dial.path).toBe("/time");
    expect(
      dialedAddress(hello?.dial, "TIME_SERVICE_ADDR", new Map([["TIME_SERVICE_ADDR", "time-service:5002"]])),
    ).toEqual({
      host: "time-service",
      port: 5002,
    });
    const ob = loadEnv("online-boutique").topology;
    const redis = dialOf(ob.services.cartservice, "REDIS_ADDR");
    expect(dialedAddress(redis?.dial, "REDIS_ADDR", new Map())).toBe(
      "REDIS_ADDR is not set and the application has no default",
    );
    expect(dialedAddress(redis?.dial, "REDIS_ADDR", new Map([["REDIS_ADDR", "redis-cart"]]), 6379)).toEqual({
      host: "redis-cart",
      port: 6379,
    });
    // a variable the topology does not describe: read as host:port
    expect(dialedAddress(undefined, "FOO_ADDR", new Map([["FOO_ADDR", "foo"]]))).toBe(
      "FOO_ADDR=foo names no port",
    );
  });

  it("knows the callers of a service (calls and stores) and the protocol a dial reaches", () => {
    const ob = loadEnv("online-boutique").topology;
    expect(callersOf(ob, "cartservice").sort()).toEqual(["checkoutservice", "frontend"]);
    expect(callersOf(ob, "redis-cart")).toEqual(["cartservice"]);
    expect(callersOf(ob, "frontend")).toEqual(["loadgenerator"]);
    expect(protocolOf(ob, "productcatalogservice")).toBe("grpc");
    expect(protocolOf(ob, "redis")).toBe("redis");
    expect(callersOf(loadEnv("simple-micro").topology, "hello-service")).toEqual([]);
  });

  it("reads the password a connection string sends to a host", () => {
    expect(passwordIn("redis-cart:6379,password=s3cr3t", "redis-cart")).toBe("s3cr3t");
    expect(passwordIn("redis-cart:6379", "redis-cart")).toBeNull();
    expect(passwordIn("redis://:pw@redis-cart.ob.svc:6379", "redis-cart")).toBe("pw");
    expect(passwordIn("time-service:5001", "redis-cart")).toBeUndefined();
  });

  it("turns a route's pattern into a request: the system's own request on it, else the pattern filled", () => {
    const known = [
      { name: "home", url: "http://frontend:80/", method: "GET" as const },
      { name: "product", url: "http://frontend:80/product/OLJCESPC7Z", method: "GET" as const },
    ];
    expect(routeRequest("/product/*", known)).toEqual({ path: "/product/OLJCESPC7Z", like: known[1] });
    expect(routeRequest("/time", known)).toEqual({ path: "/time" });
    expect(routeRequest("/api/v1/*", known)).toEqual({ path: "/api/v1/x" });
  });
});

describe("the calls check's edge and verdict", () => {
  it("takes the edge from the fault's values", () => {
    expect(edgeOf({ var: "TIME_SERVICE_ADDR", value: "time-service:5002" })).toEqual({
      kind: "env",
      variable: "TIME_SERVICE_ADDR",
    });
    expect(edgeOf({ callee: "time-service" })).toEqual({ kind: "callee", callee: "time-service" });
    expect(edgeOf({ port: 8080, path: "/cart" })).toEqual({ kind: "route", port: 8080, path: "/cart" });
    expect(edgeOf({})).toEqual({ kind: "ingress" });
  });

  const row = (outcome: CallRow["outcome"], http = true): CallRow => ({
    from: "a/sidecar",
    to: "b:80",
    outcome,
    http,
  });

  it("passes when every request reached its server: an HTTP answer, or a non-HTTP server's close", () => {
    const v = judgeCalls(
      "a → b",
      [row({ kind: "answered", status: 500 }), row({ kind: "closed", words: "" }, false)],
      [],
    );
    expect(v.pass).toBe(true);
    expect(v.reason).toBe(
      "a → b: every request reached its server (a/sidecar → b:80: HTTP 500; a/sidecar → b:80: connected (the server speaks another protocol))",
    );
  });

  it("fails conclusively on a refused, timed-out or aborted request; says nothing on problems alone", () => {
    const aborted = judgeCalls(
      "GET /cart on f:8080",
      [row({ kind: "closed", words: "wget: error getting response" })],
      [],
    );
    expect(aborted).toMatchObject({
      pass: false,
      reason: "GET /cart on f:8080 fails: a/sidecar → b:80: connected, closed without an answer",
    });
    expect(aborted.inconclusive).toBeUndefined();
    expect(
      judgeCalls("e", [row({ kind: "no address", words: "X is not set" })], []).inconclusive,
    ).toBeUndefined();
    const nothing = judgeCalls("e", [], ["no Ready pod of b"]);
    expect(nothing).toMatchObject({ pass: false, inconclusive: true, reason: "e fails: no Ready pod of b" });
    expect(judgeCalls("e", [], [])).toMatchObject({
      pass: false,
      inconclusive: true,
      reason: "e fails: no request was made",
    });
    // a pod that could not be checked keeps the reading from passing
    expect(
      judgeCalls("e", [row({ kind: "answered", status: 200 })], ["b-2 has no curl or wget"]),
    ).toMatchObject({
      pass: false,
      inconclusive: true,
    });
  });
});

describe("CPU throttling", () => {
  const stat = (periods: number, throttled: number) =>
    `usage_usec 1\nuser_usec 1\nsystem_usec 0\nnr_periods ${periods}\nnr_throttled ${throttled}\nthrottled_usec 9\n`;

  it("reads nr_periods and nr_throttled, and the share of periods throttled between two readings", () => {
    expect(parseCpuStat(stat(1163, 12))).toEqual({ periods: 1163, throttled: 12 });
    expect(parseCpuStat("usage_usec 1\n")).toBeUndefined();
    expect(throttledShare({ periods: 100, throttled: 10 }, { periods: 200, throttled: 60 })).toBe(0.5);
    expect(throttledShare({ periods: 100, throttled: 10 }, { periods: 100, throttled: 10 })).toBe(0);
    // a new container's counts start again
    expect(throttledShare({ periods: 900, throttled: 900 }, { periods: 30, throttled: 0 })).toBeUndefined();
  });

  const rows = (share: number) => [
    { pod: "t-1", container: "t", periods: 100, throttled: share * 100, share },
  ];

  it("shows the fault above half the periods; recovered at a quarter or less (CPUThrottlingHigh's 25%)", () => {
    expect([FAULT_SHARE, RECOVERED_SHARE]).toEqual([0.5, 0.25]);
    expect(judgeThrottle("t", rows(1), "confirm")).toMatchObject({
      pass: false,
      reason: "t-1/t throttled in 100 of 100 periods (100%) (above 50%)",
    });
    expect(judgeThrottle("t", rows(0.4), "confirm").pass).toBe(true);
    expect(judgeThrottle("t", rows(0.4), "final")).toMatchObject({
      pass: false,
      reason: "t-1/t throttled in 40 of 100 periods (40%) (above 25%)",
    });
    expect(judgeThrottle("t", rows(0.25), "final").pass).toBe(true);
    expect(judgeThrottle("t", rows(0), "final").reason).toBe(
      "t is not starved of CPU: t-1/t throttled in 0 of 100 periods (0%)",
    );
    const unread = judgeThrottle(
      "t",
      [{ pod: "t-1", container: "t", problem: "cpu.stat could not be read" }],
      "final",
    );
    expect(unread).toMatchObject({ pass: false, inconclusive: true });
    expect(judgeThrottle("t", [], "final")).toMatchObject({
      pass: false,
      inconclusive: true,
      reason: "no Ready pod of t",
    });
  });
});

describe("the store's answer", () => {
  it("is PONG, or the refusal of the client's credentials, or no connection", () => {
    expect(pingAnswer("PONG\n", "")).toEqual({ ok: true, words: "PONG", conclusive: true });
    expect(pingAnswer("NOAUTH Authentication required.\n\n", "")).toMatchObject({
      ok: false,
      conclusive: true,
    });
    // a password sent to a store that requires none: redis warns, and answers
    const none =
      "AUTH failed: ERR AUTH <password> called without any password configured for the default user.\n";
    expect(pingAnswer("PONG\n", none)).toMatchObject({ ok: true });
    expect(
      pingAnswer("", "Could not connect to Redis at redis-cart:6379: Connection refused\n"),
    ).toMatchObject({
      ok: false,
      conclusive: true,
    });
    expect(pingAnswer("", "")).toEqual({ ok: false, words: "no answer", conclusive: false });
  });
});
