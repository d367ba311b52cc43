// A fault that ends by itself is not a remediation. Chaos Mesh recovers a chaos when its
// `duration` is up (the reference's PodChaos: 1200 s), and a check that only passes after that
// cannot tell a fix from the fault's own end: on k3s as on the embedded cluster, a noop answer
// would score as soon as the case's checks (ThinkRemed: up to 300 s of readiness wait per attempt)
// outlast the fault. The scorer waits no longer than the fault holds, and a pass after it does not
// count. Driven through the built CLI with a user template whose duration is short.
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { checkBuilt, cli, readCases, tmp, write } from "./cli-helpers.js";

beforeAll(checkBuilt);

const TEMPLATE = `apiVersion: chaos-mesh.org/v1alpha1
kind: PodChaos
metadata:
  name: short-pod-fail
spec:
  action: pod-failure
  mode: one
  duration: 90s
  gracePeriod: 0
`;

describe("a fault whose duration runs out", () => {
  it("fails a noop case that would pass once the chaos recovered by itself", async () => {
    const dir = tmp("mr-duration-");
    write(dir, "short-pod-fail.yaml", TEMPLATE);
    const exp = write(
      dir,
      "exp.yaml",
      "cases:\n  - {template: short-pod-fail.yaml, check: readiness, target: time-service}\n",
    );
    const r = await cli(
      [
        "run",
        "--env",
        "simple-micro",
        "--model",
        "noop",
        "--remediate-method",
        "SoloGen",
        "--experiment-path",
        exp,
        "--speed",
        "600",
        "--save-path",
        dir,
        "--run-name",
        "short",
      ],
      { timeout: 300_000 },
    );
    expect(r.exitCode, r.stderr).toBe(0);
    const [c] = readCases(join(dir, "short"));
    expect(c).toMatchObject({ injected: true, status: "failure", success: false });
    // the readiness wait ended with the fault (before: it waited 300 s and saw the pod back)
    expect(c.verdicts?.reference?.reason).toMatch(
      /time-service pods are not all Running and Ready|had run its full duration/,
    );
  });
});
