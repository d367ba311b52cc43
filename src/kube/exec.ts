// Running a command in a container through the API's exec (WebSocket), as kubectl exec does.
import { Writable } from "node:stream";
import { Exec, type V1Status } from "@kubernetes/client-node";
import type { KubeClient } from "./client.js";

export interface ExecResult {
  stdout: string;
  stderr: string;
  exitCode: number;
  /** The failure message the API gave, if any. */
  message?: string;
}

function sink(into: Buffer[]): Writable {
  return new Writable({
    write(chunk, _enc, cb) {
      into.push(Buffer.from(chunk));
      cb();
    },
  });
}

export async function execIn(
  client: KubeClient,
  namespace: string,
  pod: string,
  container: string,
  command: string[],
  timeoutMs = 60_000,
): Promise<ExecResult> {
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  const exec = new Exec(client.kc);
  return new Promise<ExecResult>((resolve) => {
    let settled = false;
    const finish = (r: Omit<ExecResult, "stdout" | "stderr">) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({
        stdout: Buffer.concat(out).toString("utf8"),
        stderr: Buffer.concat(err).toString("utf8"),
        ...r,
      });
    };
    const timer = setTimeout(
      () => finish({ exitCode: 124, message: `exec timed out after ${timeoutMs} ms` }),
      timeoutMs,
    );
    exec
      .exec(namespace, pod, container, command, sink(out), sink(err), null, false, (status: V1Status) => {
        if (status.status === "Success") return finish({ exitCode: 0 });
        const code = Number(status.details?.causes?.find((c) => c.reason === "ExitCode")?.message ?? 1);
        finish({ exitCode: Number.isFinite(code) ? code : 1, message: status.message });
      })
      .then((ws) => {
        ws.on("close", () => setTimeout(() => finish({ exitCode: 0 }), 50));
        ws.on("error", (e: Error) => finish({ exitCode: 1, message: e.message }));
      })
      .catch((e: Error) => finish({ exitCode: 1, message: e.message }));
  });
}
