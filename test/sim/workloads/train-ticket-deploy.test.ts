// Train-Ticket with its backing services (MySQL x2, Nacos x3, RabbitMQ)
// reaches all Ready at speed 60 with the real kubectl. The target is under 10 s of wall time
// (`node dist/bench/main.js deploy` measures it without kubectl's own cost); the bound asserted
// here is generous so that a loaded machine does not make it flaky.
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { packageRoot } from "../../../src/util/paths.js";
import { startTestCluster, type TestCluster } from "../../helpers/cluster.js";
import { allWorkloadsReady, eventually, kubectlIn } from "../helpers/failures.js";

let t: TestCluster;
beforeAll(async () => {
  t = await startTestCluster(60, 3);
});
afterAll(() => t?.stop());

describe("Train-Ticket deploy at speed 60", () => {
  it("reaches all Ready well within a minute of wall time", async () => {
    const kn = kubectlIn(t, "train-ticket");
    await t.kubectl(["create", "namespace", "train-ticket"]);
    const t0 = performance.now();
    const ap = await kn(["apply", "-f", join(packageRoot(), "envs/train-ticket/manifests.yaml")]);
    expect(ap.exitCode, ap.stderr).toBe(0);
    const out = await eventually(kn, ["get", "deploy,sts", "--no-headers"], allWorkloadsReady, 60_000);
    const wall = performance.now() - t0;
    process.stdout.write(
      `Train-Ticket: kubectl apply to all Ready in ${(wall / 1000).toFixed(2)} s of wall time\n`,
    );
    // 49 Deployments (46 ts-* services, two MySQL, RabbitMQ) and the Nacos StatefulSet of 3
    const rows = out.trim().split("\n");
    expect(rows.filter((l) => l.startsWith("deployment.apps/"))).toHaveLength(49);
    expect(rows.find((l) => l.startsWith("statefulset.apps/nacos "))).toMatch(/\s3\/3\s/);
    const pods = (await kn(["get", "pod", "--no-headers"])).stdout.trim().split("\n");
    expect(pods).toHaveLength(52);
    expect(pods.every((l) => /\s(\d+)\/\1\s+Running\s/.test(l))).toBe(true);
    expect(wall).toBeLessThan(60_000);
  }, 90_000);
});
