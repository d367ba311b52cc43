// What `microremed mcp` takes, through the built CLI and without a cluster (get_report answers
// from the file alone): a report of the service level, which names no category; and the refusals,
// each one line naming what is wrong: a report that lacks what its level has, a level that does
// not exist, a --playbook-timeout or --http that is no number of the kind.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { beforeAll, describe, expect, it } from "vitest";
import { CLI, checkBuilt, cli, lastLine, ROOT, tmp, write } from "../cli/cli-helpers.js";

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
  it("serves a service-level report, which names the service and no category", async () => {
    const report = write(
      dir,
      "service.json",
      JSON.stringify({ report: { level: "service", service: "time-service", ...COMMON } }),
    );
    const client = new Client({ name: "args-test", version: "1.0.0" });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [CLI, "mcp", "--report", report, ...NO_CLUSTER, "--dir", dir],
        cwd: ROOT,
        stderr: "pipe",
      }),
    );
    const r = await client.callTool({ name: "get_report", arguments: {} });
    const text = (r.content as { text: string }[]).map((c) => c.text).join("");
    expect(text).toMatch(
      /^## Diagnosis report\n- System: simple-micro\n- Namespace: simple-micro\n- Root-cause service: time-service\n\n## Runtime context/,
    );
    expect(text).not.toContain("Failure category");
    await client.close();
  }, 60_000);

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
      ["--playbook-timeout", "soon", `--playbook-timeout must be a positive number, got "soon"`],
      ["--playbook-timeout", "0", `--playbook-timeout must be a positive number, got "0"`],
      ["--http", "any", `--http must be a whole number ≥ 0, got "any"`],
      ["--http", "70000", `--http must be a TCP port (0 to 65535), got "70000"`],
    ]) {
      const r = await serve(report, [flag, value]);
      expect(r.exitCode, r.stderr).toBe(2);
      expect(lastLine(r.stderr)).toContain(says);
    }
  }, 60_000);
});
