// The expert tier's bad-command, through real kubectl on Simple-Micro and Online-Boutique:
// chaos/expert/bad-command.yaml sets the main container's `command` to a program its image lacks
// (args: null), with Recreate. runc cannot exec it: containerd fails the task, the kubelet records
// "Error: failed to create containerd task: ... exec: \"/app/server\": stat /app/server: no such
// file or directory: unknown" (Failed, no Started event), the container's last state is
// Terminated/StartError with exit code 128 and containerd's zero start time (describe: Thu, 01 Jan
// 1970), and it crash-loops. The images' own programs still start: a Go service's /src/server,
// the python of python:3.9-slim. rollout undo brings the pods back.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestCluster, type TestCluster } from "../../helpers/cluster.js";
import { deploySystem, eventually, isReady, type Kn, kubectlIn } from "../helpers/failures.js";
import { curlUntil, eventsShow, onePod, patchWith, statusOf, undo } from "../helpers/lifecycle.js";
import { debugPod } from "../helpers/network.js";

let t: TestCluster;

beforeAll(async () => {
  t = await startTestCluster(60, 71);
}, 60_000);
afterAll(() => t?.stop());

const RUNC =
  "failed to create containerd task: failed to create shim task: OCI runtime create failed: runc create failed: unable to start container process:";
const lacks = (path: string) => `${RUNC} exec: "${path}": stat ${path}: no such file or directory: unknown`;

describe("Simple-Micro: time-service told to run /app/server", () => {
  const NS = "badcmd-sm";
  let kn: Kn;

  beforeAll(async () => {
    kn = kubectlIn(t, NS);
    await deploySystem(t, "simple-micro", NS);
  }, 180_000);

  it("StartError, exit 128, runc's message, CrashLoopBackOff; callers fail; undone: healthy", async () => {
    const curl = await debugPod(kn);
    const r = await patchWith(t, kn, "time-service", "bad-command", {
      target_container: "time-service",
      command: "/app/server",
    });
    expect(r.exitCode, r.stderr).toBe(0);
    const pod = await onePod(
      kn,
      "time-service",
      (p) => (statusOf(p, "time-service")?.restartCount ?? 0) >= 2,
    );
    const name = pod.metadata.name;
    expect(statusOf(pod, "time-service")?.lastState?.terminated).toMatchObject({
      reason: "StartError",
      exitCode: 128,
      message: lacks("/app/server"),
      startedAt: "1970-01-01T00:00:00Z",
    });
    await eventually(kn, ["get", "pod", name, "--no-headers"], (o) => /\s1\/2\s+CrashLoopBackOff\s/.test(o));
    const events = await eventsShow(kn, name, /BackOff/);
    expect(events).toContain(`Error: ${lacks("/app/server")}`);
    expect(events).not.toMatch(/Started container time-service/);
    const describe = await kn(["describe", "pod", name]);
    expect(describe.stdout).toMatch(
      /Last State:\s+Terminated\n\s+Reason:\s+StartError\n\s+Message:\s+failed to create containerd task[^\n]+\n\s+Exit Code:\s+128\n\s+Started:\s+Thu, 01 Jan 1970 00:00:00 \+0000/,
    );
    await curlUntil(kn, curl, "http://hello-service:5000/hello", (a) => a.code === "503");
    await undo(kn, "time-service");
    await curlUntil(kn, curl, "http://hello-service:5000/hello", (a) => a.code === "200");
  }, 180_000);
});

describe("Online-Boutique: the services' images and their own programs", () => {
  const NS = "badcmd-ob";
  let kn: Kn;

  beforeAll(async () => {
    kn = kubectlIn(t, NS);
    await deploySystem(t, "online-boutique", NS);
  }, 240_000);

  for (const [app, path] of [
    ["productcatalogservice", "/app/server"],
    ["cartservice", "/app/server"],
    ["currencyservice", "/app/server.js"],
  ] as const)
    it(`${app}: ${path} is not in its image: StartError; undone: healthy`, async () => {
      const r = await patchWith(t, kn, app, "bad-command", { target_container: "server", command: path });
      expect(r.exitCode, r.stderr).toBe(0);
      const pod = await onePod(kn, app, (p) => (statusOf(p, "server")?.restartCount ?? 0) >= 1);
      expect(statusOf(pod, "server")?.lastState?.terminated).toMatchObject({
        reason: "StartError",
        exitCode: 128,
        message: lacks(path),
      });
      await undo(kn, app);
    }, 180_000);

  it("a command naming the image's own program runs as before (the Go service's /src/server)", async () => {
    const r = await patchWith(t, kn, "productcatalogservice", "bad-command", {
      target_container: "server",
      command: "/src/server",
    });
    expect(r.exitCode, r.stderr).toBe(0);
    const pod = await onePod(kn, "productcatalogservice", isReady);
    expect(pod.spec.containers.find((c) => c.name === "server")?.command).toEqual(["/src/server"]);
    expect(statusOf(pod, "server")?.restartCount).toBe(0);
    await undo(kn, "productcatalogservice");
  }, 180_000);
});
