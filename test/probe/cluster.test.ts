// The probe as ThinkRemed's probe_system runs it (createProbe: split, check, real kubectl, filters)
// against the embedded cluster over HTTP. Every attack on the probe a model could try, and more of
// each kind, is refused in one line before kubectl runs, and nothing it names is read or written;
// correct probes still answer. Which namespaces the probe may read is RBAC's (the runner hands
// the probe a ServiceAccount's kubeconfig); here the probe has the admin one, so this file checks
// what the probe itself decides: the host's files, identity and environment.
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createProbe, type Probe } from "../../src/probe/index.js";
import { R } from "../../src/sim/index.js";
import {
  ensureNamespace,
  podManifest,
  runningPod,
  startCluster,
  type TestCluster,
} from "../sim/helpers/exec.js";

const NS = "shop";
const KEY = "sk-probe-test-must-not-leak";
let t: TestCluster;
let probe: Probe;
let scratch: string;

beforeAll(async () => {
  process.env.MICROREMED_TEST_API_KEY = KEY;
  scratch = mkdtempSync(join(tmpdir(), "probe-cluster-"));
  t = await startCluster();
  ensureNamespace(t.c, NS);
  const { registry } = t.c.ctx;
  registry.create(R("ConfigMap"), NS, {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "big" },
    // one long line on which a backtracking engine takes exponential time for (a+)+$
    data: { line: `${"a".repeat(40_000)}b` },
  });
  registry.create(R("Service"), NS, {
    apiVersion: "v1",
    kind: "Service",
    metadata: { name: "checkout" },
    spec: { selector: { app: "checkout" }, ports: [{ port: 8080 }] },
  });
  await runningPod(
    t.c,
    podManifest(NS, "web", [{ name: "main", image: "busybox:1.36", command: ["sleep", "infinity"] }]),
  );
  probe = createProbe({ kubeconfig: t.kubeconfig, namespace: NS, timeoutMs: 20_000, maxOutput: 8000 });
}, 60_000);

afterAll(async () => {
  delete process.env.MICROREMED_TEST_API_KEY;
  await t?.stop();
  rmSync(scratch, { recursive: true, force: true });
});

/** The one refusal line of a command that did not run. */
async function refusal(command: string): Promise<string> {
  const out = await probe(command);
  const lines = out.trimEnd().split("\n");
  expect(lines, out).toHaveLength(2); // "$ command" and "refused: why"
  expect(lines[1]).toMatch(/^refused: \S/);
  expect(out).not.toContain(KEY);
  return lines[1];
}

describe("files on this machine: no flag reads or writes them", () => {
  // cli-runtime template_flags.go / jsonpath_flags.go read the template from a path for these
  it.each([
    "kubectl get ns default -o templatefile=/proc/self/environ",
    "kubectl get ns default -o go-template-file=/proc/self/environ",
    "kubectl get ns default -o go-template-file --template=/proc/self/environ",
    "kubectl get ns default -ojsonpath-file=/proc/self/environ",
    "kubectl get ns default -o=jsonpath-file=/proc/self/environ",
    "kubectl get ns default --output=custom-columns-file=/proc/self/environ",
    "kubectl get ns default --output templatefile=/proc/self/environ",
    "kubectl events -o go-template-file=/proc/self/environ",
    "kubectl rollout history deploy/web -o templatefile=/proc/self/environ",
  ])("%s", async (command) => {
    expect(await refusal(command)).toContain("templates from files");
  });

  it.each([
    ["--cache_dir=DIR", "writes files"],
    ["--cache-dir DIR", "writes files"],
    ["--profile=cpu --profile-output=DIR/p", "writes files"],
    ["--profile_output=DIR/p", "writes files"],
    ["--log_file=DIR/log", "writes files"],
    ["--log-dir DIR", "writes files"],
    ["--kuberc=DIR/kuberc", "preferences file"],
    ["--kubeconfig=/etc/passwd", "changes who kubectl is"],
    ["-f /etc/passwd", "reads a file on this machine"],
    ["--filename=/etc/passwd", "reads a file on this machine"],
    ["-k /etc", "reads a file on this machine"],
    ["--raw /api/v1/secrets", "raw API paths"],
  ])("kubectl get pods %s", async (flags, why) => {
    const dir = join(scratch, flags.replace(/\W+/g, "_"));
    expect(await refusal(`kubectl get pods ${flags.replaceAll("DIR", dir)}`)).toContain(why);
    expect(existsSync(dir)).toBe(false);
  });

  it.each([
    ["kubectl describe -f /etc/passwd", "reads a file"],
    ["kubectl rollout status -f deploy.yaml", "reads a file"],
    ["kubectl exec -f pod.yaml web -- ls", "reads a file"],
    ["kubectl exec web --filename=pod.yaml -- ls", "reads a file"],
  ])("%s", async (command, why) => {
    expect(await refusal(command)).toContain(why);
  });
});

describe("identity and target: the connection is the benchmark's", () => {
  // cli-runtime config_flags.go AddFlags; kubectl normalises _ to - (cliflag.WordSepNormalizeFunc)
  it.each([
    "--as=system:admin",
    "--as_group=system:masters",
    "--as-uid=0",
    "--token=abc",
    "-s https://evil.example",
    "--server=https://evil.example",
    "--context=prod",
    "--cluster=prod",
    "--user=admin",
    "--insecure_skip_tls_verify",
    "--certificate-authority=/etc/ssl/certs/ca.pem",
    "--client-certificate=/root/c.pem",
    "--tls-server-name=evil",
    "--username=admin --password=x",
  ])("kubectl get pods %s", async (flags) => {
    expect(await refusal(`kubectl get pods ${flags}`)).toContain("changes who kubectl is");
  });

  it("a flag kubectl does not know for the command is refused, not passed on", async () => {
    expect(await refusal("kubectl get pods --bogus-flag")).toContain("not a flag of kubectl get");
    expect(await refusal("kubectl logs web --insecure_skip_tls_verify_backend")).toContain("certificate");
  });
});

describe("input that is not plain text is refused in one line", () => {
  it.each([
    ["a NUL byte", "kubectl get pods\0 -A", "NUL"],
    ["a NUL inside a word", "kubectl get po\0ds", "NUL"],
    ["a lone surrogate (invalid UTF-8 decoded)", "kubectl get pods \udcff", "UTF-8"],
    ["a replacement character", "kubectl get pods \ufffd", "UTF-8"],
    ["a control character", "kubectl get pods \x1b[2J", "control characters"],
  ])("%s", async (_name, command, why) => {
    expect(await refusal(command)).toContain(why);
  });
});

describe("exec URLs: curl and the rule read the same host", () => {
  it.each([
    "kubectl exec web -- wget -qO- 'http://checkout\\@169.254.169.254/'",
    "kubectl exec web -- wget -qO- http://checkout\\@169.254.169.254/",
    "kubectl exec web -- curl -s 'http://checkout\\@169.254.169.254/latest/meta-data/'",
    "kubectl exec web -- curl -s http://checkout@169.254.169.254/",
    "kubectl exec web -- curl -s 'http://{checkout,169.254.169.254}/'",
    "kubectl exec web -- curl -s 'http://[::ffff:a9fe:a9fe]/'",
    "kubectl exec web -- curl -s http://0xa9fea9fe/",
    "kubectl exec web -- curl -s http://checkout%2ekube-system/",
    "kubectl exec web -- curl -s 'http://checkout /'",
    "kubectl exec web -- curl -s http://api.kube-system.svc/",
    "kubectl exec web -- curl -s http:/169.254.169.254/",
    "kubectl exec web -- curl -s http:///169.254.169.254/",
    "kubectl exec web -- wget -qO- http:169.254.169.254",
    "kubectl exec web -- curl -s gopher://checkout/",
    "kubectl exec web -- curl -s file:///etc/passwd",
    "kubectl exec web -- curl -s 'http://checkout?@169.254.169.254/'",
  ])("%s", async (command) => {
    await refusal(command);
  });

  it("a service of the namespace is fetched", async () => {
    // no pod backs the service: the pod's wget answers, the probe did not refuse
    const out = await probe("kubectl exec web -- wget -qO- -T 2 http://checkout:8080/");
    expect(out).not.toContain("\nrefused:");
    expect(out).toMatch(/^\$ kubectl -n shop exec web -- wget .*\nwget: /);
  });
});

describe("grep filters match in linear time", () => {
  it("(a+)+$ over a 40000-character line answers (no match), it does not freeze", async () => {
    const out = await probe(
      "kubectl get cm big -o yaml | grep -E '(a+)+$'; kubectl get cm big -o yaml | grep -cE '(a|aa)*c$'",
    );
    expect(out).not.toContain("refused");
    expect(out).toMatch(/\$ kubectl -n shop get cm big -o yaml \| grep -E '\(a\+\)\+\$'\n\(no output\)\n/);
    expect(out).toMatch(/grep -cE .*\n0\n/);
  });

  it("a nested quantifier that does match answers with the line", async () => {
    const out = await probe("kubectl get cm big -o yaml | grep -E '^  line: (a+)+b$' | wc -c");
    expect(out).toMatch(/\n40010\n$/);
  });

  it("a backreference is refused, since no automaton matches it", async () => {
    expect(await refusal("kubectl get cm big -o yaml | grep -E '(a+)\\1$'")).toContain("backreferences");
  });
});

describe("correct probes still work", () => {
  it("get with -o jsonpath, -n written every way pflag reads it", async () => {
    for (const c of [
      "kubectl get pods -o jsonpath='{.items[*].metadata.name}'",
      "kubectl -n=shop get pods -o=jsonpath={.items[0].metadata.name}",
      "kubectl -nshop get pods -ojsonpath={.items[0].metadata.name}",
      "kubectl get pods --namespace shop -o jsonpath --template={.items[0].metadata.name}",
    ])
      expect(await probe(c), c).toMatch(/\nweb\n$/);
  });

  it("describe, logs, events, exec cat, auth can-i", async () => {
    expect(await probe("kubectl describe pod web | grep -c '^Name:'")).toMatch(/\n1\n$/);
    expect(await probe("kubectl logs web --tail=5 --timestamps")).not.toMatch(/refused|exit code/);
    expect(await probe("kubectl exec web -- cat /etc/hostname")).toMatch(/\nweb\n$/);
    expect(await probe("kubectl auth can-i get pods")).toMatch(/\nyes\n$/);
    expect(await probe("kubectl get events --field-selector involvedObject.name=web")).not.toContain(
      "refused",
    );
  });

  it("--all_namespaces reaches kubectl as --all-namespaces: the cluster's RBAC decides", async () => {
    const out = await probe("kubectl get pods --all_namespaces -o wide");
    expect(out).not.toContain("refused");
    expect(out).toMatch(/NAMESPACE\s+NAME/);
  });
});
