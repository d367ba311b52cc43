// kubectl exec over SPDY/3.1, as Debian's kubectl 1.20 speaks it: the kubectl here (1.30+) is
// forced to SPDY with KUBECTL_REMOTE_COMMAND_WEBSOCKETS=false. The exit code, stdin, stderr and
// the Status of a refused exec follow kubernetes' remotecommand client
// (staging/src/k8s.io/client-go/tools/remotecommand/v4.go errorDecoderV4: NonZeroExitCode with
// the ExitCode cause becomes "command terminated with exit code N") and the kubelet's server
// (pkg/kubelet/cri/streaming/remotecommand/httpstream.go). SPDY framing and the header dictionary
// follow the SPDY/3 draft and moby/spdystream spdy/{types,read,write,dictionary}.go.
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { connect } from "node:tls";
import { fileURLToPath } from "node:url";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { FLAG_FIN, type Frame, FrameReader, ping } from "../../../../src/sim/exec/transport/spdy-frame.js";
import {
  HeaderCompressor,
  HeaderDecompressor,
  SPDY_DICTIONARY,
} from "../../../../src/sim/exec/transport/spdy-headers.js";
import { podManifest, runningPod, startCluster, type TestCluster } from "../../helpers/exec.js";

let t: TestCluster;
const NS = "shop";

async function spdyKubectl(args: string[], input?: string) {
  const r = await execa("kubectl", ["--kubeconfig", t.kubeconfig, ...args], {
    reject: false,
    input,
    timeout: 30_000,
    env: { KUBECTL_REMOTE_COMMAND_WEBSOCKETS: "false" },
  });
  return { exitCode: r.exitCode ?? -1, stdout: String(r.stdout), stderr: String(r.stderr) };
}

beforeAll(async () => {
  t = await startCluster();
  await runningPod(
    t.c,
    podManifest(NS, "web", [
      { name: "main", image: "nginx:1.27" },
      { name: "sidecar", image: "busybox:1.36", command: ["sleep", "infinity"] },
    ]),
  );
});

afterAll(async () => {
  await t?.stop();
});

describe("kubectl exec over SPDY/3.1", () => {
  it("upgrades to SPDY/3.1 with the v4 protocol and runs the command", async () => {
    const r = await spdyKubectl(["exec", "-v=8", "-n", NS, "web", "-c", "main", "--", "echo", "hi"]);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe("hi");
    expect(r.stderr).toMatch(/Upgrade: SPDY\/3\.1/i);
    expect(r.stderr).toMatch(/101 Switching Protocols/);
    expect(r.stderr).not.toMatch(/Upgrade: websocket/i);
  });

  it("exits with the command's exit code", async () => {
    const r = await spdyKubectl(["exec", "-n", NS, "web", "-c", "main", "--", "sh", "-c", "exit 3"]);
    expect(r.exitCode).toBe(3);
    expect(r.stderr).toContain("command terminated with exit code 3");
  });

  it("feeds stdin to the command with -i and ends it at EOF", async () => {
    const r = await spdyKubectl(
      ["exec", "-i", "-n", NS, "web", "-c", "main", "--", "cat"],
      "line one\nline two\n",
    );
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe("line one\nline two");
  });

  it("keeps stderr apart from stdout", async () => {
    const r = await spdyKubectl([
      "exec",
      "-n",
      NS,
      "web",
      "-c",
      "sidecar",
      "--",
      "sh",
      "-c",
      "echo out; echo oops >&2",
    ]);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe("out");
    expect(r.stderr).toContain("oops");
  });

  it("refuses a container the pod does not have with the API server's Status", async () => {
    const r = await spdyKubectl(["exec", "-n", NS, "web", "-c", "nosuch", "--", "true"]);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain("container nosuch is not valid for pod web");
  });
});

/** SYN_STREAM as spdystream writes it: stream id, associated id, priority and slot, header block. */
function synStream(c: HeaderCompressor, id: number, type: string): Buffer {
  const block = c.compress(new Map([["streamtype", [type]]]));
  const b = Buffer.alloc(18);
  b.writeUInt32BE(0x80030001);
  b.writeUIntBE(10 + block.length, 5, 3);
  b.writeUInt32BE(id, 8);
  return Buffer.concat([b, block]);
}

describe("the SPDY/3.1 exec protocol on the wire", () => {
  it("uses the SPDY/3 header dictionary (bytes of moby/spdystream spdy/dictionary.go)", () => {
    expect(SPDY_DICTIONARY.length).toBe(1423);
    expect(createHash("sha256").update(SPDY_DICTIONARY).digest("hex")).toBe(
      "51d27341373f923f3cd88e1eb7162aeaa3723d7585ff2399201dc06498407f02",
    );
  });

  it("speaks v2 (plain-text error stream), answers PING, ends streams with FIN and goes away", async () => {
    const kc = parse(readFileSync(t.kubeconfig, "utf8"));
    const url = new URL(kc.clusters[0].cluster.server);
    const b64 = (s: string) => Buffer.from(s, "base64");
    const user = kc.users[0].user;
    const sock = connect({
      host: url.hostname,
      port: Number(url.port),
      ca: b64(kc.clusters[0].cluster["certificate-authority-data"]),
      cert: b64(user["client-certificate-data"]),
      key: b64(user["client-key-data"]),
    });
    const q = "command=sh&command=-c&command=echo%20out%3B%20exit%203&container=main&stdout=true&stderr=true";
    sock.write(
      `POST /api/v1/namespaces/${NS}/pods/web/exec?${q} HTTP/1.1\r\nHost: ${url.host}\r\n` +
        "Connection: Upgrade\r\nUpgrade: SPDY/3.1\r\nX-Stream-Protocol-Version: v2.channel.k8s.io\r\n" +
        "X-Stream-Protocol-Version: v1.channel.k8s.io\r\nContent-Length: 0\r\n\r\n",
    );
    const reader = new FrameReader(new HeaderDecompressor());
    const frames: Frame[] = [];
    let head = "";
    let rest = Buffer.alloc(0);
    const out = new HeaderCompressor();
    await new Promise<void>((resolve, reject) => {
      sock.on("error", reject);
      sock.on("data", (chunk: Buffer) => {
        if (!head) {
          rest = Buffer.concat([rest, chunk]);
          const end = rest.indexOf("\r\n\r\n");
          if (end < 0) return;
          head = rest.subarray(0, end).toString();
          chunk = rest.subarray(end + 4);
          // the kubelet's order: error stream first, then the channels the request asked for
          sock.write(Buffer.concat([synStream(out, 1, "error"), synStream(out, 3, "stdout"), ping(7)]));
          sock.write(synStream(out, 5, "stderr"));
        }
        frames.push(...reader.push(chunk));
        if (frames.some((f) => f.kind === "goaway")) resolve();
      });
    });
    sock.destroy();
    expect(head).toMatch(/^HTTP\/1\.1 101 Switching Protocols\r\n/);
    expect(head).toContain("Upgrade: SPDY/3.1");
    expect(head).toContain("X-Stream-Protocol-Version: v2.channel.k8s.io");
    const replies = frames.filter((f) => f.kind === "other" && f.type === 2).length;
    expect(replies).toBe(3);
    expect(frames).toContainEqual({ kind: "ping", id: 7 });
    const onStream = (id: number) => frames.filter((f) => f.kind === "data" && f.streamId === id);
    const text = (id: number) =>
      Buffer.concat(onStream(id).map((f) => (f.kind === "data" ? f.data : Buffer.alloc(0))));
    expect(text(3).toString()).toBe("out\n");
    // v2 has no Status: the kubelet writes the error's text (v1WriteStatusFunc)
    expect(text(1).toString()).toBe(
      "command terminated with non-zero exit code: error executing command [sh -c echo out; exit 3], exit code 3",
    );
    for (const id of [1, 3, 5]) expect(onStream(id).at(-1)).toMatchObject({ flags: FLAG_FIN });
  });
});

describe("microremed doctor", () => {
  const CLI = join(dirname(fileURLToPath(import.meta.url)), "../../../../dist/src/cli/main.js");

  it("says which kubectl is in use, which exec transport it speaks and that exec works", async () => {
    for (const [env, transport] of [
      [{}, "WebSocket"],
      [{ KUBECTL_REMOTE_COMMAND_WEBSOCKETS: "false" }, "SPDY/3.1"],
    ] as const) {
      const r = await execa("node", [CLI, "doctor"], { reject: false, env, timeout: 120_000 });
      const line = String(r.stdout)
        .split("\n")
        .find((l) => l.includes("exec: kubectl"));
      expect(line).toMatch(
        new RegExp(`^ok {3}exec: kubectl v1\\.\\d+\\S* \\(/\\S+/kubectl\\) over ${transport} works in `),
      );
    }
  });
});

// Debian 12's own kubectl (package kubernetes-client, 1.20.2), which speaks only SPDY for exec:
// `apt-get download kubernetes-client && dpkg-deb -x kubernetes-client_*.deb k120`, then
// MICROREMED_OLD_KUBECTL=$PWD/k120/usr/bin/kubectl. Skipped where that binary is not given.
const OLD = process.env.MICROREMED_OLD_KUBECTL;
describe.runIf(OLD)("exec with an old kubectl that only speaks SPDY", () => {
  const old = async (args: string[], input?: string) => {
    const r = await execa(OLD ?? "kubectl", ["--kubeconfig", t.kubeconfig, ...args], {
      reject: false,
      input,
      timeout: 30_000,
    });
    return { exitCode: r.exitCode ?? -1, stdout: String(r.stdout), stderr: String(r.stderr) };
  };

  it("runs commands with their exit code, stdin and stderr", async () => {
    expect(await old(["exec", "-n", NS, "web", "-c", "main", "--", "echo", "hi"])).toMatchObject({
      exitCode: 0,
      stdout: "hi",
    });
    const r3 = await old(["exec", "-n", NS, "web", "-c", "main", "--", "sh", "-c", "echo oops >&2; exit 3"]);
    expect(r3.exitCode).toBe(3);
    expect(r3.stderr).toContain("oops");
    expect(r3.stderr).toContain("command terminated with exit code 3");
    const cat = await old(["exec", "-i", "-n", NS, "web", "-c", "main", "--", "cat"], "a\nb\n");
    expect(cat).toMatchObject({ exitCode: 0, stdout: "a\nb" });
  });
});
