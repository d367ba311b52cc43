// `microremed mcp` on its own, over stdio, as a user runs it with an admin's kubeconfig on a
// `microremed sim` cluster: it makes the namespace's ServiceAccount (src/identity/agent.ts, as a
// run's case does) and acts as it, removing it at exit; the call log in --dir is appended to, each
// start marked; submit saves submission.json and says nothing checks the system; a playbook
// ansible cannot parse comes back with ansible's own error; an identity that acts outside the
// namespace and may not make the confined one is refused unless --agent-access cluster-admin.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { agentKubeconfig } from "../../src/identity/agent.js";
import { loadKubeConfig } from "../../src/kube/connect.js";
import {
  CLI,
  checkBuilt,
  cli,
  lastLine,
  ROOT,
  type SimCluster,
  startSim,
  tmp,
  write,
} from "../cli/cli-helpers.js";

const NS = "shop";
let sim: SimCluster;
let dir: string;
let report: string;

beforeAll(async () => {
  checkBuilt();
  dir = tmp("mr-mcp-alone-");
  sim = await startSim(dir, 60);
  await sim.kubectl(["create", "namespace", NS]);
  await sim.kubectl(["create", "namespace", "elsewhere"]);
  // a service-level report: it names the service and no category
  report = write(
    dir,
    "conversation.json",
    JSON.stringify({
      report: {
        level: "service",
        service: "cart",
        env: "simple-micro",
        namespace: NS,
        runtimeContext: `$ kubectl get pods -n ${NS}`,
        inventory: "localhost ansible_connection=local",
      },
    }),
  );
}, 60_000);
afterAll(() => sim?.stop());

const text = (r: Awaited<ReturnType<Client["callTool"]>>) =>
  (r.content as { type: string; text: string }[]).map((c) => c.text).join("");

async function serve(served: string, kubeconfig = sim.kubeconfig) {
  const client = new Client({ name: "alone-test", version: "1.0.0" });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [CLI, "mcp", "--report", report, "--kubeconfig", kubeconfig, "--dir", served],
      cwd: ROOT,
      stderr: "pipe",
    }),
  );
  return client;
}

const logLines = (served: string) =>
  readFileSync(join(served, "mcp-calls.jsonl"), "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as { tool?: string; start?: { namespace: string }; result?: string });

/** Resolves once `check` holds (tried every 100 ms for up to 30 s). */
async function eventually(check: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 300 && !(await check()); i++) await new Promise((r) => setTimeout(r, 100));
}

const oncallExists = async () =>
  (await sim.kubectl(["-n", NS, "get", "serviceaccount", "oncall"], { reject: false })).exitCode === 0;

describe("microremed mcp with an admin's kubeconfig", () => {
  it("acts as the namespace's ServiceAccount it made, appends its log, and removes the account at exit", async () => {
    const served = join(dir, "served");
    const first = await serve(served);
    expect(await oncallExists()).toBe(true);
    const got = text(await first.callTool({ name: "get_report", arguments: {} }));
    expect(got).toMatch(
      /^## Diagnosis report\n- System: simple-micro\n- Namespace: shop\n- Root-cause service: cart\n/,
    );
    expect(got).not.toContain("Failure category");
    // the admin could list every namespace; the tools cannot
    const all = text(
      await first.callTool({ name: "kubectl", arguments: { command: "kubectl get pods -A" } }),
    );
    expect(all).toMatch(/Forbidden.*system:serviceaccount:shop:oncall/);
    const made = text(
      await first.callTool({
        name: "kubectl",
        arguments: { command: "kubectl -n elsewhere create configmap x" },
      }),
    );
    expect(made).toMatch(/configmaps is forbidden: User "system:serviceaccount:shop:oncall"/);
    await first.close();
    await eventually(async () => !(await oncallExists()));
    expect(await oncallExists()).toBe(false);

    // a second start appends: both starts and every call stay
    const second = await serve(served);
    const submitted = await second.callTool({
      name: "submit",
      arguments: { service: "cart", cause: "bad tag" },
    });
    expect(submitted.isError).toBeFalsy();
    expect(text(submitted)).toMatch(
      /^submitted: your diagnosis is saved in submission\.json.*Nothing checks the system here/,
    );
    expect(JSON.parse(readFileSync(join(served, "submission.json"), "utf8"))).toEqual({
      service: "cart",
      cause: "bad tag",
    });
    const again = await second.callTool({ name: "submit", arguments: {} });
    expect(again.isError).toBe(true);
    const late = await second.callTool({ name: "kubectl", arguments: { command: "kubectl get pods" } });
    expect(late.isError).toBe(true);
    expect(text(late)).toMatch(/^refused: you already called submit/);
    await second.close();
    const lines = logLines(served);
    expect(lines.map((l) => l.tool ?? (l.start && "start"))).toEqual([
      "start",
      "get_report",
      "kubectl",
      "kubectl",
      "start",
      "submit",
      "submit",
      "kubectl",
    ]);
    expect(lines[0].start).toMatchObject({ namespace: NS });
  }, 120_000);

  it("answers a playbook ansible cannot parse with ansible's own error", async () => {
    const client = await serve(join(dir, "invalid"));
    const r = await client.callTool({
      name: "run_playbook",
      arguments: {
        playbook:
          "- hosts: localhost\n  tasks:\n    - name: two\n      bogus_x: {a: 1}\n      command: echo\n",
      },
    });
    const result = JSON.parse(text(r)) as { accepted: boolean; ansibleError: string };
    expect(result.accepted).toBe(false);
    expect(result.ansibleError).toMatch(/^ERROR! conflicting action statements: bogus_x, command/);
    expect(result.ansibleError).toMatch(/The error appears to be in '.*playbook-1\.yml': line 3/);
    await client.close();
  }, 120_000);
});

describe("microremed mcp with an identity that may not make the namespace's own", () => {
  it("refuses one that can act outside the namespace, unless --agent-access cluster-admin", async () => {
    // a ServiceAccount of another namespace that can read the whole cluster (the "view" role)
    await sim.kubectl(["-n", "elsewhere", "create", "serviceaccount", "wide"]);
    await sim.kubectl([
      "create",
      "clusterrolebinding",
      "wide-view",
      "--clusterrole=view",
      "--serviceaccount=elsewhere:wide",
    ]);
    const token = (await sim.kubectl(["-n", "elsewhere", "create", "token", "wide"])).stdout.trim();
    const c = loadKubeConfig({ kubeconfig: sim.kubeconfig }).kc.getCurrentCluster();
    const wide = write(
      dir,
      "wide.kubeconfig",
      agentKubeconfig({ server: c?.server, "certificate-authority-data": c?.caData }, token, NS),
    );
    const args = ["mcp", "--report", report, "--kubeconfig", wide, "--dir", join(dir, "wide")];
    const r = await cli(args, { timeout: 60_000 });
    expect(r.exitCode, r.stderr).toBe(1);
    expect(lastLine(r.stderr)).toContain(
      `error E_CONFIG: the kubeconfig ${wide} can list pods in every namespace: it acts outside the namespace shop`,
    );
    expect(lastLine(r.stderr)).toContain("or --agent-access cluster-admin to let the tools act as this one");
    // told so, the tools act as it
    const client = new Client({ name: "wide-test", version: "1.0.0" });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [CLI, ...args, "--agent-access", "cluster-admin"],
        cwd: ROOT,
        stderr: "pipe",
      }),
    );
    const pods = text(
      await client.callTool({
        name: "kubectl",
        arguments: { command: "kubectl -n elsewhere get serviceaccounts" },
      }),
    );
    expect(pods).toMatch(/^wide /m);
    await client.close();
  }, 120_000);
});
