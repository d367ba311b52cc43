// The expert types that leave their target rolled out and Ready are each judged
// by their own symptom. On Simple-Micro, one namespace per type: the fault injected as a case
// injects it; its check in confirm mode sees it (the requests along the edge fail, or the
// container is throttled in most periods); in final mode with the fault in place it fails, as a
// noop run meets it; fixed with kubectl (the oracle's way, or another correct one), it passes.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkBuilt, type SimCluster, startSim, tmp } from "../cli/cli-helpers.js";
import { deployed, type Faulted, SHORT } from "./faulted.js";

let sim: SimCluster;

beforeAll(async () => {
  checkBuilt();
  sim = await startSim(tmp("mr-calls-"), 60);
}, 60_000);
afterAll(() => sim?.stop());

/** The index of the last entry of a container's env (the one env-shadowed appends). */
async function lastEnvIndex(f: Faulted, deploy: string): Promise<number> {
  const names = await f.kn([
    "get",
    "deployment",
    deploy,
    "-o",
    "jsonpath={.spec.template.spec.containers[0].env[*].name}",
  ]);
  return names.trim().split(/\s+/).length - 1;
}

interface Case {
  failure: string;
  target: string;
  /** What the confirm reading says of the fault. */
  shows: RegExp;
  fix: (f: Faulted) => Promise<unknown>;
  /** What the final reading says once it is fixed. */
  fixed: RegExp;
}

const rolledBack = (deploy: string) => async (f: Faulted) => {
  await f.kn(["rollout", "undo", `deployment/${deploy}`]);
  await f.kn(["rollout", "status", `deployment/${deploy}`, "--timeout=300s"]);
};
const restarted = (deploy: string) => async (f: Faulted) => {
  await f.kn(["rollout", "restart", `deployment/${deploy}`]);
  await f.kn(["rollout", "status", `deployment/${deploy}`, "--timeout=300s"]);
};

const CASES: Case[] = [
  {
    // TIME_SERVICE_ADDR=time-service:5002: no kube-proxy rule answers that port
    failure: "env-wrong-addr",
    target: "hello-service",
    shows: /hello-service-[\w-]+\/sidecar-busybox → time-service:5002 \(TIME_SERVICE_ADDR\): timed out/,
    fix: rolledBack("hello-service"),
    fixed: /→ time-service:5001 \(TIME_SERVICE_ADDR\): HTTP 200/,
  },
  {
    // a second TIME_SERVICE_ADDR, later in the list: the kubelet gives the container the last one
    failure: "env-shadowed",
    target: "hello-service",
    shows: /→ time-service:5000 \(TIME_SERVICE_ADDR\): timed out/,
    // a correct fix other than the oracle's: the shadowing entry removed
    fix: async (f) => {
      const i = await lastEnvIndex(f, "hello-service");
      const op = [{ op: "remove", path: `/spec/template/spec/containers/0/env/${i}` }];
      await f.kn(["patch", "deployment", "hello-service", "--type", "json", "-p", JSON.stringify(op)]);
      await f.kn(["rollout", "status", "deployment/hello-service", "--timeout=300s"]);
    },
    fixed: /→ time-service:5001 \(TIME_SERVICE_ADDR\): HTTP 200/,
  },
  {
    // from the caller hello-service's pod; kube-router REJECTs what the policy does not admit
    failure: "netpol-deny",
    target: "time-service",
    shows:
      /calls to time-service fails: hello-service-[\w-]+\/sidecar-busybox → time-service:5001: connection refused/,
    fix: (f) => f.kn(["delete", "networkpolicy", "time-service-ingress"]),
    fixed: /hello-service-[\w-]+\/sidecar-busybox → time-service:5001: HTTP 404/,
  },
  {
    // the partition drops the SYN: the connect times out; a new pod is outside the chaos
    failure: "network-partition",
    target: "hello-service",
    shows: /hello-service → time-service fails: .* → time-service:5001: timed out/,
    fix: restarted("hello-service"),
    fixed: /→ time-service:5001: HTTP 404/,
  },
  {
    // hello-service has no caller in the cluster: requested from the user check's client
    failure: "http-abort",
    target: "hello-service",
    shows:
      /GET \/hello on hello-service:5000 fails: time-service-[\w-]+\/sidecar-busybox → hello-service-[\w-]+ [\d.]+:5000\/hello: connected, closed without an answer/,
    fix: restarted("hello-service"),
    fixed: /→ hello-service-[\w-]+ [\d.]+:5000\/hello: HTTP 200/,
  },
  {
    // 5m of CPU: every period runs out of quota. Fixed by raising the limit (not the oracle's undo)
    failure: "cpu-throttle",
    target: "time-service",
    shows: /time-service-[\w-]+\/time-service throttled in (\d+) of \1 periods \(100%\) \(above (50|25)%\)/,
    fix: async (f) => {
      const set = ["set", "resources", "deployment/time-service", "-c", "time-service"];
      await f.kn([...set, "--limits=cpu=1", "--requests=cpu=100m"]);
      await f.kn(["rollout", "status", "deployment/time-service", "--timeout=300s"]);
    },
    fixed:
      /time-service is not starved of CPU: time-service-[\w-]+\/time-service throttled in 0 of \d+ periods \(0%\)/,
  },
];

describe("Simple-Micro: each type's own check, faulted then fixed", () => {
  it.each(CASES)(
    "$failure on $target",
    async (c) => {
      const f = await deployed(sim, "simple-micro", `calls-${c.failure}`);
      const healthy = await f.check(c.failure, c.target, "final", SHORT);
      expect(healthy.pass, healthy.reason).toBe(true);
      await f.inject(c.failure, c.target);
      const seen = await f.check(c.failure, c.target, "confirm");
      expect(seen.pass, seen.reason).toBe(false);
      expect(seen.inconclusive).toBeUndefined();
      expect(seen.reason).toMatch(c.shows);
      // what a noop run meets: the target rolled out and Ready, the fault in place
      const left = await f.check(c.failure, c.target, "final", SHORT);
      expect(left.pass, left.reason).toBe(false);
      expect(left.inconclusive).toBeUndefined();
      expect(left.reason).toMatch(c.shows);
      expect(left.measurements.rollout).toMatchObject({ replicas: 1, ready: 1 });
      await c.fix(f);
      const fixed = await f.check(c.failure, c.target, "final");
      expect(fixed.pass, fixed.reason).toBe(true);
      expect(fixed.reason).toMatch(c.fixed);
    },
    240_000,
  );
});
