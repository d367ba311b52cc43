// A password kept in a Secret and read at container start on both sides: redis-cart's
// `--requirepass $(REDIS_PASSWORD)` and cartservice's REDIS_ADDR `redis-cart:6379,password=
// $(REDIS_PASSWORD)`, each with REDIS_PASSWORD from a secretKeyRef. The kubelet resolves a
// container's environment once, when it creates the container (kubernetes
// pkg/kubelet/kubelet_pods.go makeEnvironmentVariables, secretKeyRef read then), and expands
// $(VAR) in its args from that environment (pkg/kubelet/container/helpers.go
// ExpandContainerCommandAndArgs). So a rotated Secret reaches a side only when its container
// starts again: the store restarted alone requires the new password, the client still sends the
// old one and redis answers WRONGPASS (redis 7.2 src/server.c processCommand, src/acl.c
// "WRONGPASS invalid username-password pair or user is disabled."); restarting the client too
// mends it. Pinned clock, redis-cli through the exec path.
import { beforeAll, describe, expect, it } from "vitest";
import { R } from "../../../src/sim/api/resources.js";
import type { Container, Deployment, KObject, Pod } from "../../../src/sim/core/objects.js";
import { deploy, type Sim } from "../helpers/topology.js";

const secretEnv = {
  name: "REDIS_PASSWORD",
  valueFrom: { secretKeyRef: { name: "redis-auth", key: "password" } },
};

/** redis-cart and cartservice read the password from the Secret at start. */
function withSecret(o: KObject): KObject {
  if (o.kind !== "Deployment") return o;
  const d = structuredClone(o) as Deployment;
  const name = d.metadata.name;
  const c = d.spec.template.spec!.containers[0] as Container;
  if (name === "redis-cart") {
    c.env = [secretEnv];
    c.args = ["--requirepass", "$(REDIS_PASSWORD)"];
  }
  if (name === "cartservice")
    c.env = [
      secretEnv,
      ...(c.env ?? []).map((e) =>
        e.name === "REDIS_ADDR"
          ? { name: "REDIS_ADDR", value: "redis-cart:6379,password=$(REDIS_PASSWORD)" }
          : e,
      ),
    ];
  return d;
}

let sim: Sim;
let centos: Pod;
const cartPage = async () =>
  (await sim.exec(centos, ["curl", "-s", "-o", "/dev/null", "-w", "%{http_code}", "http://frontend/cart"]))
    .out;
const secretData = (pw: string) => ({ password: Buffer.from(pw).toString("base64") });

/** Kill a container's main process and let the kubelet start it again. */
async function restart(app: string, container: string) {
  const pod = sim.pod(app);
  const before = pod.status?.containerStatuses?.find((c) => c.name === container)?.restartCount ?? 0;
  await sim.exec(pod, ["kill", "1"], container);
  for (let i = 0; i < 60; i++) {
    sim.advance(1000);
    const st = sim.pod(app).status?.containerStatuses?.find((c) => c.name === container);
    if (st?.restartCount === before + 1 && st.ready) break;
  }
  sim.advance(10_000, 1000);
}

beforeAll(() => {
  sim = deploy("online-boutique", "rotation", { create: withSecret });
  sim.cluster.ctx.registry.create(R("Secret"), sim.ns, {
    apiVersion: "v1",
    kind: "Secret",
    metadata: { name: "redis-auth", namespace: sim.ns },
    data: secretData("first-pw"),
  });
  sim.advance(120_000, 1000);
  centos = sim.addPod("debug", [{ name: "debug", image: "centos:7", command: ["sleep", "infinity"] }]);
}, 120_000);

describe("a Secret rotated on one side", () => {
  it("both sides read the same password at start: the cart works", async () => {
    const cli = await sim.exec(
      sim.pod("redis-cart"),
      ["redis-cli", "--no-auth-warning", "-a", "first-pw", "ping"],
      "redis",
    );
    expect(cli.out).toBe("PONG\n");
    expect(await cartPage()).toBe("200");
  });

  it("the Secret changes: nothing running notices", async () => {
    const s = sim.cluster.ctx.registry.get(R("Secret"), sim.ns, "redis-auth");
    sim.cluster.ctx.registry.update(R("Secret"), sim.ns, "redis-auth", {
      ...s,
      data: secretData("second-pw"),
    });
    sim.advance(120_000, 1000);
    const cli = await sim.exec(
      sim.pod("redis-cart"),
      ["redis-cli", "--no-auth-warning", "-a", "first-pw", "ping"],
      "redis",
    );
    expect(cli.out).toBe("PONG\n");
    expect(await cartPage()).toBe("200");
  }, 60_000);

  it("the store restarts and requires the new one; the client still sends the old: WRONGPASS", async () => {
    await restart("redis-cart", "redis");
    const old = await sim.exec(
      sim.pod("redis-cart"),
      ["redis-cli", "--no-auth-warning", "-a", "first-pw", "ping"],
      "redis",
    );
    expect(old.err).toBe("AUTH failed: WRONGPASS invalid username-password pair or user is disabled.\n");
    const neu = await sim.exec(
      sim.pod("redis-cart"),
      ["redis-cli", "--no-auth-warning", "-a", "second-pw", "ping"],
      "redis",
    );
    expect(neu.out).toBe("PONG\n");
    expect(
      (
        await sim.exec(
          sim.pod("redis-cart"),
          ["redis-cli", "-a", "second-pw", "--no-auth-warning", "config", "get", "requirepass"],
          "redis",
        )
      ).out,
    ).toBe("requirepass\nsecond-pw\n");
    expect(await cartPage()).toBe("500");
  }, 60_000);

  it("restarting the client too picks the new password: the cart works again", async () => {
    await restart("cartservice", "server");
    expect(await cartPage()).toBe("200");
  }, 60_000);
});
