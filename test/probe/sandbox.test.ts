import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createProbe, type Probe } from "../../src/probe/index.js";

// A real tiny kubectl: prints KUBECONFIG and its argv one per line, and misbehaves on request.
const FAKE_KUBECTL = `#!/bin/sh
echo "KUBECONFIG=$KUBECONFIG"
for a in "$@"; do printf 'arg:%s\\n' "$a"; done
case "$*" in
  *runaway*) yes "line of runaway output" | head -n 50000 ;;
  *numbered*) seq 1 3000 | sed 's/^/line /' ;;
  *endless*) exec yes "endless output" ;;
  *sleepy*) exec sleep 5 ;;
  *missing*) echo 'Error from server (NotFound): pods "missing" not found' >&2; exit 1 ;;
esac
`;

let dir: string;
let oldPath: string | undefined;
let probe: Probe;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "probe-test-"));
  writeFileSync(join(dir, "kubectl"), FAKE_KUBECTL);
  chmodSync(join(dir, "kubectl"), 0o755);
  oldPath = process.env.PATH;
  process.env.PATH = `${dir}:${oldPath}`;
  // named by path: the probe's kubectl gets the allowlisted PATH, not this process's
  probe = createProbe({
    kubectl: join(dir, "kubectl"),
    kubeconfig: "/tmp/probe-test.kubeconfig",
    namespace: "shop",
    timeoutMs: 3000,
    maxOutput: 4000,
  });
});

afterAll(() => {
  process.env.PATH = oldPath;
  rmSync(dir, { recursive: true, force: true });
});

/** The argv the fake kubectl received, from its output. */
const argvOf = (out: string) => [...out.matchAll(/^arg:(.*)$/gm)].map((m) => m[1]);

/** A refusal: one "refused:" line and nothing run. */
async function refused(command: string): Promise<string> {
  const out = await probe(command);
  expect(out).not.toContain("KUBECONFIG=");
  const line = out.split("\n").find((l) => l.startsWith("refused: "));
  expect(line, out).toBeDefined();
  return line as string;
}

describe("allowed commands run as argv, without a shell", () => {
  it("pins the namespace, passes KUBECONFIG and keeps quoted words whole", async () => {
    const out = await probe(`kubectl get pods -l 'app=cart service' -o wide`);
    expect(out).toContain("KUBECONFIG=/tmp/probe-test.kubeconfig");
    expect(argvOf(out)).toEqual(["-n", "shop", "get", "pods", "-l", "app=cart service", "-o", "wide"]);
    expect(out.split("\n")[0]).toBe("$ kubectl -n shop get pods -l 'app=cart service' -o wide");
  });

  it("keeps an explicit -n of the target namespace as written", async () => {
    expect(argvOf(await probe("kubectl -n shop describe deploy/cart"))).toEqual([
      "-n",
      "shop",
      "describe",
      "deploy/cart",
    ]);
    expect(argvOf(await probe("kubectl logs cart-1 --namespace=shop --tail=20"))).toEqual([
      "logs",
      "cart-1",
      "--namespace=shop",
      "--tail=20",
    ]);
  });

  it("runs a ;-separated list one command after the other", async () => {
    const out = await probe("kubectl get pods; kubectl top pods ;kubectl get events");
    expect(out.match(/^\$ kubectl/gm)).toHaveLength(3);
    expect(argvOf(out)).toEqual([
      "-n",
      "shop",
      "get",
      "pods",
      "-n",
      "shop",
      "top",
      "pods",
      "-n",
      "shop",
      "get",
      "events",
    ]);
  });

  it("applies | grep, | head and | wc -l to the captured output", async () => {
    expect(argvOf(await probe("kubectl get pods -o wide | grep -E 'pods|wide'"))).toEqual(["pods", "wide"]);
    expect(await probe("kubectl get pods -o wide | grep -v arg: | grep -c KUBE")).toContain("\n1\n");
    expect(argvOf(await probe("kubectl get pods | head -n 3"))).toEqual(["-n", "shop"]);
    expect(await probe("kubectl get pods | tail -1")).toMatch(/\narg:pods\n$/);
    // KUBECONFIG plus five argv lines
    expect(await probe("kubectl get pods -o wide | wc -l")).toMatch(/\n7\n$/);
    expect(await probe(`kubectl get pods | grep 'arg:\\(get\\|pods\\)' | wc -l`)).toMatch(/\n2\n$/);
  });

  it("reports a failing command's stderr and exit code", async () => {
    const out = await probe("kubectl get pod missing");
    expect(out).toContain('Error from server (NotFound): pods "missing" not found');
    expect(out).toContain("[exit code 1]");
  });

  it("sends stderr through the pipe with 2>&1, as a shell does", async () => {
    // without it the filter sees stdout only, and stderr is shown after the filtered output
    expect(await probe("kubectl get pod missing | grep -c NotFound")).toMatch(/\n0\nError from server/);
    const merged = await probe("kubectl get pod missing 2>&1 | grep -c NotFound");
    expect(merged.split("\n")[0]).toBe("$ kubectl -n shop get pod missing 2>&1 | grep -c NotFound");
    expect(merged).toMatch(/\n1\n\[exit code 1\]\n$/);
  });

  it("sends stderr through the pipe with |&, as bash does", async () => {
    const merged = await probe("kubectl get pod missing |& grep -c NotFound");
    expect(merged.split("\n")[0]).toBe("$ kubectl -n shop get pod missing 2>&1 | grep -c NotFound");
    expect(merged).toMatch(/\n1\n\[exit code 1\]\n$/);
  });

  it("drops stderr with 2>/dev/null, written with or without a space", async () => {
    for (const redirect of ["2>/dev/null", "2> /dev/null"]) {
      const out = await probe(`kubectl get pod missing ${redirect}`);
      expect(out).not.toContain("NotFound");
      expect(out).toContain("[exit code 1]");
      expect(argvOf(out)).toEqual(["-n", "shop", "get", "pod", "missing"]);
    }
  });

  it("allows read-only exec and fetching services of the namespace", async () => {
    expect(argvOf(await probe("kubectl exec -it cart-1 -- cat /proc/meminfo"))).toEqual([
      "-n",
      "shop",
      "exec",
      "-it",
      "cart-1",
      "--",
      "cat",
      "/proc/meminfo",
    ]);
    expect(await probe("kubectl exec cart-1 -- top -b -n 1")).toContain("arg:top");
    expect(await probe("kubectl exec cart-1 -- ping -c 3 checkout")).toContain("arg:ping");
    expect(await probe("kubectl exec cart-1 -- wget -qO- http://checkout:8080/health")).toContain("arg:wget");
    // -O /dev/null discards the page (GNU wget and BusyBox open it like any file): nothing is saved
    expect(await probe("kubectl exec cart-1 -- wget -S -T 5 -O /dev/null http://checkout:8080/")).toContain(
      "arg:wget",
    );
    expect(await probe("kubectl exec cart-1 -- curl -s checkout.shop.svc.cluster.local/health")).toContain(
      "arg:curl",
    );
  });

  it("reads rollout status now instead of waiting for the rollout", async () => {
    expect(argvOf(await probe("kubectl rollout status deploy/cart"))).toEqual([
      "-n",
      "shop",
      "rollout",
      "status",
      "deploy/cart",
      "--watch=false",
    ]);
    expect(argvOf(await probe("kubectl rollout history deploy/cart"))).toEqual([
      "-n",
      "shop",
      "rollout",
      "history",
      "deploy/cart",
    ]);
  });

  it("stops a command at the timeout", async () => {
    const p = createProbe({
      kubectl: join(dir, "kubectl"),
      kubeconfig: "/k",
      namespace: "shop",
      timeoutMs: 300,
      maxOutput: 4000,
    });
    expect(await p("kubectl get pods sleepy")).toContain("[timed out after 0 s and was stopped]");
  });
});

describe("runaway output", () => {
  it("is capped with a note saying how to narrow the command", async () => {
    const out = await probe("kubectl logs runaway");
    expect(out.length).toBeLessThan(4600);
    expect(out).toMatch(
      /\[… \d+ of 50005 lines \(\d+ characters\) cut from the middle; to see them, narrow the command/,
    );
  });

  it("keeps its head and its tail (describe's Events are at the end), and counts the lines cut", async () => {
    const out = await probe("kubectl logs numbered");
    const lines = out.split("\n");
    // the command, KUBECONFIG and four argv lines come first, then line 1...
    expect(lines.slice(0, 7)).toContain("line 1");
    // ...and the last lines of the output are all there, in order
    expect(out.trimEnd().split("\n").slice(-3)).toEqual(["line 2998", "line 2999", "line 3000"]);
    const note = /\[… (\d+) of 3005 lines \((\d+) characters\) cut from the middle/.exec(out);
    expect(note).not.toBeNull();
    // every line is either shown or counted as cut
    const shown = lines.filter((l) => /^line \d+$/.test(l)).length;
    expect(shown + Number(note?.[1])).toBe(3000);
    expect(out.length).toBeLessThan(4600);
  });

  it("is filtered before it is capped, so a grep over long logs still works", async () => {
    // KUBECONFIG, four argv lines, 50000 lines of logs
    expect(await probe("kubectl logs runaway | wc -l")).toMatch(/\n50005\n$/);
  });

  it("is stopped when a command never stops writing", async () => {
    const out = await probe("kubectl logs endless");
    expect(out).toContain("[stopped after 2000000 bytes of output]");
    expect(out.length).toBeLessThan(4600);
  });

  it("shares the budget among the commands of a list", async () => {
    const out = await probe("kubectl logs runaway; kubectl get pods");
    expect(out).toContain("arg:pods");
  });
});

describe("writes are refused", () => {
  it.each([
    ["delete", "kubectl delete pod cart-1"],
    ["apply", "kubectl apply -f fix.yaml"],
    ["patch", `kubectl patch deploy cart -p '{"spec":{"replicas":0}}'`],
    ["scale", "kubectl scale deploy/cart --replicas=0"],
    ["edit", "kubectl edit deploy cart"],
    ["set", "kubectl set image deploy/cart cart=evil:1"],
    ["annotate", "kubectl annotate pod cart-1 a=b"],
    ["label", "kubectl label pod cart-1 a=b"],
    ["create", "kubectl create configmap x"],
    ["replace", "kubectl replace -f x.yaml"],
  ])("kubectl %s", async (verb, command) => {
    expect(await refused(command)).toMatch(
      new RegExp(`(kubectl ${verb} is not read-only|reads local files)`),
    );
  });

  it.each(["restart", "undo", "pause"])("kubectl rollout %s", async (sub) => {
    expect(await refused(`kubectl rollout ${sub} deploy/cart`)).toContain(`rollout ${sub} is not read-only`);
  });

  it("a flag placed to hide the verb", async () => {
    expect(await refused("kubectl --request-timeout=5s delete pod x")).toContain(
      "only -n may come before it",
    );
    expect(await refused("kubectl --v=9 delete pod x")).toContain("--v verbose logging");
    expect(await refused("kubectl rollout --timeout status restart deploy/x")).toContain("is not read-only");
  });
});

describe("exec that writes is refused", () => {
  it.each([
    ["rm", "kubectl exec cart-1 -- rm -rf /data", "can write files"],
    ["kill", "kubectl exec cart-1 -- kill 1", "signals or stops processes"],
    ["dd of=", "kubectl exec cart-1 -- dd if=/dev/zero of=/data/x", "can write files"],
    ["sh -c", "kubectl exec cart-1 -- sh -c 'cat /etc/hosts'", "shell"],
    ["bash", "kubectl exec cart-1 -- bash", "shell"],
    ["tee", "kubectl exec cart-1 -- tee /etc/hosts", "can write files"],
    ["env running a program", "kubectl exec cart-1 -- env rm -rf /", "env with arguments runs a program"],
    ["wget saving a file", "kubectl exec cart-1 -- wget http://checkout/", "saves a file"],
    ["wget -O a file", "kubectl exec cart-1 -- wget -O /tmp/page http://checkout/", "saves a file"],
    ["curl posting", "kubectl exec cart-1 -- curl -s -X POST http://checkout/orders", "only GET and HEAD"],
    [
      "curl to another namespace",
      "kubectl exec cart-1 -- curl -s http://api.kube-system.svc/",
      "only services of namespace shop",
    ],
    ["endless ping", "kubectl exec cart-1 -- ping checkout", "ping -c N"],
    ["interactive top", "kubectl exec cart-1 -- top", "top -b -n 1"],
    ["date -s", "kubectl exec cart-1 -- date -s 2020-01-01", "only print the time"],
    ["exec without --", "kubectl exec cart-1 cat /etc/hosts", "kubectl exec <pod> -- <command>"],
  ])("%s", async (_name, command, why) => {
    expect(await refused(command)).toContain(why);
  });
});

// Which namespaces the probe reads is RBAC's business (the probe's kubeconfig holds the case's
// ServiceAccount): the probe passes -n and -A through and only defaults -n to the case's namespace.
describe("other namespaces are left to the cluster's RBAC", () => {
  it.each([
    ["kubectl get pods -n kube-system", ["get", "pods", "-n", "kube-system"]],
    ["kubectl get pods --namespace=kube-system", ["get", "pods", "--namespace=kube-system"]],
    ["kubectl -nkube-system get pods", ["-nkube-system", "get", "pods"]],
    ["kubectl get pods -A", ["-n", "shop", "get", "pods", "-A"]],
    ["kubectl get pods --all_namespaces", ["-n", "shop", "get", "pods", "--all_namespaces"]],
  ])("%s", async (command, argv) => {
    expect(argvOf(await probe(command))).toEqual(argv);
  });
});

describe("connection and identity flags are refused, however they are spelled", () => {
  it.each([
    "--kubeconfig=/root/.kube/config",
    "--context prod",
    "--server https://10.0.0.1",
    "--token abc",
    "-s https://x",
    "-shttps://x",
    "-s=https://x",
    "--as system:admin",
    "--as-group=system:masters",
    "--as_uid 0",
    "--cluster other",
    "--user admin",
    "--certificate-authority /etc/ssl/ca.pem",
    "--client_key=/root/key.pem",
    "--insecure-skip-tls-verify",
    "--tls_server_name evil",
    "--username admin",
    "--password x",
  ])("kubectl get pods %s", async (flag) => {
    expect(await refused(`kubectl get pods ${flag}`)).toContain("changes who kubectl is or which cluster");
  });
});

describe("shell syntax is refused", () => {
  it.each([
    ["$(...)", "kubectl get pods $(cat /etc/passwd)", "command substitution"],
    ["backticks", "kubectl get pods `whoami`", "command substitution"],
    ["$VAR", "kubectl get pods $HOME", "command substitution"],
    ["$(...) in double quotes", `kubectl get pods -l "app=$(id)"`, "command substitution"],
    [">", "kubectl get pods > /tmp/out", "redirection"],
    [">>", "kubectl get pods >> /tmp/out", "redirection"],
    ["<", "kubectl apply -f - < x.yaml", "redirection"],
    ["2> to a file", "kubectl get pods 2>/tmp/err", "redirection"],
    ["1>&2", "kubectl get pods 1>&2", "redirection"],
    ["a quoted 2", "kubectl get pods '2'>&1", "redirection"],
    ["&&", "kubectl get pods && kubectl delete pod x", "`&`/`&&`"],
    ["||", "kubectl get pods || true", "`||`"],
    ["&", "kubectl get pods &", "`&`/`&&`"],
  ])("%s", async (_name, command, why) => {
    expect(await refused(command)).toContain(why);
  });

  it("keeps the same characters when they are quoted (a grep pattern, a jsonpath)", async () => {
    const out = await probe(`kubectl get pods -o jsonpath='{.items[*].metadata.name}' | grep '>'`);
    expect(out).not.toContain("refused");
  });
});

describe("everything else is refused with what is allowed", () => {
  it("a program other than kubectl", async () => {
    expect(await refused("cat /etc/passwd")).toMatch(/only kubectl runs here, not cat; allowed: kubectl get/);
  });

  it("a pipe into something other than grep, head, tail or wc", async () => {
    expect(await refused("kubectl get pods | sh")).toContain("| sh is not available");
    expect(await refused("kubectl get pods | xargs kubectl delete pod")).toContain(
      "| xargs is not available",
    );
  });

  it("watching and following, which never end", async () => {
    expect(await refused("kubectl get pods -w")).toContain("watching never ends");
    expect(await refused("kubectl logs cart-1 -f")).toContain("following logs never ends");
  });

  it("refuses only the bad command of a list and runs the others", async () => {
    const out = await probe("kubectl get pods; kubectl delete pod x; kubectl get svc");
    expect(out).toContain("refused: kubectl delete is not read-only");
    expect(argvOf(out)).toContain("svc");
  });
});
