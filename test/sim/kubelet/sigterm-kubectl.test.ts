// Deleting pods whose PID 1 does or does not handle SIGTERM, through the real kubectl on a pinned
// clock moved by the test. What it follows:
// - pkg/kubelet/kuberuntime/kuberuntime_container.go (killContainer): the runtime is asked to stop
//   the container with the pod's grace period (deletionGracePeriodSeconds); containerd sends
//   SIGTERM, then SIGKILL when the grace period is over.
// - signal(7), pid_namespaces(7): "only signals for which the init process has established a
//   signal handler can be sent to it by other members of the PID namespace"; the kernel drops a
//   signal whose action is the default for a namespace's init (kernel/signal.c, sig_task_ignored
//   with SIGNAL_UNKILLABLE), so busybox `sleep` and a python or node program with no handler of
//   their own run on until the SIGKILL, which comes from outside the namespace.
// - nginx handles TERM (fast shutdown: src/os/unix/ngx_process.c's signals table).
// - kubectl's printer (pkg/printers/internalversion/printers.go printPod): a pod with a
//   deletionTimestamp reads Terminating.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { R } from "../../../src/sim/api/resources.js";
import { ManualClock } from "../../../src/sim/core/clock.js";
import type { Container } from "../../../src/sim/core/objects.js";
import { podManifest, runningPod, startCluster, type TestCluster } from "../helpers/exec.js";

const NS = "term";
const clock = new ManualClock(Date.parse("2026-03-01T00:00:30Z"));
let t: TestCluster;

const pods: [string, Container, Record<string, unknown>][] = [
  ["sleeper", { name: "sleeper", image: "busybox:1.36", command: ["sleep", "3600"] }, {}],
  ["web", { name: "web", image: "nginx:1.25" }, {}],
  [
    "js",
    { name: "js", image: "node:20-alpine", command: ["node", "-e", "setInterval(() => {}, 1000)"] },
    { terminationGracePeriodSeconds: 5 },
  ],
  [
    "py",
    { name: "py", image: "python:3.11-slim", command: ["python", "-m", "http.server", "8000"] },
    { terminationGracePeriodSeconds: 5 },
  ],
];

beforeAll(async () => {
  t = await startCluster(1, clock);
  for (const [name, c, extra] of pods) await runningPod(t.c, podManifest(NS, name, [c], extra), clock);
});
afterAll(async () => {
  await t?.stop();
});

const exists = (name: string) => !!t.c.ctx.registry.tryGet(R("Pod"), NS, name);
/** Move the pinned clock by `ms` in half seconds, letting the kubelet work at each. */
async function advance(ms: number) {
  for (let left = ms; left > 0; left -= 500) {
    clock.advance(Math.min(500, left));
    await new Promise((r) => setTimeout(r, 5));
  }
}
const rows = async () =>
  (await t.kubectl(["-n", NS, "get", "pods", "--no-headers", "-o", "custom-columns=N:.metadata.name"])).stdout
    .split("\n")
    .filter(Boolean);

describe("a deleted pod lasts until its PID 1 is gone", () => {
  it("sleep, python and node as PID 1 run through the grace period; nginx stops at once", async () => {
    const del = await t.kubectl(["-n", NS, "delete", "pod", "sleeper", "web", "js", "py", "--wait=false"]);
    expect(del.exitCode, del.stderr).toBe(0);
    const get = await t.kubectl(["-n", NS, "get", "pods"]);
    for (const name of ["sleeper", "web", "js", "py"])
      expect(get.stdout).toMatch(new RegExp(`^${name}\\s+1/1\\s+Terminating\\s+0\\s`, "m"));

    await advance(1500);
    expect(await rows()).toEqual(["js", "py", "sleeper"]);

    await advance(3000); // 4.5 s of the 5 s grace period
    expect(await rows()).toEqual(["js", "py", "sleeper"]);
    await advance(1000);
    expect(await rows()).toEqual(["sleeper"]);

    await advance(24_000); // 29.5 s: still Terminating, still running and ready
    const still = await t.kubectl(["-n", NS, "get", "pod", "sleeper"]);
    expect(still.stdout).toMatch(/^sleeper\s+1\/1\s+Terminating\s+0\s/m);
    const desc = (await t.kubectl(["-n", NS, "describe", "pod", "sleeper"])).stdout;
    // "lasts" is kubectl's own wall clock against the pinned one: only its form is checked
    expect(desc).toMatch(/Status:\s+Terminating \(lasts \S+\)/);
    expect(desc).toMatch(/Termination Grace Period:\s+30s/);
    expect(desc).toMatch(/Normal\s+Killing\s+\S+\s+kubelet\s+Stopping container sleeper/);
    expect(desc).toMatch(/State:\s+Running/);

    await advance(1000);
    expect(exists("sleeper")).toBe(false);
    const gone = await t.kubectl(["-n", NS, "get", "pod", "sleeper"]);
    expect(gone.stderr).toContain('pods "sleeper" not found');
  });
});
