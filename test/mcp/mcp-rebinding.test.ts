// `microremed mcp --http` answers only requests addressed to its loopback port, as the MCP
// transport spec asks ("servers MUST validate the Origin header") against DNS rebinding: a page on
// evil.example.com whose name resolves to 127.0.0.1 sends its own Host and Origin, and gets 403
// before any tool runs. Checked with curl as a user would, and with the MCP conformance suite's
// own dns-rebinding-protection check (@modelcontextprotocol/conformance, a devDependency).
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  checkBuilt,
  ROOT,
  type SimCluster,
  startCli,
  startSim,
  tmp,
  waitForStderr,
} from "../cli/cli-helpers.js";
import { shopReport } from "./shop-report.js";

const CONFORMANCE = join(ROOT, "node_modules/.bin/conformance");
let sim: SimCluster;
let dir: string;
let server: ReturnType<typeof startCli>;
let url: string;

beforeAll(async () => {
  checkBuilt();
  dir = tmp("mr-mcp-rebinding-");
  sim = await startSim(dir, 60);
  await sim.kubectl(["create", "namespace", "shop"]);
  const report = shopReport(dir);
  server = startCli(["mcp", "--http", "0", "--report", report, "--kubeconfig", sim.kubeconfig, "--dir", dir]);
  const line = await waitForStderr(server, /serving http:\/\/127\.0\.0\.1:\d+\/mcp /, 60_000);
  url = line.match(/serving (\S+)/)?.[1] ?? "";
}, 120_000);
afterAll(async () => {
  server?.kill("SIGTERM");
  await server;
  await sim?.stop();
});

const CALL = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "tools/call",
  params: { name: "kubectl", arguments: { command: "kubectl create configmap rebound" } },
});

/** curl's status line and body for a tools/call with these extra headers. */
async function curl(headers: string[]): Promise<{ status: number; body: string }> {
  const r = await execa("curl", [
    ...["-s", "-w", "\n%{http_code}", "-H", "content-type: application/json"],
    ...["-H", "accept: application/json, text/event-stream", ...headers.flatMap((h) => ["-H", h])],
    ...["-d", CALL, url],
  ]);
  const lines = r.stdout.split("\n");
  return { status: Number(lines.pop()), body: lines.join("\n") };
}

describe("microremed mcp --http against DNS rebinding", () => {
  it("refuses another Host or Origin with 403 before any tool runs, and answers loopback ones", async () => {
    const evil = await curl(["Host: evil.example.com", "Origin: http://evil.example.com"]);
    expect(evil.status).toBe(403);
    expect(evil.body).toContain("Invalid Host header: evil.example.com");
    const origin = await curl(["Origin: http://evil.example.com"]);
    expect(origin.status).toBe(403);
    expect(origin.body).toContain("Invalid Origin header: http://evil.example.com");
    // neither ran: the configmap the call would make is not there
    const none = await sim.kubectl(["-n", "shop", "get", "configmap", "rebound"], { reject: false });
    expect(none.stderr).toMatch(/NotFound/);
    const port = new URL(url).port;
    const local = await curl([`Host: localhost:${port}`, `Origin: http://localhost:${port}`]);
    expect(local.status, local.body).toBe(200);
    expect(local.body).toContain("configmap/rebound created");
    const calls = readFileSync(join(dir, "mcp-calls.jsonl"), "utf8").trim().split("\n");
    expect(calls.filter((l) => l.includes('"tool"'))).toHaveLength(1);
  }, 60_000);

  it("passes the conformance suite's dns-rebinding-protection check", async () => {
    expect(existsSync(CONFORMANCE), `${CONFORMANCE} is missing: npm ci installs the devDependencies`).toBe(
      true,
    );
    const r = await execa(CONFORMANCE, ["server", "--url", url, "--scenario", "dns-rebinding-protection"], {
      reject: false,
      timeout: 60_000,
    });
    expect(r.exitCode, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toMatch(/localhost-host-rebinding-rejected.*SUCCESS/);
    expect(r.stdout).toMatch(/localhost-host-valid-accepted.*SUCCESS/);
    expect(r.stdout).toContain("Passed: 2/2, 0 failed");
  }, 90_000);
});
