// Each system deployed with the real kubectl, each of the seven
// failures injected with the shipped template (kubectl apply -f -) or the config patch (kubectl
// patch --patch-file), and the symptoms of failures.md checked in what kubectl prints: top
// --containers, get pod / ep, describe, logs, exec ping and dd. The reference's verification is
// evaluated with kubectl alone, failing while the fault is in and passing after recovery.
// One seeded cluster per system; the failures run in sequence, each recovered before the next.
// Each system's tests are a file of their own (failures-matrix-<system>.test.ts), so that the
// systems run in parallel workers and a new failure type lengthens three files, not one.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { handshakeRetried, parseCurlTimes } from "../../../src/verify/network.js";
import { startTestCluster, type TestCluster } from "../../helpers/cluster.js";
import {
  allWorkloadsReady,
  CHAOS_KIND,
  configPatch,
  ddFrom,
  deploySystem,
  envOf,
  eventually,
  FAILURES,
  type Failure,
  isReady,
  type Kn,
  kubectlIn,
  limitsOf,
  type Pod,
  pingAddress,
  pingFrom,
  podsOf,
  template,
  topRows,
} from "../helpers/failures.js";
import { nowStamp } from "../helpers/network.js";

interface SystemCase {
  system: string;
  speed: number;
  /** The target of every failure but disk-io (a fault target with callers, to see them suffer). */
  target: string;
  /** disk-io's target (Train-Ticket's only one is nacosdb-mysql). */
  diskTarget: string;
  /** A caller of `target` whose logs show the failed or delayed dependency, if checked. */
  caller?: { app: string; delay?: RegExp; down: RegExp };
  /**
   * Whether the target's images have ping (in the main container or a sidecar-busybox).
   * Train-Ticket's java:8-jre images have none and its pods carry no sidecar: the network
   * symptoms are read from curl and the callers' logs there instead.
   */
  ping: boolean;
}

const SYSTEMS: SystemCase[] = [
  {
    system: "simple-micro",
    speed: 60,
    target: "time-service",
    diskTarget: "time-service",
    // urlopen gets "connection refused" from a Service with no endpoint. No delay line: a call
    // crosses the delayed egress twice (handshake, response), 2 s within urlopen's 3 s timeout
    caller: {
      app: "hello-service",
      down: /GET http:\/\/time-service:5001\/time failed after \d+ms: .*Connection refused/,
    },
    ping: true,
  },
  {
    system: "online-boutique",
    speed: 60,
    target: "productcatalogservice",
    diskTarget: "productcatalogservice",
    // Go gRPC clients wait 1 s: a 1000 ms delay on the callee's replies times them out. The
    // frontend's renderHTTPError logs the handler's wrapped error (handlers.go homeHandler:
    // "could not retrieve products"); grpc-go dials the Service's ClusterIP its resolver gave
    caller: {
      app: "frontend",
      delay:
        /could not retrieve products: rpc error: code = DeadlineExceeded desc = context deadline exceeded/,
      down: /could not retrieve products: .*dial tcp 10\.43\.\d+\.\d+:3550: connect: connection refused/,
    },
    ping: true,
  },
  {
    system: "train-ticket",
    speed: 120,
    target: "ts-route-service",
    diskTarget: "nacosdb-mysql",
    // Spring's 1 s read timeout against a callee whose replies wait 1000 ms. The caller calls
    // ts-route-service first: ts-travel-service would show ts-basic-service instead, which
    // itself waits on ts-route-service (the failure going up the call graph)
    caller: {
      app: "ts-admin-route-service",
      delay: /"http:\/\/ts-route-service:11178\/api\/v1\/": Read timed out/,
      down: /"http:\/\/ts-route-service:11178\/api\/v1\/": Connection refused/,
    },
    ping: false,
  },
];

interface Case {
  t: TestCluster;
  kn: Kn;
  sys: SystemCase;
  ns: string;
  pingApps: string[];
}

/** The one pod of an app (waits until there is exactly one, not being deleted). */
async function onePod(c: Case, app: string): Promise<Pod> {
  for (let i = 0; i < 100; i++) {
    const pods = await podsOf(c.kn, app);
    if (pods.length === 1) return pods[0];
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${app} never settled to one pod`);
}

/** Poll `top --containers` until the container's row satisfies `ok`. */
async function topUntil(c: Case, pod: Pod, container: string, ok: (cpu: number, mem: number) => boolean) {
  const out = await eventually(c.kn, ["top", "pod", pod.metadata.name, "--containers"], (o) => {
    const row = topRows(o).find((x) => x.container === container);
    return !!row && ok(row.cpu, row.memMi);
  });
  return topRows(out).find((x) => x.container === container)!;
}

async function apply(c: Case, failure: Failure, target: string) {
  const r = await c.kn(["apply", "-f", "-"], template(failure, c.ns, target));
  expect(r.exitCode, r.stderr).toBe(0);
  expect(r.stdout).toContain(`${CHAOS_KIND[failure]}.chaos-mesh.org/${failure} created`);
  // Chaos Mesh's conditions say when the records are injected
  await eventually(c.kn, ["get", CHAOS_KIND[failure]!, failure, "-o", "jsonpath={.status.conditions}"], (o) =>
    /"type":"AllInjected","status":"True"|"status":"True","type":"AllInjected"/.test(o),
  );
}

async function remove(c: Case, failure: Failure) {
  const r = await c.kn(["delete", CHAOS_KIND[failure]!, failure, "--timeout=60s"]);
  expect(r.exitCode, r.stderr).toBe(0);
  expect(r.stdout).toContain(`"${failure}" deleted`);
}

/**
 * `n` requests with the pod's own curl to the ping target (Train-Ticket's nacos): how many timed
 * out (curl's exit 28: the kernel still resending), and the times of the others.
 */
async function curlTimes(c: Case, pod: string, addr: string, n: number) {
  const url = `http://${addr}:8848/nacos/v1/console/health/readiness`;
  const times: { connectMs: number; totalMs: number }[] = [];
  let timedOut = 0;
  for (let i = 0; i < n; i++) {
    const args = ["exec", pod, "--", "curl", "-s", "-o", "/dev/null", "-w", "%{time_connect} %{time_total}"];
    const r = await c.kn([...args, "--max-time", "10", url]);
    if (r.exitCode !== 0) {
      expect(r.stderr).toContain("exit code 28");
      timedOut++;
      continue;
    }
    const t = parseCurlTimes(r.stdout);
    expect(t, r.stdout).toBeDefined();
    times.push(t!);
  }
  return { timedOut, times, retried: times.filter(handshakeRetried).length };
}

/** Wait until `kubectl logs --since-time` of a caller shows a line matching `re`. */
async function logsShow(c: Case, app: string, since: string, re: RegExp): Promise<void> {
  const pod = await onePod(c, app);
  const args = ["logs", pod.metadata.name, "-c", pod.spec.containers[0].name, `--since-time=${since}`];
  const out = await eventually(c.kn, args, (o) => o.split("\n").some((l) => re.test(l)), 20_000);
  expect(out).toMatch(re);
}

const CHECKS: Record<Failure, (c: Case) => Promise<void>> = {
  async "cpu-stress"(c) {
    const pod = await onePod(c, c.sys.target);
    const main = pod.spec.containers[0].name;
    const limit = limitsOf(pod)[main].cpu;
    const before = await topUntil(c, pod, main, () => true);
    expect(before.cpu).toBeLessThan(limit / 2); // the reference's check passes before
    await apply(c, "cpu-stress", c.sys.target);
    // 10 workers want 10 cores: throttled at the limit
    const during = await topUntil(c, pod, main, (cpu) => cpu >= limit * 0.95);
    expect(during.cpu).toBeLessThanOrEqual(limit);
    await remove(c, "cpu-stress");
    await topUntil(c, pod, main, (cpu) => cpu < limit / 2);
  },

  async "memory-stress"(c) {
    const pod = await onePod(c, c.sys.target);
    const main = pod.spec.containers[0].name;
    const limit = limitsOf(pod)[main].memMi;
    const before = (await topUntil(c, pod, main, () => true)).memMi;
    expect(before).toBeLessThan(limit / 2);
    await apply(c, "memory-stress", c.sys.target);
    const during = await topUntil(c, pod, main, (_, mem) => mem > before + 1000);
    // baseline + 1280Mi (the application's own share moves by a few percent)
    expect(Math.abs(during.memMi - before - 1280)).toBeLessThan(0.05 * 1280 + 0.05 * before);
    expect(during.memMi).toBeGreaterThanOrEqual(limit / 2);
    // under the 2000Mi limit: no OOM kill
    const st = (await onePod(c, c.sys.target)).status?.containerStatuses?.find((s) => s.name === main);
    expect(st?.restartCount).toBe(0);
    await remove(c, "memory-stress");
    await topUntil(c, pod, main, (_, mem) => mem < limit / 2);
  },

  async "disk-io"(c) {
    const pod = await onePod(c, c.sys.diskTarget);
    expect(await ddFrom(c.kn, pod)).toBeGreaterThanOrEqual(10);
    await apply(c, "disk-io", c.sys.diskTarget);
    // 5 s on half of ~12 file operations: tens of seconds for 10 MiB
    expect(await ddFrom(c.kn, pod)).toBeLessThan(2);
    await remove(c, "disk-io"); // the injected container still runs: recovery works, no hang
    expect(await ddFrom(c.kn, pod)).toBeGreaterThanOrEqual(10);
  },

  async "network-delay"(c) {
    const pod = await onePod(c, c.sys.target);
    const addr = await pingAddress(c.kn, c.pingApps, c.sys.target);
    if (c.sys.ping) {
      const before = await pingFrom(c.kn, pod, addr);
      expect(before.ping, before.out).toMatchObject({ loss: 0 });
      expect(before.ping!.avg).toBeLessThan(5);
    }
    const since = nowStamp(c.t);
    await apply(c, "network-delay", c.sys.target);
    if (c.sys.ping) {
      const during = await pingFrom(c.kn, pod, addr);
      expect(during.ping, during.out).toMatchObject({ sent: 3, received: 3, loss: 0 });
      // the echo request waits 1000 ms in the target's egress: the check (avg <= 1000) fails
      expect(during.ping!.avg).toBeGreaterThan(1000);
      expect(during.ping!.avg).toBeLessThan(1010);
      // the kubelet's HTTP probe needs two packets out of the pod: 2 s against its 1 s timeout
      if (pod.spec.containers[0].readinessProbe?.httpGet) {
        const d = await eventually(c.kn, ["describe", "pod", pod.metadata.name], (o) =>
          /context deadline exceeded/.test(o),
        );
        expect(d).toMatch(
          /Readiness probe failed: Get "http:\/\/[\d.]+:\d+\/\S*": context deadline exceeded \(Client\.Timeout exceeded while awaiting headers\)/,
        );
      }
    } else {
      // no ping in the image (and no sidecar): exec says so; curl shows the delay instead, a
      // DNS lookup, the handshake and the request each waiting 1000 ms on the way out
      const r = await c.kn(["exec", pod.metadata.name, "--", "ping", "-c", "3", "-W", "2", addr]);
      expect(r.exitCode).toBe(127);
      expect(r.stderr).toMatch(/exec: "ping": executable file not found in \$PATH/);
      const url = `http://${addr}:8848/nacos/v1/console/health/readiness`;
      const curl = await c.kn([
        "exec",
        pod.metadata.name,
        "--",
        "curl",
        "-s",
        "-o",
        "/dev/null",
        "-w",
        "%{http_code} %{time_total}",
        url,
      ]);
      const [code, secs] = curl.stdout.split(" ");
      expect(code, curl.stderr).toBe("200");
      expect(Number(secs)).toBeGreaterThan(2);
    }
    if (c.sys.caller?.delay) await logsShow(c, c.sys.caller.app, since, c.sys.caller.delay);
    await remove(c, "network-delay");
    if (c.sys.ping) {
      const after = await pingFrom(c.kn, pod, addr);
      expect(after.ping, after.out).toMatchObject({ loss: 0 });
      expect(after.ping!.avg).toBeLessThan(5);
    }
  },

  async "network-loss"(c) {
    const pod = await onePod(c, c.sys.target);
    const addr = await pingAddress(c.kn, c.pingApps, c.sys.target);
    await apply(c, "network-loss", c.sys.target);
    if (c.sys.ping) {
      // 3 packets all arrive 1 time in 8 at 50% loss: 20 packets show it (seeded cluster)
      const during = await pingFrom(c.kn, pod, addr, 20);
      expect(during.ping, during.out).toBeDefined();
      expect(during.ping!.loss).toBeGreaterThan(20);
      expect(during.ping!.loss).toBeLessThan(80);
    } else {
      // no ping (Train-Ticket's images): TCP retransmits what is lost, so curl mostly succeeds,
      // but a lost SYN is resent after 1 s and shows in time_connect; at 50% loss half the
      // requests show it (none of 16 would, 1 time in 65536)
      const during = await curlTimes(c, pod.metadata.name, addr, 16);
      expect(during.timedOut + during.retried, JSON.stringify(during)).toBeGreaterThan(0);
    }
    await remove(c, "network-loss");
    if (c.sys.ping) {
      const after = await pingFrom(c.kn, pod, addr);
      expect(after.ping, after.out).toMatchObject({ sent: 3, received: 3, loss: 0 });
    } else {
      const after = await curlTimes(c, pod.metadata.name, addr, 3);
      expect(after, JSON.stringify(after)).toMatchObject({ timedOut: 0, retried: 0 });
    }
  },

  async "pod-fail"(c) {
    const pod = await onePod(c, c.sys.target);
    const name = pod.metadata.name;
    const n = pod.spec.containers.length;
    const since = nowStamp(c.t);
    await apply(c, "pod-fail", c.sys.target);
    // 0/N Ready: an app that runs pause answers no probe, and a container whose command pause
    // lacks (the sidecar's sleep) cannot start, so kubectl's STATUS shows its crash loop
    const row = await eventually(c.kn, ["get", "pod", name, "--no-headers"], (o) => {
      const [, ready, status] = o.trim().split(/\s+/);
      const [r, all] = ready.split("/").map(Number);
      return /^(Running|CrashLoopBackOff|StartError)$/.test(status) && all === n && r === 0;
    });
    expect(row).toMatch(new RegExp(`\\s0/${n}\\s+(Running|CrashLoopBackOff|StartError)\\s`));
    expect((await c.kn(["get", "pod", name, "-o", "jsonpath={.status.phase}"])).stdout).toBe("Running");
    const d = await c.kn(["describe", "pod", name]);
    // the app either runs /pause and fails its probe, or (with a command, as Simple-Micro's python)
    // cannot start in pause at all
    expect(d.stdout).toMatch(
      /Warning\s+(Unhealthy\s+.*Readiness probe failed|Failed\s+.*executable file not found in \$PATH)/,
    );
    expect(d.stdout).toMatch(/gcr\.io\/google-containers\/pause:latest/);
    // the Service lost its address
    const ep = await c.kn(["get", "ep", c.sys.target, "-o", "jsonpath={.subsets[*].addresses[*].ip}"]);
    expect(ep.stdout).toBe("");
    // a not-ready address is listed apart, so the ENDPOINTS column is empty (not <none>: the
    // subset still exists)
    expect((await c.kn(["get", "ep", c.sys.target, "--no-headers"])).stdout).toMatch(
      new RegExp(`^${c.sys.target}\\s+(?:\\d+[smhd])+\\s*$`),
    );
    if (c.sys.caller) await logsShow(c, c.sys.caller.app, since, c.sys.caller.down);
    await remove(c, "pod-fail");
    // the original images come back: the same pod is Ready again and back in the Service
    await eventually(
      c.kn,
      ["get", "pod", name, "--no-headers"],
      (o) => new RegExp(`\\s${n}/${n}\\s+Running`).test(o),
      60_000,
    );
    const back = await c.kn(["get", "ep", c.sys.target, "-o", "jsonpath={.subsets[*].addresses[*].ip}"]);
    expect(back.stdout).toBe(pod.status?.podIP);
  },

  async "pod-config-error"(c) {
    const old = await onePod(c, c.sys.target);
    const main = old.spec.containers[0].name;
    const p = await c.kn([
      "patch",
      "deployment",
      c.sys.target,
      "--type",
      "strategic",
      "--patch-file",
      c.t.file("config.yaml", configPatch(main)),
    ]);
    expect(p.exitCode, p.stderr).toBe(0);
    expect(p.stdout).toContain(`deployment.apps/${c.sys.target} patched`);
    // the rollout hangs: kubectl gives up on it
    const rs = await c.kn(["rollout", "status", `deployment/${c.sys.target}`, "--timeout=3s"]);
    expect(rs.exitCode).not.toBe(0);
    expect(rs.stderr).toMatch(/timed out waiting for the condition/);
    expect(rs.stdout).toMatch(
      /Waiting for deployment .* rollout to finish: 1 old replicas are pending termination/,
    );
    // the new pod never serves (not Ready, or OOMKilled and in back-off); the old one still does
    const rows = (await c.kn(["get", "pod", "-l", `app=${c.sys.target}`, "--no-headers"])).stdout
      .trim()
      .split("\n");
    const oldRow = rows.find((l) => l.startsWith(old.metadata.name));
    const newRow = rows.find((l) => !l.startsWith(old.metadata.name));
    const n = old.spec.containers.length;
    expect(oldRow).toMatch(new RegExp(`\\s${n}/${n}\\s+Running\\s`));
    expect(newRow).toMatch(new RegExp(`\\s[0-${n - 1}]/${n}\\s+(Running|OOMKilled|CrashLoopBackOff)\\s`));
    // the reference's check waits for every target pod to be Ready: the new one is not
    const newPod = (await podsOf(c.kn, c.sys.target)).find((x) => x.metadata.name !== old.metadata.name)!;
    expect(isReady(newPod)).toBe(false);
    // undo: the previous template comes back and the rollout completes
    const u = await c.kn(["rollout", "undo", `deployment/${c.sys.target}`]);
    expect(u.exitCode, u.stderr).toBe(0);
    const done = await c.kn(["rollout", "status", `deployment/${c.sys.target}`, "--timeout=60s"]);
    expect(done.exitCode, done.stderr).toBe(0);
    expect(done.stdout).toContain("successfully rolled out");
    const now = await onePod(c, c.sys.target);
    expect(isReady(now)).toBe(true);
    expect(limitsOf(now)[main]).toEqual(limitsOf(old)[main]);
  },
};

/** The seven failures of one system, in sequence on one seeded cluster. */
export function describeMatrix(system: string): void {
  const sys = SYSTEMS.find((s) => s.system === system);
  if (!sys) throw new Error(`no matrix for ${system}`);
  describe(`${sys.system}: the seven failures through kubectl`, () => {
    const c = {} as Case;
    beforeAll(async () => {
      c.t = await startTestCluster(sys.speed, 11);
      c.ns = `${sys.system}-matrix`;
      c.kn = kubectlIn(c.t, c.ns);
      c.sys = sys;
      const env = envOf(sys.system);
      c.pingApps = env.pingApps;
      // the chosen targets are the env's own
      for (const f of FAILURES)
        expect(env.faultTargets[f]).toContain(f === "disk-io" ? sys.diskTarget : sys.target);
      await deploySystem(c.t, sys.system, c.ns);
    }, 120_000);
    afterAll(() => c.t?.stop());

    for (const failure of FAILURES) {
      it(failure, async () => {
        await CHECKS[failure](c);
        // recovered: every workload of the namespace is Ready again
        await eventually(c.kn, ["get", "deploy,sts", "--no-headers"], allWorkloadsReady);
      }, 90_000);
    }
  });
}
