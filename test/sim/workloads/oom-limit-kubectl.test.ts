// The expert tier's oom-limit, through real kubectl on Simple-Micro and Online-Boutique, and on
// Train-Ticket with a pinned clock: chaos/expert/oom-limit.yaml switches the Deployment to
// Recreate and sets the memory limit and request below the application's working set. The
// container runs until the kernel's memory cgroup finds it over memory.max and kills it: the
// kubelet reports the container terminated with reason OOMKilled and exit code 137 (128 + SIGKILL;
// containerd's TaskExit with the OOM event, pkg/kubelet/kuberuntime's toKubeContainerState),
// `describe` lists `Last State: Terminated, Reason: OOMKilled, Exit Code: 137`, and the restarts
// back off (CrashLoopBackOff, pkg/kubelet/kuberuntime backOff: 10 s doubling to 5 min). The
// working sets (envs/*/topology.yaml runtime.memory, 60% at the start rising to 100%): time- and
// hello-service 35-40 Mi (16Mi, Simple-Micro's env.yaml value), cartservice 120 Mi,
// productcatalogservice 25 Mi, Train-Ticket's Spring Boot services 360-450 Mi.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Deployment, KObject } from "../../../src/sim/core/objects.js";
import { startTestCluster, type TestCluster } from "../../helpers/cluster.js";
import { deploySystem, eventually, isReady, type Kn, kubectlIn, type Pod } from "../helpers/failures.js";
import { eventsShow, onePod, patchWith, statusOf, undo } from "../helpers/lifecycle.js";
import { deploy } from "../helpers/topology.js";

let t: TestCluster;

beforeAll(async () => {
  t = await startTestCluster(60, 81);
}, 60_000);
afterAll(() => t?.stop());

/** The target's one pod once its container has been OOM-killed `n` times. */
const oomed = (kn: Kn, app: string, container: string, n = 2) =>
  onePod(
    kn,
    app,
    (p: Pod) =>
      (statusOf(p, container)?.restartCount ?? 0) >= n &&
      statusOf(p, container)?.lastState?.terminated?.reason === "OOMKilled",
    120_000,
  );

const cases = [
  { system: "simple-micro", ns: "oom-sm", targets: [["hello-service", "hello-service", "16Mi"]] },
  {
    system: "online-boutique",
    ns: "oom-ob",
    targets: [
      ["cartservice", "server", "48Mi"],
      ["productcatalogservice", "server", "12Mi"],
    ],
  },
];

describe.each(cases)("$system: a memory limit below the working set", (c) => {
  let kn: Kn;

  beforeAll(async () => {
    kn = kubectlIn(t, c.ns);
    await deploySystem(t, c.system, c.ns);
  }, 240_000);

  it.each(c.targets)(
    "%s (%s) at %s: OOMKilled, 137, CrashLoopBackOff; undone: healthy",
    async (app, container, memory) => {
      const r = await patchWith(t, kn, app, "oom-limit", { target_container: container, memory });
      expect(r.exitCode, r.stderr).toBe(0);
      const pod = await oomed(kn, app, container);
      const name = pod.metadata.name;
      expect(pod.spec.containers.find((x) => x.name === container)?.resources).toMatchObject({
        limits: { memory },
        requests: { memory },
      });
      expect(statusOf(pod, container)?.lastState?.terminated).toMatchObject({
        reason: "OOMKilled",
        exitCode: 137,
      });
      // describe: the last termination, and the back-off between restarts
      const described = await eventually(kn, ["describe", "pod", name], (o) => o.includes("OOMKilled"));
      expect(described).toMatch(/Last State:\s+Terminated\n\s+Reason:\s+OOMKilled\n\s+Exit Code:\s+137\n/);
      const events = await eventsShow(kn, name, /BackOff/);
      expect(events).toMatch(new RegExp(`Back-off restarting failed container ${container} in pod`));
      // get pods: OOMKilled right after a kill, CrashLoopBackOff while it waits
      await eventually(
        kn,
        ["get", "pod", name, "--no-headers"],
        (o) => /\sCrashLoopBackOff\s/.test(o),
        120_000,
      );
      // Recreate: the old pods went before the new one, so nothing of the old limit serves
      expect((await kn(["get", "deployment", app, "-o", "jsonpath={.spec.strategy.type}"])).stdout).toBe(
        "Recreate",
      );
      await undo(kn, app);
      const healthy = await onePod(kn, app, isReady);
      expect(statusOf(healthy, container)?.restartCount).toBe(0);
    },
    300_000,
  );
});

describe("Train-Ticket (pinned clock): a Spring Boot service under 128Mi", () => {
  it("ts-station-service is OOMKilled with 137 and backs off", () => {
    const sim = deploy("train-ticket", "oom-tt", {
      create: (o: KObject) => {
        if (o.kind !== "Deployment" || o.metadata.name !== "ts-station-service") return o;
        const d = structuredClone(o) as Deployment;
        const ctr = d.spec.template.spec!.containers[0];
        ctr.resources = {
          requests: { ...ctr.resources?.requests, memory: "128Mi" },
          limits: { ...ctr.resources?.limits, memory: "128Mi" },
        };
        return d;
      },
    });
    sim.advance(180_000, 1000);
    const st = sim.pod("ts-station-service").status?.containerStatuses?.[0];
    expect(st?.restartCount).toBeGreaterThanOrEqual(2);
    expect(st?.lastState?.terminated).toMatchObject({ reason: "OOMKilled", exitCode: 137 });
    expect(st?.state?.waiting?.reason ?? st?.state?.terminated?.reason).toMatch(/CrashLoopBackOff|OOMKilled/);
  }, 120_000);
});
