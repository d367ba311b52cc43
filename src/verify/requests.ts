// Requests along one edge of the system, made from a pod of the namespace through the API's exec
// with the tools its images have (as user.ts and network.ts make theirs, so they read the same on
// k3s): the command line of a request, what the tool's output says happened (an HTTP answer; a
// connection the server closed without one, as a gRPC, redis or mysql server does with an HTTP
// request and an HTTPChaos abort does; no connection at all), and a container's environment as
// its application reads it.

import type { EnvSpec } from "../envs/env.js";
import { type ExecResult, execIn } from "../kube/exec.js";
import type { Pod } from "../kube/objects.js";
import { mainContainer, SIDECAR } from "./pods.js";
import type { CheckScope } from "./types.js";

export type Tool = "curl" | "wget";

/** What one request came to. Only `unknown` says nothing about the edge. */
export type CallOutcome =
  | { kind: "answered"; status: number }
  /** Connected; the server closed or reset the connection without an HTTP answer. */
  | { kind: "closed"; words: string }
  | { kind: "refused" | "timeout" | "unreachable" | "no such host"; words: string }
  /** The application has no address to call (its variable unset, or not an address). */
  | { kind: "no address"; words: string }
  | { kind: "unknown"; words: string };

export interface Call {
  url: string;
  method?: "GET" | "POST";
  data?: string;
  contentType?: string;
}

/** Cluster seconds a request may take, connecting included (a refused one ends at once). */
export const CALL_SECONDS = 10;
/** curl gives up connecting after this long: a handshake inside a namespace takes milliseconds. */
const CONNECT_SECONDS = 5;

/**
 * One request's command line: curl prints the status (-w, `000` without an answer) and names a
 * failure by its exit code; BusyBox wget prints the status lines (-S) and its failure on stderr.
 * wget is BusyBox's: the images with GNU wget (Debian's) all have curl, which is tried first.
 */
export function callArgv(tool: Tool, c: Call, seconds = CALL_SECONDS): string[] {
  const t = String(seconds);
  if (tool === "curl") {
    const post = c.method === "POST" ? ["-X", "POST", "--data", c.data ?? ""] : [];
    const type = c.contentType ? ["-H", `Content-Type: ${c.contentType}`] : [];
    const connect = String(Math.min(CONNECT_SECONDS, seconds));
    return [
      "curl",
      "-sS",
      "-o",
      "/dev/null",
      "-w",
      "%{http_code}",
      "--connect-timeout",
      connect,
      "-m",
      t,
    ].concat(post, type, [c.url]);
  }
  const post = c.method === "POST" ? [`--post-data=${c.data ?? ""}`] : [];
  const type = c.contentType ? ["--header", `Content-Type: ${c.contentType}`] : [];
  return ["wget", "-S", "-O", "/dev/null", "-T", t, ...post, ...type, c.url];
}

const lastLine = (s: string) => s.trim().split("\n").pop() ?? "";

/** What the tool's output says of the request (curl: its exit codes, man curl "EXIT CODES"). */
export function callOutcome(tool: Tool, r: Pick<ExecResult, "stdout" | "stderr" | "exitCode">): CallOutcome {
  const words = lastLine(r.stderr) || `${tool} exit ${r.exitCode}`;
  if (tool === "curl") {
    const status = Number(r.stdout.trim().slice(-3));
    if (status > 0) return { kind: "answered", status };
    if (r.exitCode === 52 || r.exitCode === 56) return { kind: "closed", words };
    if (r.exitCode === 6) return { kind: "no such host", words };
    if (r.exitCode === 28) return { kind: "timeout", words };
    if (r.exitCode === 7) return { kind: failedConnect(r.stderr) ?? "refused", words };
    return { kind: "unknown", words };
  }
  const statuses = [...r.stderr.matchAll(/HTTP\/\d(?:\.\d)? (\d{3})/g)].map((m) => Number(m[1]));
  if (statuses.length) return { kind: "answered", status: statuses[statuses.length - 1] };
  // BusyBox: "error getting response[: Connection reset by peer]" (after the connect succeeded)
  if (/error getting response|No data received|Read error/i.test(r.stderr)) return { kind: "closed", words };
  if (/bad address|unable to resolve|Name or service not known/i.test(r.stderr))
    return { kind: "no such host", words };
  const failed = failedConnect(r.stderr);
  return failed ? { kind: failed, words } : { kind: "unknown", words };
}

function failedConnect(err: string): "refused" | "timeout" | "unreachable" | undefined {
  if (/refused/i.test(err)) return "refused";
  if (/No route to host/i.test(err)) return "unreachable";
  if (/timed out/i.test(err)) return "timeout";
  return undefined;
}

/** The exec found no such program in the container (runc's exit 127 or 126, or the API's words). */
export const missingTool = (r: Pick<ExecResult, "exitCode" | "message">) =>
  r.exitCode === 127 || r.exitCode === 126 || /executable file not found|not found/.test(r.message ?? "");

/** The container of a pod its system's topology describes (the application's), else the pod's main one. */
export function appContainer(env: EnvSpec, pod: Pod, app: string): string {
  const name = env.topology.services[app]?.container;
  return (pod.spec?.containers ?? []).some((c) => c.name === name) ? (name as string) : mainContainer(pod);
}

/** The containers of a pod to request from, with the tool to try: the busybox sidecar, then the main container's. */
function toolsOf(pod: Pod): { container: string; tool: Tool }[] {
  const names = (pod.spec?.containers ?? []).map((c) => c.name);
  const main = mainContainer(pod);
  return [
    ...(names.includes(SIDECAR) ? [{ container: SIDECAR, tool: "wget" as const }] : []),
    ...(main !== SIDECAR
      ? [
          { container: main, tool: "curl" as const },
          { container: main, tool: "wget" as const },
        ]
      : []),
  ];
}

export interface Made {
  /** pod/container the request was made from. */
  from: string;
  outcome: CallOutcome;
}

/** One request from a pod, with the first tool it has; undefined when it has none. */
export async function requestFrom(
  scope: CheckScope,
  pod: Pod,
  c: Call,
  seconds = CALL_SECONDS,
): Promise<Made | undefined> {
  for (const { container, tool } of toolsOf(pod)) {
    const r = await execIn(
      scope.client,
      scope.namespace,
      pod.metadata.name!,
      container,
      callArgv(tool, c, seconds),
      scope.time.wall(seconds * 1000) + 10_000,
    );
    if (missingTool(r)) continue;
    const from = `${pod.metadata.name}/${container}`;
    // the exec itself failed (the container is gone, the API refused): nothing about the edge
    if (r.message && !r.stdout && !r.stderr) return { from, outcome: { kind: "unknown", words: r.message } };
    return { from, outcome: callOutcome(tool, r) };
  }
  return undefined;
}

/**
 * `KEY=value` entries as a process's environment holds them: NUL-separated (/proc/<pid>/environ)
 * or one a line (printenv). A later entry of a name wins, as in the environment the kubelet builds.
 */
export function parseEnviron(text: string): Map<string, string> {
  const sep = text.includes("\0") ? "\0" : "\n";
  const env = new Map<string, string>();
  for (const entry of text.split(sep)) {
    const i = entry.indexOf("=");
    if (i > 0) env.set(entry.slice(0, i), entry.slice(i + 1));
  }
  return env;
}

/**
 * The environment of a container's application: its PID 1's (what the application was started
 * with, duplicate entries already resolved), else printenv's (an exec gets the same environment).
 */
export async function readEnv(
  scope: CheckScope,
  pod: Pod,
  container: string,
): Promise<Map<string, string> | string> {
  const run = (argv: string[]) =>
    execIn(
      scope.client,
      scope.namespace,
      pod.metadata.name!,
      container,
      argv,
      scope.time.wall(10_000) + 10_000,
    );
  const proc = await run(["cat", "/proc/1/environ"]);
  if (proc.exitCode === 0 && proc.stdout) return parseEnviron(proc.stdout);
  const p = await run(["printenv"]);
  if (p.exitCode === 0 && p.stdout) return parseEnviron(p.stdout);
  return `the environment of ${pod.metadata.name}/${container} could not be read: ${lastLine(p.stderr || proc.stderr) || p.message || `exit ${p.exitCode}`}`;
}
