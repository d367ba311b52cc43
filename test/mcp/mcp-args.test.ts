// What `microremed mcp` refuses, through the built CLI and before it reaches a cluster, each in
// one line naming what is wrong: a report that lacks what its level has, a level that does not
// exist, a --playbook-timeout or --http that is no number of the kind, an unknown --agent-access.
// (A service-level report served: mcp-standalone.test.ts.)
import { beforeAll, describe, expect, it } from "vitest";
import { checkBuilt, cli, lastLine, tmp, write } from "../cli/cli-helpers.js";

let dir: string;
beforeAll(() => {
  checkBuilt();
  dir = tmp("mr-mcp-args-");
});

const COMMON = {
  env: "simple-micro",
  namespace: "simple-micro",
  runtimeContext: "$ kubectl get pods -n simple-micro",
  inventory: "localhost ansible_connection=local",
};
/** Never read: the refusals come first, and get_report does not touch the cluster. */
const NO_CLUSTER = ["--kubeconfig", "/nonexistent/kubeconfig", "--sandbox", "none"];

const serve = (report: object, extra: string[] = []) =>
  cli(["mcp", "--report", write(dir, "report.json", JSON.stringify(report)), ...NO_CLUSTER, ...extra], {
    timeout: 30_000,
  });

describe("microremed mcp's arguments", () => {
  it("refuses a report without what its level has, naming the level and the fields", async () => {
    for (const [report, missing] of [
      [{ level: "service", ...COMMON }, "the service level (no service)"],
      [{ level: "symptom", ...COMMON }, "the symptom level (no alert)"],
      // a report without a level is a full one, from before levels: it names the category too
      [{ service: "time-service", ...COMMON }, "the full level (no category)"],
      [
        { level: "symptom", alert: "- Alert: fired", namespace: "simple-micro" },
        "(no env, runtimeContext, inventory)",
      ],
    ] as const) {
      const r = await serve(report);
      expect(r.exitCode, r.stderr).toBe(1);
      expect(lastLine(r.stderr)).toMatch(/^error E_CONFIG: .*report\.json is not a diagnosis report of /);
      expect(lastLine(r.stderr)).toContain(missing);
    }
    const r = await serve({ level: "partial", service: "time-service", ...COMMON });
    expect(r.exitCode, r.stderr).toBe(1);
    expect(lastLine(r.stderr)).toMatch(/report of an unknown level "partial".*full, service, symptom/);
  }, 60_000);

  it("refuses a --playbook-timeout or --http that is not a number of the kind, naming the flag", async () => {
    const report = { level: "symptom", alert: "- Alert: fired", ...COMMON };
    for (const [flag, value, says] of [
      [
        "--playbook-timeout",
        "soon",
        `--playbook-timeout must be a positive number, got "soon" (fix: pass e.g. --playbook-timeout 300)`,
      ],
      ["--playbook-timeout", "0", `--playbook-timeout must be a positive number, got "0"`],
      ["--http", "any", `--http must be a whole number ≥ 0, got "any" (fix: pass e.g. --http 0)`],
      ["--http", "70000", `--http must be a TCP port (0 to 65535), got "70000"`],
      [
        "--agent-access",
        "root",
        `unknown --agent-access "root" (fix: pass --agent-access namespace or cluster-admin)`,
      ],
    ]) {
      const r = await serve(report, [flag, value]);
      expect(r.exitCode, r.stderr).toBe(2);
      expect(lastLine(r.stderr)).toContain(says);
    }
  }, 60_000);
});
