// The kubectl tool of `microremed mcp` keeps its description's contract, through the built CLI
// over stdio on a `microremed sim` cluster: every read the description lists as refused (-w/--watch,
// --watch-only, -f/--follow, an output format that reads a file, each flag that changes kubectl's
// identity or touches this machine's files, shell syntax) comes back at once as an error result
// (isError) with the probe's reason, and never goes to the write path, where a watch would run
// until --playbook-timeout. The call log records each as refused. (ThinkRemed's probe refuses the
// same, src/probe/kubectl.ts.)
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REFUSED } from "../../src/probe/kubectl-flags.js";
import { CLI, checkBuilt, ROOT, type SimCluster, startSim, tmp } from "../cli/cli-helpers.js";
import { shopReport } from "./shop-report.js";

let sim: SimCluster;
let dir: string;

beforeAll(async () => {
  checkBuilt();
  dir = tmp("mr-mcp-refusals-");
  sim = await startSim(dir, 60);
  await sim.kubectl(["create", "namespace", "shop"]);
}, 60_000);
afterAll(() => sim?.stop());

/** Each refused form, with what its reason says. */
const FORMS: [string, RegExp][] = [
  ["kubectl get pods -w", /watching never ends/],
  ["kubectl get pods --watch", /watching never ends/],
  ["kubectl get pods --watch-only", /watching never ends/],
  ["kubectl -n shop get deployments -w", /watching never ends/],
  ["kubectl rollout status deployment/cart -w", /wait for rollouts in the playbook/],
  ["kubectl logs deployment/cart -f", /following logs never ends/],
  ["kubectl logs deployment/cart --follow", /following logs never ends/],
  ["kubectl get pods -o go-template-file=/etc/passwd", /templates from files read this machine's files/],
  ["kubectl get pods -o templatefile=/proc/self/environ", /templates from files/],
  ["kubectl get pods -o table", /not an output format a probe may use/],
  // each refused flag, long and short, as the description names them
  ...REFUSED.flatMap(([d, why]): [string, RegExp][] => {
    const value = d.bool ? "" : "=x";
    const reason = new RegExp(why.slice(0, 30).replace(/[()[\]{}.*+?^$|\\]/g, "\\$&"));
    return [
      [`kubectl get pods --${d.long}${value}`, reason],
      ...(d.short ? [[`kubectl get pods -${d.short}${d.bool ? "" : " x"}`, reason] as [string, RegExp]] : []),
    ];
  }),
  // shell syntax
  ["kubectl get pods $(id)", /refused: /],
  ["kubectl get pods `id`", /refused: /],
  ["kubectl get pods $HOME", /refused: /],
  ["kubectl get pods && kubectl delete pods --all", /refused: /],
  ["kubectl get pods || kubectl delete pods --all", /refused: /],
  ["kubectl get pods & kubectl delete pods --all", /refused: /],
  ["(kubectl delete pods --all)", /refused: /],
  ["kubectl get pods > /tmp/out", /redirection to or from a file/],
  ["kubectl get pods >> /tmp/out", /redirection to or from a file/],
  ["kubectl apply -f - < /etc/passwd", /redirection to or from a file/],
];

describe("the kubectl tool of microremed mcp", () => {
  it("refuses every read its description lists as refused, with the reason, as an error", async () => {
    const report = shopReport(dir);
    const served = join(dir, "served");
    const client = new Client({ name: "refusals-test", version: "1.0.0" });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        // a watch sent to the write path would run for --playbook-timeout (300 s): the test would time out first
        args: [CLI, "mcp", "--report", report, "--kubeconfig", sim.kubeconfig, "--dir", served],
        cwd: ROOT,
        stderr: "pipe",
      }),
    );
    const { tools } = await client.listTools();
    const description = tools.find((t) => t.name === "kubectl")?.description ?? "";
    expect(description).toContain("-w/--watch, --watch-only, -f/--follow");
    expect(description).toContain(
      "one they refuse (a watch, a follow, a refused flag or output format) is refused",
    );
    for (const [command, reason] of FORMS) {
      const r = await client.callTool({ name: "kubectl", arguments: { command } });
      const text = (r.content as { text: string }[]).map((c) => c.text).join("");
      expect(r.isError, `${command}: ${text}`).toBe(true);
      expect(text, command).toMatch(/^(\$ .*\n)?refused: /);
      expect(text, command).toMatch(reason);
    }
    // a write still goes to the write path: RBAC answers it, and it is no refusal
    const write1 = await client.callTool({
      name: "kubectl",
      arguments: { command: "kubectl create configmap notes --from-literal=a=b" },
    });
    expect((write1.content as { text: string }[])[0].text).toMatch(/configmap\/notes created/);
    expect(write1.isError).toBeFalsy();
    await client.close();
    const calls = readFileSync(join(served, "mcp-calls.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { tool?: string; refused?: boolean });
    const kubectl = calls.filter((c) => c.tool === "kubectl");
    expect(kubectl.map((c) => c.refused ?? false)).toEqual([...FORMS.map(() => true), false]);
  }, 180_000);
});
