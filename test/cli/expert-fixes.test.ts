// The expert tier's verdicts follow the outcome, whatever wrote the fix. Correct fixes
// written with kubernetes.core (k8s_scale, k8s with state present/absent, k8s patched with a
// strategic merge, k8s_json_patch) repair each configuration fault they answer, judged by what
// users see and held over the window. Plausible wrong fixes fail as ineffective, never as an
// error of the run: restarting the reported service (kubernetes.core.k8s patching the
// restartedAt annotation, as `kubectl rollout restart` does) leaves scale-zero, netpol-deny and
// svc-selector in place; scaling out to two replicas leaves http-abort and network-partition on
// the pod their chaos selected (mode: one), so the calls check still fails. (Restarting repairs
// those two: the new pod is outside the chaos's selection.) The whole tier:
// test/tiers/expert.test.ts.
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { checkBuilt, cli, ROOT, readCases, tmp, write } from "./cli-helpers.js";

beforeAll(checkBuilt);

const fixture = (name: string) => join(ROOT, "test/cli/fixtures/expert", `${name}.yaml`);

async function runCase(failure: string, script: string, target = "time-service") {
  const dir = tmp("mr-expert-fix-");
  const exp = write(dir, "exp.yaml", `cases:\n  - {failure: ${failure}, target: ${target}}\n`);
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
    ["scale-zero", "k8s-scale", "time-service"],
    ["netpol-deny", "k8s-netpol-absent", "time-service"],
    ["svc-selector", "k8s-service-replace", "time-service"],
    ["image-bad-tag", "k8s-image-back", "time-service"],
    ["unschedulable", "k8s-nodeselector-remove", "time-service"],
    ["readiness-bad", "k8s-readiness-back", "time-service"],
    ["liveness-bad", "k8s-liveness-remove", "time-service"],
    ["svc-targetport", "k8s-targetport-back", "time-service"],
    ["oom-limit", "k8s-memory-back", "time-service"],
    ["init-hang", "k8s-init-remove", "time-service"],
    ["sidecar-port", "k8s-sidecar-delete", "time-service"],
    ["svc-deleted", "k8s-service-create", "time-service"],
    ["env-wrong-addr", "k8s-env-back", "hello-service"],
  ])(
    "%s: %s repairs it on %s, held over the window",
    async (failure, script, target) => {
      const c = await runCase(failure, script, target);
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

  it.each([
    ["http-abort", "time-service"],
    ["network-partition", "hello-service"],
  ])(
    "%s: scaling %s out to two replicas does not, the chaos stays on the pod it selected",
    async (failure, target) => {
      const c = await runCase(failure, "k8s-scale-out", target);
      expect(c.status).toBe("failure");
      expect(c.reason?.code).toBe("ineffective");
    },
    400_000,
  );
});
