// The expert tier's cache-auth, through real kubectl on Online-Boutique: chaos/expert/cache-auth.yaml
// gives redis-cart's container `args: ["--requirepass", "<pw>"]`. redis:alpine's
// docker-entrypoint.sh runs `redis-server "$@"` when the first argument starts with `-`, and
// redis-server reads config options from its arguments, so the server requires the password and
// answers every command of a connection that has not sent AUTH with `-NOAUTH Authentication
// required.` (server.c processCommand's authRequired check). redis-cart's probe is tcpSocket, so
// its pod stays Running and Ready.
//
// cartservice (microservices-demo v0.3.8, `git show v0.3.8:src/cartservice/src/cartstore/
// RedisCartStore.cs`) logs `GetCartAsync called with userId=...` (Console.WriteLine), then wraps
// what Microsoft.Extensions.Caching.StackExchangeRedis 6.0 throws into RpcException
// (FailedPrecondition, "Can't access cart storage. {ex}"), which Grpc.AspNetCore's
// ServerCallHandler logs (event 7, "Error status code '...' with detail '...' raised."); the
// connection's handshake fails on NOAUTH, which StackExchange.Redis 2.2 reports as
// "There was an authentication failure; check that passwords (or client certificates) are
// configured correctly." So the frontend's pages, which all read the cart, answer 500.
//
// What undoes it: `rollout undo` of redis-cart, or cartservice given the password in REDIS_ADDR as
// StackExchange.Redis's ConfigurationOptions.Parse reads it (`redis-cart:6379,password=<pw>`).
// redis-cli in redis-cart's container (redis-cli.c): without -a, NOAUTH (raw output, not a
// terminal: the error's text and a blank line, exit 0); with -a, the warning on stderr and PONG.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestCluster, type TestCluster } from "../../helpers/cluster.js";
import { deploySystem, eventually, isReady, type Kn, kubectlIn } from "../helpers/failures.js";
import { curlUntil, onePod, patchWith, statusOf, undo } from "../helpers/lifecycle.js";
import { debugPod } from "../helpers/network.js";

let t: TestCluster;

beforeAll(async () => {
  t = await startTestCluster(60, 61);
}, 60_000);
afterAll(() => t?.stop());

describe("Online-Boutique: redis-cart requires a password cartservice does not send", () => {
  const NS = "cache-auth-ob";
  const PW = "s3cret-pw";
  let kn: Kn;
  let curl: string;

  beforeAll(async () => {
    kn = kubectlIn(t, NS);
    await deploySystem(t, "online-boutique", NS);
    curl = await debugPod(kn);
    await curlUntil(kn, curl, "http://frontend/cart", (a) => a.code === "200");
  }, 240_000);

  it("redis answers NOAUTH, cartservice logs the authentication failure, the pages fail; redis-cart stays Ready", async () => {
    const before = (await onePod(kn, "redis-cart", isReady)).metadata.name;
    const r = await patchWith(t, kn, "redis-cart", "cache-auth", { target_container: "redis", password: PW });
    expect(r.exitCode, r.stderr).toBe(0);
    const pod = await onePod(kn, "redis-cart", (p) => p.metadata.name !== before && isReady(p));
    expect(statusOf(pod, "redis")).toMatchObject({ ready: true, restartCount: 0 });
    expect(pod.spec.containers.find((c) => c.name === "redis")?.args).toEqual(["--requirepass", PW]);
    const name = pod.metadata.name;
    // redis-cli: NOAUTH without the password (raw output off a terminal: the text, a blank line;
    // kubectl's output is read with its last newline stripped), PONG with it
    const bare = await kn(["exec", name, "-c", "redis", "--", "redis-cli", "ping"]);
    expect(bare.exitCode).toBe(0);
    expect(bare.stdout).toBe("NOAUTH Authentication required.\n");
    const get = await kn(["exec", name, "-c", "redis", "--", "redis-cli", "get", "some-user"]);
    expect(get.stdout).toBe("NOAUTH Authentication required.\n");
    const authed = await kn(["exec", name, "-c", "redis", "--", "redis-cli", "-a", PW, "ping"]);
    expect(authed.stdout).toBe("PONG");
    expect(authed.stderr).toBe(
      "Warning: Using a password with '-a' or '-u' option on the command line interface may not be safe.",
    );
    const wrong = await kn([
      "exec",
      name,
      "-c",
      "redis",
      "--",
      "redis-cli",
      "--no-auth-warning",
      "-a",
      "x",
      "ping",
    ]);
    expect(wrong.stderr).toBe("AUTH failed: WRONGPASS invalid username-password pair or user is disabled.");
    expect(wrong.stdout).toBe("NOAUTH Authentication required.\n");
    // the sidecar's BusyBox has no redis-cli
    const none = await kn(["exec", name, "-c", "sidecar-busybox", "--", "redis-cli", "ping"]);
    expect(none.exitCode).not.toBe(0);
    // the pages read the cart: 500 while the store refuses cartservice
    await curlUntil(kn, curl, "http://frontend/cart", (a) => a.code === "500");
    const cart = await onePod(kn, "cartservice", isReady);
    const logs = await eventually(kn, ["logs", cart.metadata.name, "-c", "server", "--tail=200"], (o) =>
      o.includes("There was an authentication failure"),
    );
    expect(logs).toMatch(/GetCartAsync called with userId=[0-9a-f-]{36}\n/);
    expect(logs).toContain("info: Grpc.AspNetCore.Server.ServerCallHandler[7]");
    expect(logs).toMatch(
      /Error status code 'FailedPrecondition' with detail 'Can't access cart storage\. StackExchange\.Redis\.RedisConnectionException: It was not possible to connect to the redis server\(s\)\. There was an authentication failure; check that passwords \(or client certificates\) are configured correctly\. AuthenticationFailure \(None, last-recv: 105\) on redis-cart:6379\/Interactive/,
    );
    // cartservice itself stays up (its health check does not touch redis)
    expect(statusOf(cart, "server")?.restartCount).toBe(0);

    // fix one: give cartservice the password as StackExchange.Redis reads it
    const env = await kn([
      "set",
      "env",
      "deployment/cartservice",
      `REDIS_ADDR=redis-cart:6379,password=${PW}`,
    ]);
    expect(env.exitCode, env.stderr).toBe(0);
    await eventually(
      kn,
      ["rollout", "status", "deployment/cartservice", "--timeout=20s"],
      (o) => o.includes("successfully rolled out"),
      120_000,
    );
    await curlUntil(kn, curl, "http://frontend/cart", (a) => a.code === "200");
    // a wrong password is refused too
    const bad = await kn([
      "set",
      "env",
      "deployment/cartservice",
      "REDIS_ADDR=redis-cart:6379,password=nope",
    ]);
    expect(bad.exitCode, bad.stderr).toBe(0);
    await curlUntil(kn, curl, "http://frontend/cart", (a) => a.code === "500", [], 120_000);

    // fix two: take the password away from redis-cart (cartservice back as deployed, too)
    await undo(kn, "redis-cart");
    const plain = await kn([
      "exec",
      (await onePod(kn, "redis-cart", isReady)).metadata.name,
      "-c",
      "redis",
      "--",
      "redis-cli",
      "ping",
    ]);
    expect(plain.stdout).toBe("PONG");
    await kn(["set", "env", "deployment/cartservice", "REDIS_ADDR=redis-cart:6379"]);
    await curlUntil(kn, curl, "http://frontend/cart", (a) => a.code === "200", [], 120_000);
  }, 420_000);
});
