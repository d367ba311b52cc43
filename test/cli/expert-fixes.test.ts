// Issue 22: the expert tier's verdicts follow the outcome, whatever wrote the fix. Correct fixes
// written with kubernetes.core (k8s_scale, k8s with state absent, k8s with force: true) repair
// scale-zero, netpol-deny and svc-selector, judged by what users see and held over the window;
// the plausible wrong fix of restarting the reported service (kubernetes.core.k8s patching the
// restartedAt annotation, as `kubectl rollout restart` does) leaves each fault in place and
// fails as ineffective, never as an error of the run. The whole tier: test/tiers/expert.test.ts.
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { checkBuilt, cli, ROOT, readCases, tmp, write } from "./cli-helpers.js";

beforeAll(checkBuilt);

const fixture = (name: string) => join(ROOT, "test/cli/fixtures/expert", `${name}.yaml`);

async function runCase(failure: string, script: string) {
  const dir = tmp("mr-expert-fix-");
  const exp = write(dir, "exp.yaml", `cases:\n  - {failure: ${failure}, target: time-service}\n`);
  const r = await cli(
    [
      "run",
      "--env",
      "simple-micro",
      "--model",
      `scripted:${fixture(script)}`,
      "--remediate-method",
      "SoloGen",
      "--experiment-path",
      exp,
      "--save-path",
      dir,
      "--run-name",
      "fix",
      "--speed",
      "600",
      "--settle",
      "5",
      "--hold",
      "20",
    ],
    { timeout: 400_000 },
  );
  expect(r.exitCode, r.stderr).toBe(0);
  const [c] = readCases(join(dir, "fix"));
  return c;
}

describe("expert faults on Simple-Micro, fixed with kubernetes.core", () => {
  it.each([
    ["scale-zero", "k8s-scale"],
    ["netpol-deny", "k8s-netpol-absent"],
    ["svc-selector", "k8s-service-replace"],
  ])(
    "%s: %s repairs it, held over the window",
    async (failure, script) => {
      const c = await runCase(failure, script);
      expect(c.status, JSON.stringify(c.reason)).toBe("success");
    },
    400_000,
  );

  it.each(["scale-zero", "netpol-deny", "svc-selector"])(
    "%s: restarting the service does not, and says the users' check still fails",
    async (failure) => {
      const c = await runCase(failure, "restart");
      expect(c.status).toBe("failure");
      expect(c.reason?.code).toBe("ineffective");
    },
    400_000,
  );
});
