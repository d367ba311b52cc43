// A load generator's pod run by a Job sends its own users' load, beside the Deployment's: what a
// pod does is its image's program, whoever owns it. Pinned clock, read with the real kubectl.
// Sources:
// - GoogleCloudPlatform/microservices-demo v0.3.8, src/loadgenerator/Dockerfile: ENTRYPOINT
//   locust --host="http://${FRONTEND_ADDR}" --headless -u "${USERS:-10}": each process runs its
//   own users (headless, no master: two pods are two independent swarms), until it is stopped;
//   Locust's runners.py logs "Ramping to N users at a rate of R per second" and "All users
//   spawned: {...} (N total users)" with the -u it was given.
// - kubernetes pkg/controller/job/job_controller.go: past spec.activeDeadlineSeconds the Job's
//   active pods are deleted and the Job gets condition Failed, reason DeadlineExceeded.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type LoadSim, loadSim } from "./load-helpers.js";

const JOB = `apiVersion: batch/v1
kind: Job
metadata: {name: storefront-warmup}
spec:
  activeDeadlineSeconds: 180
  backoffLimit: 0
  template:
    metadata: {labels: {app: loadgenerator}}
    spec:
      restartPolicy: Never
      containers:
      - name: main
        image: gcr.m.daocloud.io/google-samples/microservices-demo/loadgenerator:v0.3.8
        env:
        - {name: FRONTEND_ADDR, value: "frontend:80"}
        - {name: USERS, value: "150"}
`;

describe("a Job running the load generator's image adds its users' load for as long as it runs", () => {
  let s: LoadSim;
  beforeAll(async () => {
    s = await loadSim("online-boutique", "job-source");
  }, 120_000);
  afterAll(() => s?.stop());

  it("150 users in a Job's pod saturate the frontend's path; its deadline ends them and the path recovers", async () => {
    const calm = s.svc("frontend").rps;
    expect(s.svc("frontend").failRate).toBe(0);
    const file = join(mkdtempSync(join(tmpdir(), "mr-job-source-")), "job.yaml");
    writeFileSync(file, JOB);
    const r = await s.kubectl(["create", "-f", file]);
    expect(r.exitCode, r.stderr).toBe(0);
    s.advance(60_000);
    // the Deployment's 10 users and the Job's 150: far more than the frontend served before
    expect(s.svc("frontend").rps).toBeGreaterThan(4 * calm);
    expect(s.svc("frontend").failRate).toBeGreaterThan(0.5);
    const pods = await s.kubectl(["get", "pods", "-l", "job-name=storefront-warmup", "-o", "name"]);
    const pod = pods.stdout.trim().split("\n")[0];
    const logs = await s.kubectl(["logs", pod]);
    // Locust says how many users it was given
    expect(logs.stdout).toContain("Ramping to 150 users at a rate of 1.00 per second");
    expect(logs.stdout).toContain("(150 total users)");
    const lg = await s.kubectl(["logs", "deployment/loadgenerator", "-c", "main"]);
    expect(lg.stdout).toContain("Ramping to 10 users");

    // past its deadline the Job's pod is gone; the Deployment's users alone are served again
    s.advance(150_000);
    const job = await s.kubectl([
      "get",
      "job",
      "storefront-warmup",
      "-o",
      "jsonpath={.status.conditions[?(@.type=='Failed')].reason}",
    ]);
    expect(job.stdout).toBe("DeadlineExceeded");
    s.advance(60_000);
    expect(s.svc("frontend").rps).toBeLessThan(1.5 * calm);
    expect(s.svc("frontend").failRate).toBe(0);
  }, 240_000);
});
