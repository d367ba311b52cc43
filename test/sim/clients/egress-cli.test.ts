// `--egress` through the built CLI: `microremed sim --egress none` serves an air-gapped cluster
// (a pod's ping to a public address loses every packet, as behind a firewall that drops egress),
// the default answers as a k3s node with Internet access; a wrong value is a usage error on both
// `sim` and `run`. (Chaos Mesh and the reference runner need no more of the CLI than the flag.)
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLI, checkBuilt, cli, ROOT } from "../../cli/cli-helpers.js";
import { parsePing } from "../helpers/failures.js";

const POD = `
apiVersion: v1
kind: Pod
metadata: { name: tools, namespace: default }
spec:
  containers:
    - name: tools
      image: busybox:1.35
      command: ["sh", "-c", "sleep infinity"]
`;

async function simWith(dir: string, egress: string[]) {
  const kubeconfig = join(dir, `sim-${egress.join("") || "default"}.kubeconfig`);
  const child = execa(
    process.execPath,
    [CLI, "sim", "--kubeconfig", kubeconfig, "--speed", "60", ...egress],
    {
      reject: false,
      cwd: ROOT,
      timeout: 300_000,
    },
  );
  await new Promise<void>((resolve, reject) => {
    let out = "";
    child.stdout?.on("data", (b: Buffer) => {
      out += b.toString();
      if (out.includes("embedded cluster ready")) resolve();
    });
    child.once("exit", () => reject(new Error(`microremed sim exited: ${out}`)));
  });
  const kubectl = async (args: string[], input?: string) => {
    const r = await execa("kubectl", ["--kubeconfig", kubeconfig, ...args], {
      reject: false,
      input,
      timeout: 60_000,
    });
    return { exitCode: r.exitCode ?? -1, stdout: String(r.stdout), stderr: String(r.stderr) };
  };
  const ap = await kubectl(["apply", "-f", "-"], POD);
  expect(ap.exitCode, ap.stderr).toBe(0);
  const w = await kubectl(["wait", "--for=condition=Ready", "pod/tools", "--timeout=60s"]);
  expect(w.exitCode, w.stderr).toBe(0);
  const ping = async () => {
    const r = await kubectl(["exec", "tools", "--", "ping", "-c", "2", "-W", "1", "8.8.8.8"]);
    return { ...r, p: parsePing(r.stdout) };
  };
  return {
    ping,
    stop: async () => {
      child.kill("SIGTERM");
      await child;
    },
  };
}

let dir: string;
beforeAll(() => {
  checkBuilt();
  dir = mkdtempSync(join(tmpdir(), "microremed-egress-cli-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("microremed sim --egress", () => {
  it("none: packets to outside addresses are dropped", async () => {
    const s = await simWith(dir, ["--egress", "none"]);
    try {
      const r = await s.ping();
      expect(r.exitCode).toBe(1);
      expect(r.p).toMatchObject({ sent: 2, received: 0, loss: 100 });
    } finally {
      await s.stop();
    }
  }, 120_000);

  it("internet (the default): they answer", async () => {
    const s = await simWith(dir, []);
    try {
      const r = await s.ping();
      expect(r.exitCode, r.stderr).toBe(0);
      expect(r.p).toMatchObject({ sent: 2, received: 2, loss: 0 });
    } finally {
      await s.stop();
    }
  }, 120_000);

  it("refuses another value on sim and on run, saying which values there are", async () => {
    for (const args of [
      ["sim", "--egress", "offline"],
      ["run", "--model", "noop", "--egress", "offline"],
    ]) {
      const r = await cli(args, { timeout: 60_000 });
      expect(r.exitCode).not.toBe(0);
      expect(r.stderr).toMatch(/^error E_USAGE: --egress must be internet or none, got "offline"/);
    }
  });
});
