// `microremed mcp` on its own, over stdio, driven by the SDK's Client as an agent would: it lists
// the four tools, answers get_report from the file it was given, runs a kubectl read as the probe
// does against the embedded cluster, and writes every call to mcp-calls.jsonl when it stops.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLI, checkBuilt, ROOT, type SimCluster, startSim, tmp, write } from "../cli/cli-helpers.js";

let sim: SimCluster;
let dir: string;

beforeAll(async () => {
  checkBuilt();
  dir = tmp("mr-mcp-stdio-");
  sim = await startSim(dir, 60);
}, 60_000);
afterAll(() => sim?.stop());

const text = (r: Awaited<ReturnType<Client["callTool"]>>) =>
  (r.content as { type: string; text: string }[]).map((c) => c.text).join("");

describe("microremed mcp over stdio", () => {
  it("serves the tools as the kubeconfig it is given and logs each call", async () => {
    const report = write(
      dir,
      "report.json",
      JSON.stringify({
        env: "simple-micro",
        namespace: "kube-system",
        service: "coredns",
        category: "pod failure",
        runtimeContext: "pods: coredns",
        inventory: "localhost ansible_connection=local",
        failure: "pod-fail",
      }),
    );
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [
        CLI,
        "mcp",
        "--report",
        report,
        "--kubeconfig",
        sim.kubeconfig,
        "--dir",
        dir,
        "--sandbox",
        "none",
      ],
      cwd: ROOT,
      stderr: "pipe",
    });
    const client = new Client({ name: "stdio-test", version: "1.0.0" });
    await client.connect(transport);
    // the server's version is MicroRemed's, as package.json says it
    const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { version: string };
    expect(client.getServerVersion()?.version).toBe(pkg.version);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(["get_report", "kubectl", "run_playbook", "submit"]);
    expect(text(await client.callTool({ name: "get_report", arguments: {} }))).toMatch(
      /- Namespace: kube-system/,
    );
    const nodes = text(
      await client.callTool({ name: "kubectl", arguments: { command: "kubectl get nodes" } }),
    );
    expect(nodes).toMatch(/^\$ kubectl -n kube-system get nodes/);
    expect(nodes).toMatch(/Ready/);
    expect(text(await client.callTool({ name: "submit", arguments: {} }))).toMatch(/^submitted/);
    await client.close();
    const calls = readFileSync(join(dir, "mcp-calls.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    // the server's start, then each call
    expect(calls.map((c) => c.tool ?? Object.keys(c)[1])).toEqual([
      "start",
      "get_report",
      "kubectl",
      "submit",
    ]);
    expect(calls[2]).toMatchObject({ arguments: { command: "kubectl get nodes" } });
  }, 120_000);
});
