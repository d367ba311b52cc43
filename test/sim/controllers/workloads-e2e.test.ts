// Workload controllers end to end: real kubectl over HTTP against the embedded cluster, whose
// scheduler and kubelet start the pods. Checks what kubectl prints, as a user would read it.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { simData } from "../../../src/cli/sim-data.js";
import { EmbeddedCluster } from "../../../src/sim/cluster/cluster.js";

const DEPLOYMENT = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 2
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: web
        image: nginx:1.25
        resources:
          requests: {cpu: 100m, memory: 64Mi}
          limits: {cpu: 500m, memory: 256Mi}
`;

const STATEFULSET = `apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: db
spec:
  replicas: 3
  serviceName: db
  selector:
    matchLabels: {app: db}
  template:
    metadata:
      labels: {app: db}
    spec:
      containers:
      - name: db
        image: redis:7
`;

/** Rows of a kubectl table as arrays of cells. */
const rows = (out: string) =>
  out
    .trim()
    .split("\n")
    .slice(1)
    .map((l) => l.trim().split(/\s+/));

describe("workloads through kubectl", () => {
  let cluster: EmbeddedCluster;
  let dir: string;
  let kubeconfig: string;
  const kubectl = async (...args: string[]) =>
    (await execa("kubectl", ["--kubeconfig", kubeconfig, ...args])).stdout;
  const imageOf = (what: string) =>
    kubectl("get", what, "-o", "jsonpath={.spec.template.spec.containers[0].image}");
  // `rollout history` prints a title line ("deployment.apps/web"), then the REVISION table
  const revisions = async (what: string) =>
    rows((await kubectl("rollout", "history", what)).split("\n").slice(1).join("\n")).map((r) => r[0]);

  beforeAll(async () => {
    cluster = new EmbeddedCluster({ ...simData(), speed: 20 });
    await cluster.listen();
    dir = mkdtempSync(join(tmpdir(), "microremed-workloads-"));
    kubeconfig = cluster.writeKubeconfig(join(dir, "kubeconfig"));
  });
  afterAll(async () => {
    await cluster.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("rolls a Deployment out, sets its image, restarts it, undoes, and scales it", async () => {
    writeFileSync(join(dir, "web.yaml"), DEPLOYMENT);
    expect(await kubectl("apply", "-f", join(dir, "web.yaml"))).toBe("deployment.apps/web created");
    expect(await kubectl("rollout", "status", "deploy/web", "--timeout=60s")).toContain(
      'deployment "web" successfully rolled out',
    );
    expect(rows(await kubectl("get", "deploy", "web"))[0].slice(0, 4)).toEqual(["web", "2/2", "2", "2"]);

    expect(await kubectl("set", "image", "deploy/web", "web=nginx:1.26")).toBe(
      "deployment.apps/web image updated",
    );
    expect(await kubectl("rollout", "status", "deploy/web", "--timeout=60s")).toContain(
      "successfully rolled out",
    );
    expect(await imageOf("deploy/web")).toBe("nginx:1.26");
    expect(await revisions("deploy/web")).toEqual(["1", "2"]);

    expect(await kubectl("rollout", "undo", "deploy/web")).toBe("deployment.apps/web rolled back");
    expect(await kubectl("rollout", "status", "deploy/web", "--timeout=60s")).toContain(
      "successfully rolled out",
    );
    expect(await imageOf("deploy/web")).toBe("nginx:1.25");
    expect(await revisions("deploy/web")).toEqual(["2", "3"]);

    expect(await kubectl("rollout", "restart", "deploy/web")).toBe("deployment.apps/web restarted");
    expect(await kubectl("rollout", "status", "deploy/web", "--timeout=60s")).toContain(
      "successfully rolled out",
    );
    expect(await revisions("deploy/web")).toEqual(["2", "3", "4"]);
    expect(await kubectl("rollout", "history", "deploy/web", "--revision=4")).toContain(
      "kubectl.kubernetes.io/restartedAt",
    );

    expect(await kubectl("scale", "deploy/web", "--replicas=3")).toBe("deployment.apps/web scaled");
    expect(await kubectl("rollout", "status", "deploy/web", "--timeout=60s")).toContain(
      "successfully rolled out",
    );
    expect(rows(await kubectl("get", "deploy", "web"))[0].slice(0, 4)).toEqual(["web", "3/3", "3", "3"]);

    // one ReplicaSet per template, the current one holding all the pods
    const rs = rows(await kubectl("get", "rs", "-l", "app=web"));
    expect(rs).toHaveLength(3);
    for (const r of rs) expect(r[0]).toMatch(/^web-[bcdfghjklmnpqrstvwxz2456789]+$/);
    expect(rs.map((r) => r.slice(1, 4).join("/")).sort()).toEqual(["0/0/0", "0/0/0", "3/3/3"]);
    const pods = rows(await kubectl("get", "pods", "-l", "app=web"));
    expect(pods).toHaveLength(3);
    for (const p of pods) expect(p.slice(1, 3)).toEqual(["1/1", "Running"]);
    const events = await kubectl(
      "get",
      "events",
      "--field-selector",
      "involvedObject.kind=Deployment",
      "-o",
      "jsonpath={.items[*].message}",
    );
    expect(events).toMatch(/Scaled up replica set web-\w+ from 0 to 2/);
    expect(events).toMatch(/Scaled down replica set web-\w+ from 1 to 0/);
  });

  it("keeps the old pod serving when the new template never becomes Ready, until undone", async () => {
    writeFileSync(
      join(dir, "api.yaml"),
      DEPLOYMENT.replaceAll("web", "api").replace("replicas: 2", "replicas: 1"),
    );
    await kubectl("apply", "-f", join(dir, "api.yaml"));
    await kubectl("rollout", "status", "deploy/api", "--timeout=60s");
    const [oldPod] = rows(await kubectl("get", "pods", "-l", "app=api"));
    // a template whose pods never get Ready (here: an image that cannot be pulled)
    await kubectl("set", "image", "deploy/api", "api=nginx:does-not-exist");
    const stuck = await execa(
      "kubectl",
      ["--kubeconfig", kubeconfig, "rollout", "status", "deploy/api", "--timeout=5s"],
      { reject: false },
    );
    expect(stuck.exitCode).toBe(1);
    expect(stuck.stdout).toContain(
      'Waiting for deployment "api" rollout to finish: 1 old replicas are pending termination...',
    );
    expect(stuck.stderr).toContain("timed out waiting for the condition");
    const pods = rows(await kubectl("get", "pods", "-l", "app=api"));
    expect(pods).toHaveLength(2);
    expect(pods.find((p) => p[0] === oldPod[0])?.slice(1, 3)).toEqual(["1/1", "Running"]);

    expect(await kubectl("rollout", "undo", "deploy/api")).toBe("deployment.apps/api rolled back");
    expect(await kubectl("rollout", "status", "deploy/api", "--timeout=60s")).toContain(
      "successfully rolled out",
    );
    expect(rows(await kubectl("get", "pods", "-l", "app=api")).map((p) => p[0])).toEqual([oldPod[0]]);
  });

  it("starts a StatefulSet in order and rolls it back", async () => {
    writeFileSync(join(dir, "db.yaml"), STATEFULSET);
    await kubectl("apply", "-f", join(dir, "db.yaml"));
    expect(await kubectl("rollout", "status", "sts/db", "--timeout=60s")).toContain(
      "roll out complete: 3 new pods have been updated",
    );
    expect(rows(await kubectl("get", "pods", "-l", "app=db")).map((p) => p[0])).toEqual([
      "db-0",
      "db-1",
      "db-2",
    ]);
    // OrderedReady: each pod was created no earlier than the one before it became Ready
    const times = rows(
      `header\n${await kubectl("get", "pods", "-l", "app=db", "-o", 'jsonpath={range .items[*]}{.metadata.creationTimestamp} {.status.conditions[?(@.type=="Ready")].lastTransitionTime}{"\\n"}{end}')}`,
    );
    expect(times).toHaveLength(3);
    for (let i = 1; i < times.length; i++)
      expect(Date.parse(times[i][0])).toBeGreaterThanOrEqual(Date.parse(times[i - 1][1]));

    await kubectl("set", "image", "sts/db", "db=redis:7.2");
    expect(await kubectl("rollout", "status", "sts/db", "--timeout=60s")).toContain(
      "roll out complete: 3 new pods have been updated",
    );
    expect(await revisions("sts/db")).toEqual(["1", "2"]);
    expect(await kubectl("rollout", "undo", "sts/db")).toBe("statefulset.apps/db rolled back");
    expect(await kubectl("rollout", "status", "sts/db", "--timeout=60s")).toContain(
      "roll out complete: 3 new pods have been updated",
    );
    expect(await imageOf("sts/db")).toBe("redis:7");
    expect(rows(await kubectl("get", "sts", "db"))[0].slice(0, 2)).toEqual(["db", "3/3"]);
  });
});
