// Containers that no topology describes run their command in the simulated shell, on the cluster
// clock (a ManualClock here, moved by the test): exit codes, restartPolicy, CrashLoopBackOff,
// stdout/stderr into `kubectl logs`, termination messages. Modelled on the kubelet:
// - pkg/kubelet/kuberuntime/kuberuntime_container.go: getTerminationMessage reads
//   terminationMessagePath, and with FallbackToLogsOnError a failed container's last 80 log lines
//   (at most 2 KiB); lastState.terminated carries exitCode and reason (Completed, Error).
// - https://kubernetes.io/docs/tasks/debug/debug-application/determine-reason-pod-failure/
//   (the termination message example), and kubectl's CrashLoopBackOff for `command: [/bin/false]`.
// - runc: a command the image lacks fails to start with StartError, exit code 128.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { R } from "../../../src/sim/api/resources.js";
import { ManualClock } from "../../../src/sim/core/clock.js";
import type { Pod } from "../../../src/sim/core/objects.js";
import type { KObject } from "../../../src/sim/core/types.js";
import { ensureNamespace, podManifest, startCluster, type TestCluster, waitFor } from "../helpers/exec.js";

const NS = "cmd";
let t: TestCluster;
const clock = new ManualClock(Date.parse("2026-03-01T00:00:00Z"));

beforeAll(async () => {
  t = await startCluster(1, clock);
  ensureNamespace(t.c, NS);
});

afterAll(async () => {
  await t?.stop();
});

const pod = (name: string) => t.c.ctx.registry.tryGet(R("Pod"), NS, name) as Pod | undefined;
const status = (name: string, ctr = name) =>
  pod(name)?.status?.containerStatuses?.find((s) => s.name === ctr);

function create(name: string, container: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  t.c.ctx.registry.create(R("Pod"), NS, podManifest(NS, name, [{ name, ...container }], extra));
}

/** Move cluster time by `ms` in half-second steps, letting the processes and controllers run. */
async function advance(ms: number) {
  for (let done = 0; done < ms; done += 500) {
    clock.advance(500);
    await new Promise((r) => setTimeout(r, 2));
  }
}

describe("container commands", () => {
  it("crash-loops a container whose command is /bin/false", async () => {
    create("falsy", { image: "busybox:1.36", command: ["/bin/false"] });
    const s = await waitFor(
      "CrashLoopBackOff",
      () => status("falsy")?.state?.waiting?.reason === "CrashLoopBackOff" && status("falsy"),
      clock,
    );
    expect(s.lastState!.terminated).toMatchObject({ exitCode: 1, reason: "Error" });
    expect(s.ready).toBe(false);
    const row = await t.kubectl(["get", "pod", "falsy", "-n", NS, "--no-headers"]);
    expect(row.stdout).toMatch(/^falsy\s+0\/1\s+CrashLoopBackOff\s+\d+ \(\S+ ago\)/);
    const ev = await t.kubectl(["get", "events", "-n", NS, "--field-selector", "involvedObject.name=falsy"]);
    expect(ev.stdout).toContain("Back-off restarting failed container falsy in pod falsy_cmd");
  });

  it("logs a line per cluster second from an echo loop, and keeps running", async () => {
    create("hello", {
      image: "busybox:1.36",
      command: ["sh", "-c", "while true; do echo hello world; sleep 1; done"],
    });
    await waitFor("hello running", () => status("hello")?.state?.running, clock);
    await advance(10_000);
    const logs = await t.kubectl(["logs", "hello", "-n", NS]);
    const lines = logs.stdout.trim().split("\n");
    expect(new Set(lines)).toEqual(new Set(["hello world"]));
    // about one line per second of cluster time since it started
    expect(lines.length).toBeGreaterThanOrEqual(9);
    expect(lines.length).toBeLessThanOrEqual(13);
    expect(status("hello")?.state?.running).toBeTruthy();
    expect(status("hello")?.restartCount).toBe(0);
  });

  it("completes a one-shot command under restartPolicy Never, with stdout and stderr in the log", async () => {
    create(
      "once",
      { image: "busybox:1.36", command: ["sh", "-c", "echo out; echo err >&2; exit 0"] },
      { restartPolicy: "Never" },
    );
    await waitFor("Succeeded", () => pod("once")?.status?.phase === "Succeeded", clock);
    expect(status("once")?.state?.terminated).toMatchObject({ exitCode: 0, reason: "Completed" });
    expect((await t.kubectl(["logs", "once", "-n", NS])).stdout).toBe("out\nerr");
    const row = await t.kubectl(["get", "pod", "once", "-n", NS, "--no-headers"]);
    expect(row.stdout).toMatch(/^once\s+0\/1\s+Completed\s+0\s/);
  });

  it("restarts a failing command under OnFailure and keeps the previous instance's log", async () => {
    create(
      "flaky",
      { image: "alpine:3.20", command: ["/bin/sh", "-c", "echo try; exit 3"] },
      { restartPolicy: "OnFailure" },
    );
    await waitFor("a restart", () => (status("flaky")?.restartCount ?? 0) >= 1, clock);
    await advance(1000);
    expect(status("flaky")?.lastState?.terminated).toMatchObject({ exitCode: 3, reason: "Error" });
    expect((await t.kubectl(["logs", "flaky", "-n", NS, "--previous"])).stdout).toBe("try");
  });

  it("reports the termination message file, and the log tail with FallbackToLogsOnError", async () => {
    create(
      "msg",
      {
        image: "busybox:1.36",
        command: ["sh", "-c", "echo Sleep expired > /dev/termination-log; exit 0"],
      },
      { restartPolicy: "Never" },
    );
    create(
      "fallback",
      {
        image: "busybox:1.36",
        command: ["sh", "-c", "echo connecting; echo fatal: no database >&2; exit 2"],
        terminationMessagePolicy: "FallbackToLogsOnError",
      },
      { restartPolicy: "Never" },
    );
    await waitFor(
      "both done",
      () => pod("msg")?.status?.phase === "Succeeded" && pod("fallback")?.status?.phase === "Failed",
      clock,
    );
    expect(status("msg")?.state?.terminated?.message).toBe("Sleep expired\n");
    expect(status("fallback")?.state?.terminated).toMatchObject({
      exitCode: 2,
      reason: "Error",
      message: "connecting\nfatal: no database\n",
    });
    const jp = await t.kubectl([
      "get",
      "pod",
      "msg",
      "-n",
      NS,
      "-o",
      "go-template={{range .status.containerStatuses}}{{.state.terminated.message}}{{end}}",
    ]);
    expect(jp.stdout).toBe("Sleep expired"); // execa drops the final newline
  });

  it("runs busybox's default shell, which exits at once without a terminal", async () => {
    // busybox has CMD ["sh"] and no ENTRYPOINT: args alone are the command line
    create("argsonly", { image: "busybox:1.36", args: ["sh", "-c", "echo from args; sleep 3600"] });
    create("bare", { image: "busybox:1.36" });
    await waitFor("a restart", () => (status("bare")?.restartCount ?? 0) >= 1, clock);
    expect(status("bare")?.lastState?.terminated).toMatchObject({ exitCode: 0, reason: "Completed" });
    expect(status("argsonly")?.state?.running).toBeTruthy();
    expect((await t.kubectl(["logs", "argsonly", "-n", NS])).stdout).toBe("from args");
  });

  it("keeps a server image without a command running, and a command it cannot run", async () => {
    create("web", { image: "nginx:1.27" });
    create("py", { image: "python:3.12-slim", command: ["python", "-m", "http.server"] });
    await advance(20_000);
    for (const name of ["web", "py"]) {
      expect(status(name)?.state?.running).toBeTruthy();
      expect(status(name)?.restartCount).toBe(0);
    }
  });

  it("fails to start a shell in a distroless image (StartError, 128)", async () => {
    create(
      "nosh",
      { image: "gcr.io/distroless/static:nonroot", command: ["/bin/sh", "-c", "echo hi"] },
      { restartPolicy: "Never" },
    );
    await waitFor("Failed", () => pod("nosh")?.status?.phase === "Failed", clock);
    expect(status("nosh")?.state?.terminated).toMatchObject({ exitCode: 128, reason: "StartError" });
    expect(status("nosh")?.state?.terminated?.message).toContain(
      'exec: "/bin/sh": stat /bin/sh: no such file or directory',
    );
    // the kubelet says why, and never that it started
    const ev = await t.kubectl([
      "get",
      "events",
      "-n",
      NS,
      "--field-selector",
      "involvedObject.name=nosh",
      "-o",
      "jsonpath={range .items[*]}{.reason}: {.message}|{end}",
    ]);
    expect(ev.stdout).toContain(
      'Failed: Error: failed to create containerd task: failed to create shim task: OCI runtime create failed: runc create failed: unable to start container process: exec: "/bin/sh": stat /bin/sh: no such file or directory: unknown|',
    );
    expect(ev.stdout).not.toContain("Started:");
  });

  it("runs an init container's command to its end before the app starts", async () => {
    const p: KObject = podManifest(NS, "gated", [{ name: "app", image: "nginx:1.27" }], {
      initContainers: [{ name: "wait", image: "busybox:1.36", command: ["sh", "-c", "sleep 30; echo done"] }],
    });
    t.c.ctx.registry.create(R("Pod"), NS, p);
    await waitFor(
      "init running",
      () => status("gated", "app") && pod("gated")?.status?.initContainerStatuses?.[0]?.state?.running,
      clock,
    );
    await advance(20_000);
    expect(pod("gated")?.status?.initContainerStatuses?.[0]?.state?.running).toBeTruthy();
    await advance(15_000);
    await waitFor("app running", () => status("gated", "app")?.state?.running, clock);
    expect(pod("gated")?.status?.initContainerStatuses?.[0]?.state?.terminated).toMatchObject({
      exitCode: 0,
      reason: "Completed",
    });
    expect((await t.kubectl(["logs", "gated", "-n", NS, "-c", "wait"])).stdout).toBe("done");
  });

  it("runs what kubectl run puts in args (busybox has no ENTRYPOINT)", async () => {
    const r = await t.kubectl([
      "run",
      "oneshot",
      "-n",
      NS,
      "--image=busybox:1.36",
      "--restart=Never",
      "--",
      "echo",
      "hi there",
    ]);
    expect(r.stdout).toBe("pod/oneshot created");
    await waitFor("Succeeded", () => pod("oneshot")?.status?.phase === "Succeeded", clock);
    expect((await t.kubectl(["logs", "oneshot", "-n", NS])).stdout).toBe("hi there");
  });

  it("runs an exec liveness probe in the container: the docs' example restarts after the file goes", async () => {
    // https://kubernetes.io/docs/tasks/configure-pod-container/configure-liveness-readiness-startup-probes/
    create("liveness-exec", {
      image: "registry.k8s.io/busybox",
      args: ["/bin/sh", "-c", "touch /tmp/healthy; sleep 30; rm -f /tmp/healthy; sleep 600"],
      livenessProbe: { exec: { command: ["cat", "/tmp/healthy"] }, initialDelaySeconds: 5, periodSeconds: 5 },
    });
    await waitFor("running", () => status("liveness-exec")?.state?.running, clock);
    await advance(25_000);
    const events = async () =>
      (
        await t.kubectl([
          "get",
          "events",
          "-n",
          NS,
          "--field-selector",
          "involvedObject.name=liveness-exec",
          "-o",
          "jsonpath={range .items[*]}{.reason}: {.message}|{end}",
        ])
      ).stdout;
    expect(await events()).not.toContain("Unhealthy");
    await waitFor("a restart", () => (status("liveness-exec")?.restartCount ?? 0) >= 1, clock);
    const ev = await events();
    expect(ev).toContain(
      "Unhealthy: Liveness probe failed: cat: can't open '/tmp/healthy': No such file or directory|",
    );
    expect(ev).toContain("Killing: Container liveness-exec failed liveness probe, will be restarted|");
  });

  it("stops the process when its pod is deleted", async () => {
    await t.kubectl(["delete", "pod", "hello", "-n", NS, "--wait=false"]);
    await waitFor("gone", () => !pod("hello"), clock);
  });
});
