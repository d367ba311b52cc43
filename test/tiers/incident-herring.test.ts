// Fairness of the herring family's newer scenarios (docs/incident-tier.md), through the CLI on the
// embedded cluster (Simple-Micro): the oracle repairs each from what the agent can read (its
// detectors, models/oracle/herring.py: the port the callers dial against the Service's, an
// address read from a ConfigMap against the port its Service serves), noop and the runbook none,
// and each tempting wrong fix fails for its stated reason:
//   herring-new-image   undoing the newest rollout (time-service's new image, which works): the
//                       Service renumbered forty minutes before still serves a port nobody dials;
//   herring-failed-job  clearing what is red (the failed Job deleted) and restarting the service
//                       whose calls fail: its new pod reads the same wrong value at start.
// Sources: kubectl/pkg/polymorphichelpers/rollback.go (rollout undo: the previous revision of the
// named Deployment only); pkg/proxy (a Service answers on `port`, forwarding to `targetPort`);
// pkg/kubelet/kubelet_pods.go makeEnvironmentVariables (configMapKeyRef resolved when the
// container starts, never after); pkg/controller/job (BackoffLimitExceeded: the Job fails, its
// pods stay in Error).
import { join } from "node:path";
import { execa } from "execa";
import { describe, expect, it } from "vitest";
import { readCases, tmp, write } from "../cli/cli-helpers.js";
import { UNDO_NEWEST } from "./incident.js";

const SCENARIOS = ["herring-new-image", "herring-failed-job"];

/** The scenarios on Simple-Micro with a model (oracle, noop, runbook, scripted:<file>), through `run`. */
async function run(scenarios: string[], model: string, name: string, extra: string[] = []) {
  const dir = tmp(`mr-herring-${name}-`);
  const exp = write(dir, "incident.txt", `${scenarios.join("\n")}\n`);
  const r = await execa(
    process.execPath,
    [
      "dist/src/cli/main.js",
      "run",
      "--env",
      "simple-micro",
      "--model",
      model,
      "--remediate-method",
      "SoloGen",
      "--experiment-path",
      exp,
      "--save-path",
      dir,
      "--run-name",
      name,
      "--speed",
      "600",
      ...extra,
    ],
    { reject: false, timeout: 1_200_000 },
  );
  expect(r.exitCode, String(r.stderr).slice(-2000)).toBe(0);
  return readCases(join(dir, name));
}

const scripted = (scenario: string, script: string) => {
  const file = write(tmp("mr-herring-model-"), "fix.yaml", script);
  return run([scenario], `scripted:${file}`, "wrong-fix");
};

describe("the herring family's newer scenarios on Simple-Micro", () => {
  it("the oracle repairs each from what the namespace shows, changing the causes only", async () => {
    const cases = await run(SCENARIOS, "oracle", "oracle");
    expect(cases.map((c) => c.status)).toEqual(["success", "success"]);
    for (const c of cases) expect(c.localization?.localized, JSON.stringify(c.localization)).toBe(true);
  });

  it("the oracle repairs each from the symptom level's alert too", async () => {
    const cases = await run(SCENARIOS, "oracle", "symptom", ["--report", "symptom"]);
    expect(cases.map((c) => c.status)).toEqual(["success", "success"]);
  });

  it("noop repairs none", async () => {
    const cases = await run(SCENARIOS, "noop", "noop");
    expect(cases.map((c) => c.status)).toEqual(["failure", "failure"]);
  });

  it("the runbook repairs none: its undo takes the newest rollout, a red herring", async () => {
    const cases = await run(SCENARIOS, "runbook", "runbook");
    expect(cases.map((c) => c.status)).toEqual(["failure", "failure"]);
    for (const c of cases) {
      expect(c.reason?.code).toBe("ineffective");
      expect(c.localization?.collateral).toEqual(["patch deployments/time-service"]);
    }
  });
});

describe("each scenario's wrong fix fails for its stated reason", () => {
  it("new-image: undoing the newest rollout (the new image) leaves the renumbered Service", async () => {
    const [c] = await scripted("herring-new-image", UNDO_NEWEST);
    expect(c.status).toBe("failure");
    expect(c.reason?.detail).toMatch(/users see failures/);
    expect(c.localization?.changed).toEqual(["patch deployments/time-service"]);
  });

  it("failed-job: deleting the failed Job and restarting the service leaves the value it reads at start", async () => {
    const [c] = await scripted(
      "herring-failed-job",
      `turns:
  - content: |
      \`\`\`yaml
      - hosts: localhost
        gather_facts: false
        tasks:
          - name: clear the failed Job
            ansible.builtin.command: kubectl -n {{namespace}} delete job report-export
          - name: restart the service whose calls fail
            ansible.builtin.command: kubectl -n {{namespace}} rollout restart deployment/hello-service
          - name: wait for it
            ansible.builtin.command: kubectl -n {{namespace}} rollout status deployment/hello-service --timeout=120s
      \`\`\`
`,
    );
    expect(c.status).toBe("failure");
    expect(c.reason?.detail).toMatch(/TIME_SERVICE_ADDR.*time-service:5002/);
  });
});
