// Exec through @kubernetes/client-node 1.x (WebSocket, v5 offered first): output, stdin, status.
import { PassThrough, Writable } from "node:stream";
import * as k8s from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { podManifest, runningPod, startCluster, type TestCluster } from "../../helpers/exec.js";

let t: TestCluster;
let kc: k8s.KubeConfig;
const NS = "apps";

beforeAll(async () => {
  t = await startCluster();
  kc = new k8s.KubeConfig();
  kc.loadFromFile(t.kubeconfig);
  await runningPod(
    t.c,
    podManifest(NS, "api", [
      {
        name: "app",
        image: "python:3.12",
        // python:3.12 runs a bare python3 otherwise, which exits at once without input
        command: ["python3", "-m", "http.server", "8000"],
        env: [{ name: "MODE", value: "prod" }],
      },
    ]),
  );
});

afterAll(async () => {
  await t?.stop();
});

class Sink extends Writable {
  text = "";
  override _write(chunk: Buffer, _enc: string, cb: () => void) {
    this.text += chunk.toString("utf8");
    cb();
  }
}

/** Run a command; resolves once the status arrives and the socket closes. */
async function run(command: string[], stdinText?: string) {
  const stdout = new Sink();
  const stderr = new Sink();
  const stdin = stdinText === undefined ? null : new PassThrough();
  let status: k8s.V1Status | undefined;
  const ws = await new k8s.Exec(kc).exec(NS, "api", "app", command, stdout, stderr, stdin, false, (s) => {
    status = s;
  });
  if (stdin) stdin.end(stdinText);
  await new Promise<void>((resolve) => {
    if (ws.readyState === ws.CLOSED) resolve();
    else ws.on("close", () => resolve());
  });
  return { stdout: stdout.text, stderr: stderr.text, status, protocol: ws.protocol };
}

describe("client-node exec", () => {
  it("captures stdout and reports Success on v5", async () => {
    const r = await run(["sh", "-c", "echo $MODE; hostname"]);
    expect(r.protocol).toBe("v5.channel.k8s.io");
    expect(r.stdout).toBe("prod\napi\n");
    expect(r.status).toEqual({ metadata: {}, status: "Success" });
  });

  it("reports a non-zero exit code as Failure with the code in details", async () => {
    const r = await run(["sh", "-c", "echo oops >&2; exit 7"]);
    expect(r.stderr).toBe("oops\n");
    expect(r.status?.status).toBe("Failure");
    expect(r.status?.reason).toBe("NonZeroExitCode");
    expect(r.status?.details?.causes).toEqual([{ reason: "ExitCode", message: "7" }]);
    expect(r.status?.message).toBe(
      "command terminated with non-zero exit code: error executing command [sh -c echo oops >&2; exit 7], exit code 7",
    );
  });

  it("feeds stdin and closes it with the v5 close frame", async () => {
    const r = await run(["wc", "-l"], "a\nb\nc\n");
    expect(r.stdout.trim()).toBe("3");
    expect(r.status?.status).toBe("Success");
  });

  it("fails an unknown command with 127", async () => {
    const r = await run(["curlx", "http://x"]);
    expect(r.stderr).toContain('exec: "curlx": executable file not found in $PATH');
    expect(r.status?.details?.causes?.[0]?.message).toBe("127");
  });
});
