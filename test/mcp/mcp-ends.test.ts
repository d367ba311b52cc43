// `microremed mcp` over stdio does not outlive its client: a client (fixtures/stdio-client.mjs)
// starts the server and asks it to run a playbook that sleeps for minutes; the test kills the
// client with SIGKILL mid-call, as an agent dies. The server sees stdin end, records the call as
// abandoned, kills ansible-playbook and the sandbox it ran in, removes the ServiceAccount it made,
// and exits: no process of the server's tree is left.
import { closeSync, openSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { descendants } from "../../src/cli/mcp-lifetime.js";
import { CLI, checkBuilt, ROOT, type SimCluster, startSim, tmp } from "../cli/cli-helpers.js";
import { shopReport } from "./shop-report.js";

let sim: SimCluster;
let dir: string;

beforeAll(async () => {
  checkBuilt();
  dir = tmp("mr-mcp-ends-");
  sim = await startSim(dir, 60);
  await sim.kubectl(["create", "namespace", "shop"]);
}, 60_000);
afterAll(() => sim?.stop());

const alive = (pid: number) => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    return false;
  }
};

/** Resolves once `check` holds, or after `ms`. */
async function until(check: () => boolean | Promise<boolean>, ms: number): Promise<void> {
  for (const end = Date.now() + ms; !(await check()) && Date.now() < end; )
    await new Promise((r) => setTimeout(r, 100));
}

/** Whether the server's ServiceAccount is there. */
const oncall = async () =>
  (await sim.kubectl(["-n", "shop", "get", "serviceaccount", "oncall"], { reject: false })).exitCode === 0;

describe("microremed mcp over stdio, its client killed mid-call", () => {
  it("stops the playbook it was running, records the call as abandoned, and exits", async () => {
    const report = shopReport(dir);
    const served = join(dir, "served");
    const call = {
      name: "run_playbook",
      arguments: {
        playbook: "- hosts: localhost\n  gather_facts: false\n  tasks:\n    - command: sleep 617\n",
      },
    };
    const client = execa(
      process.execPath,
      [
        "test/mcp/fixtures/stdio-client.mjs",
        JSON.stringify(call),
        ...[CLI, "mcp", "--report", report, "--kubeconfig", sim.kubeconfig, "--dir", served],
      ],
      { cwd: ROOT, reject: false, timeout: 120_000 },
    );
    let out = "";
    client.stdout?.on("data", (b: Buffer) => {
      out += b.toString();
    });
    await until(() => /server \d+/.test(out), 60_000);
    const server = Number(/server (\d+)/.exec(out)?.[1]);
    expect(server).toBeGreaterThan(0);
    // the playbook's sleep is running, somewhere below the server (in bubblewrap)
    const sleeping = () =>
      descendants(server).some((pid) => {
        try {
          const [program, arg, ...rest] = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\u0000");
          return /(^|\/)sleep$/.test(program) && arg === "617" && rest.join("") === "";
        } catch {
          return false;
        }
      });
    await until(sleeping, 60_000);
    expect(sleeping()).toBe(true);
    const tree = [server, ...descendants(server)];
    expect(tree.length).toBeGreaterThan(3);

    client.kill("SIGKILL");
    await client;
    await until(() => !tree.some(alive), 30_000);
    expect(tree.filter(alive)).toEqual([]);
    const calls = readFileSync(join(served, "mcp-calls.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { tool?: string; abandoned?: boolean; result?: string });
    expect(calls[1]).toMatchObject({ tool: "run_playbook", abandoned: true, result: "" });
    const sa = await sim.kubectl(["-n", "shop", "get", "serviceaccount", "oncall"], { reject: false });
    expect(sa.stderr).toMatch(/NotFound/);
    // the sandbox's own processes are gone too: nothing runs the playbook's command
    const left = await execa("pgrep", ["-f", "sleep 617$"], { reject: false });
    expect(left.stdout.trim()).toBe("");
  }, 180_000);

  it("ends when its parent exits though its stdin stays open", async () => {
    const report = join(dir, "report.json");
    // sh is the parent; the server reads stdin from a FIFO this test holds open throughout
    const fifo = join(dir, "stdin.fifo");
    await execa("mkfifo", [fifo]);
    const held = openSync(fifo, "r+");
    const line = [process.execPath, CLI, "mcp", "--report", report, "--kubeconfig", sim.kubeconfig];
    const parent = execa(
      "sh",
      ["-c", `${line.map((w) => `'${w}'`).join(" ")} --dir '${join(dir, "orphan")}' < '${fifo}'; true`],
      { cwd: ROOT, reject: false, timeout: 120_000 },
    );
    const found = () =>
      descendants(parent.pid).filter((pid) => readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("mcp"));
    await until(async () => found().length > 0 && (await oncall()), 60_000);
    const [server] = found();
    expect(server).toBeGreaterThan(0);
    expect(await oncall()).toBe(true);
    parent.kill("SIGKILL");
    await parent;
    await until(() => !alive(server), 30_000);
    expect(alive(server)).toBe(false);
    expect(await oncall()).toBe(false);
    closeSync(held);
  }, 120_000);
});
