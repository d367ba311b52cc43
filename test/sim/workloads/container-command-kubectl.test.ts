// A container runs what its command says, through real kubectl on Simple-Micro. bad-command gives
// hello-service a program its image lacks; two wrong fixes must fail as they do on k3s:
//   - removing `command`: python:3.9-slim's CMD is ["python3"] with no ENTRYPOINT (the official
//     image's Dockerfile), so the bare interpreter starts; its stdin is closed (no `stdin: true`)
//     and there is no TTY, so the REPL reads end of input and exits 0 (CPython's
//     Modules/main.c pymain_run_stdin): Completed, restarted, CrashLoopBackOff, never Ready;
//   - `command: ["python", "/app/server.py"]`: the image has no /app, so CPython prints
//     `python: can't open file '/app/server.py': [Errno 2] No such file or directory` and exits
//     2 (Modules/main.c pymain_run_file): Error, CrashLoopBackOff.
// The right fix (the manifests applied again) runs the manifest's `python -u -c <server>` and serves again.
// What a pod serves follows the script its command runs: the reference's own source config
// (LLM4AIOps/MicroRemed envs/source-config/simple-micro-config.yaml) runs hello-service as
// `sh -c "cat > /app.py <<'PY' ... PY\npython /app.py"` with a handler answering /hello and
// /healthz and a readiness probe on /healthz, which passes on k3s; so it does here.

import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { packageRoot } from "../../../src/util/paths.js";
import { startTestCluster, type TestCluster } from "../../helpers/cluster.js";
import { deploySystem, eventually, isReady, type Kn, kubectlIn } from "../helpers/failures.js";
import { curlUntil, onePod, patchWith, statusOf } from "../helpers/lifecycle.js";
import { debugPod } from "../helpers/network.js";

let t: TestCluster;
let kn: Kn;
let curl: string;
const NS = "cmd-sm";

beforeAll(async () => {
  t = await startTestCluster(60, 72);
  kn = kubectlIn(t, NS);
  await deploySystem(t, "simple-micro", NS);
  curl = await debugPod(kn);
}, 240_000);
afterAll(() => t?.stop());

const restarts = (n: number) => (p: Parameters<typeof statusOf>[0]) =>
  (statusOf(p, "hello-service")?.restartCount ?? 0) >= n;

async function breakCommand() {
  const r = await patchWith(t, kn, "hello-service", "bad-command", {
    target_container: "hello-service",
    command: "/app/server",
  });
  expect(r.exitCode, r.stderr).toBe(0);
  await onePod(kn, "hello-service", restarts(1));
}

/** The right fix: the system's manifests applied again, until the rollout completes. */
async function restore() {
  const r = await kn(["apply", "-f", join(packageRoot(), "envs/simple-micro/manifests.yaml")]);
  expect(r.exitCode, r.stderr).toBe(0);
  await eventually(
    kn,
    ["rollout", "status", "deployment/hello-service", "--timeout=20s"],
    (o) => o.includes("successfully rolled out"),
    120_000,
  );
}

/** A JSON patch on the hello-service container of the Deployment. */
async function jsonPatch(ops: unknown[]) {
  const r = await kn(["patch", "deployment", "hello-service", "--type", "json", "-p", JSON.stringify(ops)]);
  expect(r.exitCode, r.stderr).toBe(0);
}

describe("bad-command on hello-service, fixed three ways", () => {
  it("removing the command starts a bare python3 that exits 0 at once: Completed, never Ready", async () => {
    await breakCommand();
    await jsonPatch([{ op: "remove", path: "/spec/template/spec/containers/0/command" }]);
    const pod = await onePod(
      kn,
      "hello-service",
      (p) => !!p.spec.containers[0] && !p.spec.containers[0].command && restarts(2)(p),
    );
    expect(statusOf(pod, "hello-service")?.lastState?.terminated).toMatchObject({
      reason: "Completed",
      exitCode: 0,
    });
    expect(isReady(pod)).toBe(false);
    await eventually(kn, ["get", "pod", pod.metadata.name, "--no-headers"], (o) =>
      /\s1\/2\s+(CrashLoopBackOff|Completed)\s/.test(o),
    );
    const logs = await kn(["logs", pod.metadata.name, "-c", "hello-service", "--previous"]);
    expect(logs.stdout).toBe("");
    await curlUntil(kn, curl, "http://hello-service:5000/hello", (a) => a.code !== "200");
    await restore();
  }, 240_000);

  it("python /app/server.py, a file the image lacks: exit 2 and CPython's message", async () => {
    await breakCommand();
    await jsonPatch([
      {
        op: "replace",
        path: "/spec/template/spec/containers/0/command",
        value: ["python", "/app/server.py"],
      },
    ]);
    const pod = await onePod(
      kn,
      "hello-service",
      (p) => p.spec.containers[0]?.command?.[1] === "/app/server.py" && restarts(1)(p),
    );
    expect(statusOf(pod, "hello-service")?.lastState?.terminated).toMatchObject({
      reason: "Error",
      exitCode: 2,
    });
    expect(isReady(pod)).toBe(false);
    const logs = await kn(["logs", pod.metadata.name, "-c", "hello-service", "--previous"]);
    expect(logs.stdout.trim()).toBe(
      "python: can't open file '/app/server.py': [Errno 2] No such file or directory",
    );
    await restore();
  }, 240_000);

  it("the right fix (the manifest's command applied again) serves /hello again", async () => {
    await breakCommand();
    await restore();
    const pod = await onePod(kn, "hello-service", isReady);
    expect(statusOf(pod, "hello-service")?.restartCount).toBe(0);
    await curlUntil(kn, curl, "http://hello-service:5000/hello", (a) => a.code === "200");
  }, 240_000);
});

/** hello-service as the reference's source config writes it: a heredoc script run by sh. */
const REFERENCE_HELLO = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: hello-service
  labels: {app: hello-service}
spec:
  replicas: 1
  selector: {matchLabels: {app: hello-service}}
  template:
    metadata: {labels: {app: hello-service}}
    spec:
      containers:
        - name: hello-service
          image: python:3.9-slim
          ports: [{containerPort: 5000}]
          command: ["sh", "-c"]
          args:
            - |
              cat > /app.py <<'PY'
              from http.server import BaseHTTPRequestHandler, HTTPServer
              class Handler(BaseHTTPRequestHandler):
                  def do_GET(self):
                      if self.path == "/hello":
                          self.send_response(200)
                          self.end_headers()
                      elif self.path == "/healthz":
                          self.send_response(200)
                          self.end_headers()
                          self.wfile.write(b"OK")
                      else:
                          self.send_response(404)
                          self.end_headers()
              if __name__ == "__main__":
                  HTTPServer(("0.0.0.0", 5000), Handler).serve_forever()
              PY
              python /app.py
          readinessProbe:
            httpGet: {path: /healthz, port: 5000}
            initialDelaySeconds: 1
            periodSeconds: 2
        - name: sidecar-busybox
          image: busybox:1.35
          command: ["sh", "-c", "sleep 3600"]
`;

describe("what a pod serves follows the script its command runs", () => {
  it("the reference's hello-service (sh -c heredoc, python /app.py) is Ready on /healthz", async () => {
    const r = await kn(["apply", "-f", t.file("reference-hello.yaml", REFERENCE_HELLO)]);
    expect(r.exitCode, r.stderr).toBe(0);
    const pod = await onePod(
      kn,
      "hello-service",
      (p) => p.spec.containers[0]?.command?.[0] === "sh" && isReady(p),
    );
    expect(statusOf(pod, "hello-service")?.restartCount).toBe(0);
    const ok = await curlUntil(kn, curl, "http://hello-service:5000/healthz", (a) => a.code === "200");
    expect(ok.body).toBe("OK");
    const none = await curlUntil(kn, curl, "http://hello-service:5000/health", () => true);
    expect(none.code).toBe("404");
    const file = await kn(["exec", pod.metadata.name, "-c", "hello-service", "--", "cat", "/app.py"]);
    expect(file.stdout).toContain('elif self.path == "/healthz":');
  }, 240_000);
});
