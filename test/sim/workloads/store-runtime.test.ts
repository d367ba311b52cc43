// redis-server's runtime configuration on Online-Boutique's redis-cart, through redis-cli run in
// the store's container (the exec path kubectl exec takes), on a pinned clock. Checked against
// redis 7.2.4's sources (github:redis/redis, tag 7.2.4):
// - src/config.c: CONFIG SET's errors ("Unknown option or number of arguments for CONFIG SET -
//   '%s'", "CONFIG SET failed (possibly related to argument '%s') - %s", the enum's "argument(s)
//   must be one of the following: ..."), memtoull's units (1mb = 1048576), maxclients' range,
//   updateMaxmemory's WARNING line.
// - src/server.c: processCommand rejects a CMD_DENYOOM command with shared.oomerr ("-OOM command
//   not allowed when used memory > 'maxmemory'.") when performEvictions fails; genRedisInfoString's
//   "# Memory" (used_memory, used_memory_human via bytesToHuman, maxmemory_policy) and "# Clients".
// - src/networking.c: acceptCommonHandler answers "-ERR max number of clients reached" once
//   server.clients holds maxclients; catClientInfoString's CLIENT LIST fields.
// - microservices-demo v0.3.8: RedisCartStore.cs (AddItemAsync/EmptyCartAsync write through
//   _cache.SetAsync, GetCartAsync reads), checkoutservice main.go (`_ = cs.emptyUserCart(...)`).
import { beforeAll, describe, expect, it } from "vitest";
import { R } from "../../../src/sim/api/resources.js";
import type { Deployment, Pod } from "../../../src/sim/core/objects.js";
import { deploy, type Sim } from "../helpers/topology.js";

let sim: Sim;
let centos: Pod;
const cli = (...argv: string[]) => sim.exec(sim.pod("redis-cart"), ["redis-cli", ...argv], "redis");
const page = async (method: string, path: string) =>
  (
    await sim.exec(centos, [
      "curl",
      "-s",
      "-o",
      "/dev/null",
      "-w",
      "%{http_code}",
      "-X",
      method,
      ...(method === "POST" ? ["-d", "product_id=OLJCESPC7Z&quantity=1"] : []),
      `http://frontend${path}`,
    ])
  ).out;

beforeAll(() => {
  sim = deploy("online-boutique", "store-rt");
  sim.advance(120_000, 1000);
  centos = sim.addPod("debug", [{ name: "debug", image: "centos:7", command: ["sleep", "infinity"] }]);
}, 120_000);

describe("redis-cart's runtime configuration", () => {
  it("reports its defaults, memory, keys and clients as redis 7.2 prints them", async () => {
    const g = await cli("config", "get", "maxmemory*");
    expect(g.out).toBe("maxmemory\n0\nmaxmemory-policy\nnoeviction\nmaxmemory-samples\n5\n");
    expect((await cli("config", "get", "maxclients")).out).toBe("maxclients\n10000\n");
    const mem = (await cli("info", "memory")).out;
    expect(mem.startsWith("# Memory\r\nused_memory:")).toBe(true);
    const used = Number(mem.match(/used_memory:(\d+)/)![1]);
    // an empty server plus ten users' carts and a few clients: under a megabyte
    expect(used).toBeGreaterThan(800_000);
    expect(used).toBeLessThan(1_000_000);
    expect(mem).toMatch(/used_memory_human:\d+\.\d\dK\r\n/);
    expect(mem).toContain("maxmemory_policy:noeviction\r\n");
    expect((await cli("dbsize")).out).toBe("10\n");
    // cartservice's multiplexer holds two connections (interactive, subscription), and our own
    const list = (await cli("client", "list")).out.trim().split("\n");
    expect(list).toHaveLength(3);
    expect(list[0]).toMatch(
      /^id=\d+ addr=[\d.]+:\d+ laddr=[\d.]+:6379 fd=\d+ name=cartservice-[\w-]+ age=\d+ idle=\d+ flags=N db=0 sub=0 psub=0 ssub=0 multi=-1 /,
    );
    expect(list[1]).toMatch(
      /flags=P db=0 sub=1 .* cmd=subscribe user=default redir=-1 resp=2 lib-name= lib-ver=$/,
    );
    expect(list[2]).toMatch(/ cmd=client\|list /);
    expect((await cli("info", "clients")).out).toContain(
      "connected_clients:3\r\ncluster_connections:0\r\nmaxclients:10000\r\n",
    );
  });

  it("answers CONFIG SET's errors as config.c words them", async () => {
    expect((await cli("config", "set", "maxmemory", "lots")).out).toBe(
      "ERR CONFIG SET failed (possibly related to argument 'maxmemory') - argument must be a memory value\n\n",
    );
    expect((await cli("config", "set", "maxmemory-policy", "lru")).out).toBe(
      "ERR CONFIG SET failed (possibly related to argument 'maxmemory-policy') - argument(s) must be one of the following: volatile-lru, volatile-lfu, volatile-random, volatile-ttl, allkeys-lru, allkeys-lfu, allkeys-random, noeviction\n\n",
    );
    expect((await cli("config", "set", "nosuch", "1")).out).toBe(
      "ERR Unknown option or number of arguments for CONFIG SET - 'nosuch'\n\n",
    );
    expect((await cli("config", "set", "maxclients", "0")).out).toBe(
      "ERR CONFIG SET failed (possibly related to argument 'maxclients') - argument must be between 1 and 4294967295 inclusive\n\n",
    );
  });

  it("under maxmemory with noeviction refuses writes: add-to-cart fails, the cart page works, checkout works", async () => {
    expect(await page("POST", "/cart")).toBe("302");
    expect((await cli("config", "set", "maxmemory", "512kb")).out).toBe("OK\n");
    expect((await cli("config", "get", "maxmemory")).out).toBe("maxmemory\n524288\n");
    expect((await cli("info", "memory")).out).toContain("maxmemory_human:512.00K\r\n");
    expect((await cli("set", "k", "v")).out).toBe(
      "OOM command not allowed when used memory > 'maxmemory'.\n\n",
    );
    expect((await cli("get", "k")).out).toBe("\n");
    const redisLog = sim.logs(sim.pod("redis-cart"), "redis");
    expect(redisLog.at(-1)).toMatch(
      /^1:M \d\d \w{3} \d{4} [\d:.]+ # WARNING: the new maxmemory value set via CONFIG SET \(524288\) is smaller than the current memory usage \(\d+\)\. This will result in key eviction and\/or the inability to accept new write commands depending on the maxmemory-policy\.$/,
    );
    expect(await page("GET", "/cart")).toBe("200");
    expect(await page("POST", "/cart")).toBe("500");
    expect(await page("POST", "/cart/empty")).toBe("500");
    // PlaceOrder ignores EmptyCart's error
    expect(await page("POST", "/cart/checkout")).toBe("200");
    // cartservice logs the server's refusal of its SetScript
    sim.advance(120_000, 1000);
    const logs = sim.logs(sim.pod("cartservice")).join("\n");
    expect(logs).toContain(
      "Error status code 'FailedPrecondition' with detail 'Can't access cart storage. StackExchange.Redis.RedisServerException: OOM command not allowed when used memory > 'maxmemory'.",
    );
  }, 120_000);

  it("allkeys-lru evicts the carts but cannot go under the server's own memory: writes still fail", async () => {
    expect((await cli("config", "set", "maxmemory-policy", "allkeys-lru")).out).toBe("OK\n");
    expect((await cli("set", "k", "v")).out).toBe(
      "OOM command not allowed when used memory > 'maxmemory'.\n\n",
    );
    expect((await cli("dbsize")).out).toBe("0\n");
    expect((await cli("info", "stats")).out).toMatch(/evicted_keys:10\r\n/);
    // a limit above the server's own use: evictions make room, writes go through
    expect((await cli("config", "set", "maxmemory", "1mb")).out).toBe("OK\n");
    expect((await cli("set", "k", "v")).out).toBe("OK\n");
    expect(await page("POST", "/cart")).toBe("302");
  });

  it("a restart of redis-cart's container undoes CONFIG SET", async () => {
    await cli("config", "set", "maxmemory", "512kb", "maxmemory-policy", "noeviction");
    expect(await page("POST", "/cart")).toBe("500");
    const pod = sim.pod("redis-cart");
    const ctx = sim.cluster.ctx;
    // the container is killed and restarted by the kubelet (as a crash or `kill 1` would)
    await sim.exec(pod, ["kill", "1"], "redis");
    for (let i = 0; i < 60; i++) {
      sim.advance(1000);
      const p = ctx.registry.get(R("Pod"), sim.ns, pod.metadata.name!) as Pod;
      const st = p.status?.containerStatuses?.find((c) => c.name === "redis");
      if (st?.restartCount === 1 && st.ready) break;
    }
    const st = (
      ctx.registry.get(R("Pod"), sim.ns, pod.metadata.name!) as Pod
    ).status?.containerStatuses?.find((c) => c.name === "redis");
    expect(st?.restartCount).toBe(1);
    expect((await cli("config", "get", "maxmemory")).out).toBe("maxmemory\n0\n");
    sim.advance(10_000, 1000);
    expect(await page("POST", "/cart")).toBe("302");
  }, 120_000);

  it("maxclients below the connections: held connections stay, new ones are refused", async () => {
    sim.advance(5_000, 1000);
    expect((await cli("client", "list")).out.trim().split("\n")).toHaveLength(3);
    expect((await cli("config", "set", "maxclients", "2")).out).toBe("OK\n");
    // cartservice's two connections fill it: redis-cli's own is refused
    expect((await cli("ping")).out).toBe("ERR max number of clients reached\n\n");
    expect((await cli("info", "stats")).out).toBe("ERR max number of clients reached\n\n");
    // cartservice keeps its connections: the cart page still works
    expect(await page("GET", "/cart")).toBe("200");
    // a second cartservice pod finds no room: its calls fail, the first pod's work
    const first = sim.pod("cartservice").metadata.name!;
    const dep = sim.cluster.ctx.registry.get(R("Deployment"), sim.ns, "cartservice") as Deployment;
    sim.cluster.ctx.registry.update(R("Deployment"), sim.ns, "cartservice", {
      ...dep,
      spec: { ...dep.spec, replicas: 2 },
    } as never);
    sim.advance(90_000, 1000);
    const pods = sim.pods("cartservice");
    expect(pods).toHaveLength(2);
    const second = pods.find((p) => p.metadata.name !== first)!;
    const unable =
      "StackExchange.Redis.RedisConnectionException: It was not possible to connect to the redis server(s). UnableToConnect on redis-cart:6379/Interactive";
    expect(sim.logs(second).join("\n")).toContain(unable);
    expect(
      sim.logs(sim.pods("cartservice").find((p) => p.metadata.name === first)!).join("\n"),
    ).not.toContain(unable);
  }, 120_000);
});
