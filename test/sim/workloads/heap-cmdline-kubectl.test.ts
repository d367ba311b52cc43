// Train-Ticket's JVM heap maximum read from the command line, on a pinned clock, set and seen with
// the real kubectl. Sources:
// - FudanSELab/train-ticket, each ts-*-service/Dockerfile: `CMD ["java", "-Xmx200m", "-jar",
//   "/app/ts-<svc>-1.0.jar"]` (no ENTRYPOINT), so a container's `args` (or `command`) replace the
//   whole command line, -Xmx included; the newest Dockerfiles add ENV JAVA_TOOL_OPTIONS
//   "-javaagent:./opentelemetry-javaagent.jar".
// - JDK docs, "The JAVA_TOOL_OPTIONS Environment Variable" (JVM TI): its options are prepended to
//   the command line's, and of a repeated -Xmx (MaxHeapSize) the last one counts, so the CMD's
//   -Xmx200m wins over a JAVA_TOOL_OPTIONS=-Xmx4g.
// - Kubernetes, "Define a Command and Arguments for a Container": $(VAR) in command and args is
//   expanded from the container's environment (kubecontainer.ExpandContainerCommandAndArgs).
// - The kernel's memory cgroup OOM killer: a container past its limit is killed with SIGKILL,
//   which the kubelet reports as exit 137, reason OOMKilled; the JVM writes nothing.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Pod } from "../../../src/sim/core/objects.js";
import { type LoadSim, loadSim, readyPods } from "./load-helpers.js";

let s: LoadSim;
beforeAll(async () => {
  s = await loadSim("train-ticket", "tt-heap");
  s.advance(30_000); // two scrapes: kubectl top has a window
}, 180_000);
afterAll(() => s?.stop());

const SVC = "ts-travel-service";
const JAR = "/app/ts-travel-service-1.0.jar";
const main = (p: Pod) => p.status?.containerStatuses?.find((c) => c.name === SVC);
const current = (): Pod => readyPods(s, SVC)[0] ?? s.pod(SVC);

async function patch(ops: unknown[]): Promise<void> {
  const r = await s.kubectl(["patch", "deployment", SVC, "--type=json", "-p", JSON.stringify(ops)]);
  expect(r.exitCode, r.stderr).toBe(0);
}

async function memMi(): Promise<number> {
  const r = await s.kubectl(["top", "pod", "--containers", "--no-headers", "-l", `app=${SVC}`]);
  expect(r.exitCode, r.stderr).toBe(0);
  return Math.max(
    ...r.stdout
      .trim()
      .split("\n")
      .map((l) => Number.parseInt(l.trim().split(/\s+/)[3], 10)),
  );
}

async function lastTerminated(p: Pod): Promise<string> {
  const r = await s.kubectl([
    "get",
    "pod",
    p.metadata.name!,
    "-o",
    `jsonpath={.status.containerStatuses[?(@.name=="${SVC}")].lastState.terminated.reason} {.status.containerStatuses[?(@.name=="${SVC}")].lastState.terminated.exitCode}`,
  ]);
  expect(r.exitCode, r.stderr).toBe(0);
  return r.stdout;
}

/** The rollout done (one pod, of the newest template, Ready) and `seconds` more served by it. */
async function serve(seconds: number): Promise<Pod> {
  const before = new Set(s.pods(SVC).map((p) => p.metadata.name));
  for (let i = 0; i < 120; i++) {
    const ps = s.pods(SVC);
    if (ps.length === 1 && !before.has(ps[0].metadata.name) && readyPods(s, SVC).length === 1) break;
    s.advance(5000);
  }
  const p = current();
  expect(before.has(p.metadata.name)).toBe(false);
  s.advance(seconds * 1000);
  return p;
}

describe("a Train-Ticket JVM's heap maximum is the last -Xmx of its command line", () => {
  it("the image's -Xmx200m: the working set stays put, JAVA_TOOL_OPTIONS=-Xmx4g yields to it", async () => {
    const before = await memMi();
    await patch([
      {
        op: "add",
        path: "/spec/template/spec/containers/0/env/-",
        value: { name: "JAVA_TOOL_OPTIONS", value: "-Xmx4g" },
      },
    ]);
    const p = await serve(600);
    expect(main(s.pod(SVC))?.restartCount).toBe(0);
    expect(s.pod(SVC).metadata.name).toBe(p.metadata.name);
    expect(await memMi()).toBeLessThan(before + 100);
  }, 120_000);

  it("args that raise it above the memory limit: the heap grows, OOMKilled (137) every few minutes, again after a restart", async () => {
    await patch([
      { op: "add", path: "/spec/template/spec/containers/0/args", value: ["java", "-Xmx4g", "-jar", JAR] },
    ]);
    const p = await serve(60);
    const m1 = await memMi();
    s.advance(60_000);
    expect(await memMi()).toBeGreaterThan(m1 + 50);
    s.advance(600_000);
    const after = s.pod(SVC);
    expect(after.metadata.name).toBe(p.metadata.name);
    expect(main(after)?.restartCount).toBeGreaterThanOrEqual(1);
    expect(await lastTerminated(after)).toBe("OOMKilled 137");
    // a restart looks like a fix: a new pod, small, then killed again
    const r = await s.kubectl(["rollout", "restart", `deployment/${SVC}`]);
    expect(r.exitCode, r.stderr).toBe(0);
    const fresh = await serve(30);
    expect(main(fresh)?.restartCount ?? 0).toBe(0);
    s.advance(900_000);
    const again = s.pod(SVC);
    expect(again.metadata.name).toBe(fresh.metadata.name);
    expect(main(again)?.restartCount).toBeGreaterThanOrEqual(1);
    expect(await lastTerminated(again)).toBe("OOMKilled 137");
    // the JVM writes nothing: the kernel's SIGKILL
    const logs = await s.kubectl(["logs", again.metadata.name!, "--previous"]);
    expect(logs.stdout).not.toContain("OutOfMemoryError");
  }, 180_000);

  it("the last -Xmx on the line wins, $(VAR) expanded: 4g then 1500m stays under the limit; $(HEAP)=4g does not", async () => {
    await patch([
      {
        op: "replace",
        path: "/spec/template/spec/containers/0/args",
        value: ["java", "-Xmx4g", "-Xmx1500m", "-jar", JAR],
      },
    ]);
    const p = await serve(1200);
    expect(s.pod(SVC).metadata.name).toBe(p.metadata.name);
    expect(main(s.pod(SVC))?.restartCount).toBe(0);
    await patch([
      { op: "add", path: "/spec/template/spec/containers/0/env/-", value: { name: "HEAP", value: "4g" } },
      {
        op: "replace",
        path: "/spec/template/spec/containers/0/args",
        value: ["java", "-Xmx$(HEAP)", "-jar", JAR],
      },
    ]);
    const q = await serve(900);
    expect(s.pod(SVC).metadata.name).toBe(q.metadata.name);
    expect(main(s.pod(SVC))?.restartCount).toBeGreaterThanOrEqual(1);
    // the args removed: the image's -Xmx200m again, no more kills
    await patch([{ op: "remove", path: "/spec/template/spec/containers/0/args" }]);
    const fixed = await serve(900);
    expect(s.pod(SVC).metadata.name).toBe(fixed.metadata.name);
    expect(main(s.pod(SVC))?.restartCount).toBe(0);
  }, 180_000);
});
