// The probe's kubectl gets the allowlisted environment (nothing of the runner's:
// no API key for `-o templatefile=/proc/self/environ` or any other trick to print), and with
// sandbox bwrap also a read-only system, an empty HOME and /tmp, and no writable path. A tiny
// real kubectl stand-in shows what the spawned process sees; real kubectl shows it still works.
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse, stringify } from "yaml";
import { createProbe } from "../../src/probe/sandbox.js";
import type { SandboxMode } from "../../src/sandbox/support.js";
import { startTestCluster, type TestCluster } from "../helpers/cluster.js";

let tc: TestCluster;
beforeAll(async () => {
  tc = await startTestCluster(30, 3);
  await tc.kubectl(["create", "namespace", "pr"]);
  await tc.kubectl(["-n", "pr", "create", "configmap", "seen-by-probe", "--from-literal=a=1"]);
});
afterAll(() => tc.stop());

const probe = (sandbox: SandboxMode, kubeconfig: string, kubectl?: string) =>
  createProbe({ kubeconfig, namespace: "pr", timeoutMs: 60_000, maxOutput: 20_000, sandbox, kubectl });

describe.each(["bwrap", "none"] as SandboxMode[])("the probe's kubectl (sandbox %s)", (mode) => {
  it("sees only the allowlisted environment", async () => {
    const dir = mkdtempSync(join(tmpdir(), "mr-fake-kubectl-"));
    const fake = join(dir, "kubectl");
    writeFileSync(fake, "#!/bin/sh\nenv | sort\n");
    chmodSync(fake, 0o755);
    process.env.OPENAI_API_KEY = "sk-test-not-for-probes";
    try {
      const out = await probe(mode, tc.kubeconfig, fake)("kubectl get pods");
      const names = [...out.matchAll(/^([A-Z_][A-Z0-9_]*)=/gm)].map((m) => m[1]).sort();
      // the allowlist, plus what sh itself sets (PWD, SHLVL, _)
      const allowed = [
        "HOME",
        "K8S_AUTH_KUBECONFIG",
        "KUBECONFIG",
        "LANG",
        "LC_ALL",
        "PATH",
        "PYTHONDONTWRITEBYTECODE",
        "TMPDIR",
      ];
      expect(names.filter((n) => !["PWD", "SHLVL", "_"].includes(n))).toEqual(allowed);
      expect(out).not.toContain("sk-test-not-for-probes");
    } finally {
      delete process.env.OPENAI_API_KEY;
    }
  }, 60_000);

  it("still answers through real kubectl", async () => {
    const out = await probe(mode, tc.kubeconfig)("kubectl get configmaps -o name");
    expect(out).toContain("configmap/seen-by-probe");
  }, 60_000);
});

describe("the probe's kubectl in bubblewrap", () => {
  it("cannot read the user's files or write anywhere", async () => {
    const secret = join(homedir(), `.microremed-probe-secret-${process.pid}`);
    writeFileSync(secret, "probe-secret-77");
    const outside = mkdtempSync(join(tmpdir(), "mr-outside-"));
    const dir = mkdtempSync(join(tmpdir(), "mr-fake-kubectl-"));
    const fake = join(dir, "kubectl");
    writeFileSync(
      fake,
      `#!/bin/sh\ncat ${secret} /root/.bashrc 2>&1\necho x > ${outside}/planted 2>&1\necho x > ${dir}/planted 2>&1\necho HOME is $HOME\n`,
    );
    chmodSync(fake, 0o755);
    try {
      const out = await probe("bwrap", tc.kubeconfig, fake)("kubectl get pods");
      expect(out).not.toContain("probe-secret-77");
      expect(out).toMatch(/No such file or directory/);
      expect(out).toMatch(/Read-only file system|No such file or directory/);
      expect(out).toContain("HOME is /tmp/home");
      expect(existsSync(join(outside, "planted"))).toBe(false);
      expect(existsSync(join(dir, "planted"))).toBe(false);
    } finally {
      rmSync(secret, { force: true });
    }
  }, 60_000);

  it("reads a kubeconfig whose CA is a file beside it (flattened for the sandbox)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "mr-kc-"));
    const doc = parse(readFileSync(tc.kubeconfig, "utf8")) as {
      clusters: { cluster: Record<string, string> }[];
    };
    const c = doc.clusters[0].cluster;
    writeFileSync(join(dir, "ca.crt"), Buffer.from(c["certificate-authority-data"], "base64"));
    delete c["certificate-authority-data"];
    c["certificate-authority"] = "ca.crt";
    const kc = join(dir, "kubeconfig");
    writeFileSync(kc, stringify(doc));
    const out = await probe("bwrap", kc)("kubectl get configmaps -o name");
    expect(out).toContain("configmap/seen-by-probe");
  }, 60_000);
});
