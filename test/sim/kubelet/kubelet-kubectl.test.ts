// End to end through the real kubectl over HTTP: the scheduler and the kubelet, seen as a user
// sees them (kubectl wait, get, describe), with the cluster clock at 20x.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { simData } from "../../../src/cli/sim-data.js";
import { EmbeddedCluster } from "../../../src/sim/cluster/cluster.js";

const POD = `
apiVersion: v1
kind: Pod
metadata: { name: web, labels: { app: web } }
spec:
  containers:
    - name: web
      image: nginx:1.25
      ports: [{ containerPort: 80 }]
      readinessProbe: { httpGet: { path: /, port: 80 }, initialDelaySeconds: 5, periodSeconds: 5 }
`;

describe("pods through kubectl", () => {
  let cluster: EmbeddedCluster;
  let dir: string;
  let kubeconfig: string;
  const kubectl = (args: string[], input?: string) =>
    execa("kubectl", ["--kubeconfig", kubeconfig, ...args], { input, timeout: 90_000 });

  beforeAll(async () => {
    cluster = new EmbeddedCluster({ ...simData(), speed: 20 });
    await cluster.listen();
    dir = mkdtempSync(join(tmpdir(), "kubelet-e2e-"));
    kubeconfig = cluster.writeKubeconfig(join(dir, "kubeconfig"));
  });

  afterAll(async () => {
    await cluster?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("runs a pod until it is Ready, and tells its story", async () => {
    await kubectl(["apply", "-f", "-"], POD);
    await kubectl(["wait", "--for=condition=Ready", "pod/web", "--timeout=60s"]);

    const get = await kubectl(["get", "pod", "web"]);
    expect(get.stdout).toMatch(/^web\s+1\/1\s+Running\s+0\s+/m);

    const wide = await kubectl(["get", "pod", "web", "-o", "wide"]);
    expect(wide.stdout).toMatch(/10\.42\.0\.\d+\s+k3s-server/);

    const describe = await kubectl(["describe", "pod", "web"]);
    for (const reason of ["Scheduled", "Pulling", "Pulled", "Created", "Started"])
      expect(describe.stdout).toMatch(new RegExp(`Normal\\s+${reason}\\s`));
    expect(describe.stdout).toContain("Successfully assigned default/web to k3s-server");
    expect(describe.stdout).toMatch(/Ready\s+True/);
  });

  it("shows a missing image as ImagePullBackOff", async () => {
    await kubectl(["run", "broken", "--image=nginx:doesnotexist"]);
    let status = "";
    for (let i = 0; i < 50 && status !== "ImagePullBackOff"; i++) {
      await new Promise((r) => setTimeout(r, 100));
      status = (
        await kubectl([
          "get",
          "pod",
          "broken",
          "-o",
          "jsonpath={.status.containerStatuses[0].state.waiting.reason}",
        ])
      ).stdout;
    }
    expect(status).toBe("ImagePullBackOff");
    const describe = await kubectl(["describe", "pod", "broken"]);
    expect(describe.stdout).toContain('Failed to pull image "nginx:doesnotexist"');
  });

  it("deletes a running pod gracefully", async () => {
    await kubectl(["delete", "pod", "web", "--wait=true", "--timeout=30s"]);
    const left = await kubectl(["get", "pods", "-o", "name"]);
    expect(left.stdout).not.toContain("pod/web");
  });
});
