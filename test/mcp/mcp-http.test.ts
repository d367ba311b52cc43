// `microremed mcp --http` as a user runs it after a run at the symptom level: a `microremed sim`
// cluster, a SoloGen run on it with `--report symptom` (whose case's conversation.json holds an
// alert, no service and no category), then the server on that conversation.json, holding only the
// kubeconfig of a ServiceAccount confined to the namespace (src/identity, as a case's), which may
// not make another and so is acted as (the API server says it cannot act outside the namespace), in
// the bubblewrap sandbox. The SDK's streamable HTTP client reads the alert, reads and writes in the
// namespace, and is refused a write in another; SIGTERM stops the server.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AgentIdentity, createAgentIdentity } from "../../src/identity/agent.js";
import { KubeClient } from "../../src/kube/client.js";
import { loadKubeConfig } from "../../src/kube/connect.js";
import {
  type ConversationJson,
  checkBuilt,
  cli,
  readJson,
  type SimCluster,
  startCli,
  startSim,
  tmp,
  waitForStderr,
  write,
} from "../cli/cli-helpers.js";

const NS = "simple-micro";
let sim: SimCluster;
let dir: string;
let id: AgentIdentity | undefined;

beforeAll(async () => {
  checkBuilt();
  dir = tmp("mr-mcp-http-");
  sim = await startSim(dir, 600);
}, 60_000);
afterAll(async () => {
  await id?.remove();
  await sim?.stop();
});

const text = (r: Awaited<ReturnType<Client["callTool"]>>) =>
  (r.content as { type: string; text: string }[]).map((c) => c.text).join("");

describe("microremed mcp over streamable HTTP", () => {
  it("serves a symptom-level case's report as a confined identity, and stops on SIGTERM", async () => {
    // a run at the symptom level on the cluster: its case's conversation.json is what we serve
    const exp = write(dir, "exp.yaml", "cases:\n  - {failure: pod-fail, target: time-service}\n");
    const run = await cli(
      [
        ...["run", "--cluster", "kube", "--kubeconfig", sim.kubeconfig, "--env", "simple-micro"],
        ...["--model", "noop", "--remediate-method", "SoloGen", "--report", "symptom"],
        ...["--experiment-path", exp, "--save-path", dir, "--run-name", "sym", "--settle", "5"],
      ],
      { timeout: 300_000 },
    );
    expect(run.exitCode, run.stderr.slice(-2000)).toBe(0);
    const conversation = join(dir, "sym", "case-001", "conversation.json");
    const { report } = readJson<ConversationJson>(conversation);
    expect(report).toMatchObject({ level: "symptom", namespace: NS, alert: expect.any(String) });
    expect(report).not.toHaveProperty("service");
    expect(report).not.toHaveProperty("category");

    // another namespace, with an object of a kind the identity may change in its own
    await sim.kubectl(["create", "namespace", "elsewhere"]);
    await sim.kubectl(["-n", "elsewhere", "create", "configmap", "keep", "--from-literal=a=b"]);
    const admin = new KubeClient(loadKubeConfig({ kubeconfig: sim.kubeconfig }).kc);
    id = await createAgentIdentity(admin, NS, "namespace");
    const served = join(dir, "served");
    const server = startCli([
      ...["mcp", "--http", "0", "--report", conversation, "--kubeconfig", id.kubeconfigPath],
      ...["--dir", served],
    ]);
    const line = await waitForStderr(server, /serving http:\/\/127\.0\.0\.1:\d+\/mcp /, 60_000);
    expect(line).toContain(`as ${id.kubeconfigPath}`);
    const url = line.match(/serving (\S+)/)?.[1] ?? "";

    const client = new Client({ name: "http-test", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(url)));
    const alert = text(await client.callTool({ name: "get_report", arguments: {} }));
    expect(alert).toMatch(/^## Alert\n- System: simple-micro\n- Namespace: simple-micro\n- Alert: /);
    expect(alert).toContain(report.alert as string);
    expect(alert).not.toMatch(/Root-cause service|Failure category|time-service restarted/);
    const kubectl = async (command: string) =>
      text(await client.callTool({ name: "kubectl", arguments: { command } }));

    // a read in its namespace, as the probe reads
    const deployments = await kubectl("kubectl get deployments");
    expect(deployments).toMatch(/^\$ kubectl -n simple-micro get deployments/);
    expect(deployments).toMatch(/hello-service/);
    // a write its Role allows, in its namespace, and one in another namespace it does not
    const made = await kubectl("kubectl create configmap on-call-notes --from-literal=seen=alert");
    expect(made).toMatch(/configmap\/on-call-notes created/);
    const other = await kubectl("kubectl -n elsewhere delete configmap keep");
    expect(other).toMatch(/Forbidden/);
    expect(other).toContain(`system:serviceaccount:${NS}:oncall`);
    expect(other).toMatch(/\[exit code 1\]/);
    // the cluster as its admin sees it: the one write happened, the other did not
    await sim.kubectl(["-n", NS, "get", "configmap", "on-call-notes"]);
    await sim.kubectl(["-n", "elsewhere", "get", "configmap", "keep"]);
    expect(text(await client.callTool({ name: "submit", arguments: {} }))).toMatch(/^submitted/);
    await client.close();

    server.kill("SIGTERM");
    const end = await server;
    expect(end.exitCode, String(end.stderr)).toBe(0);
    const calls = readFileSync(join(served, "mcp-calls.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { tool?: string });
    // the server's start, then each call
    expect(calls.map((c) => c.tool ?? "start")).toEqual([
      "start",
      "get_report",
      "kubectl",
      "kubectl",
      "kubectl",
      "submit",
    ]);
  }, 360_000);
});
