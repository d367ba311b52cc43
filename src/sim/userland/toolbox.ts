// What is inside an image (src/sim/stages/toolboxes.yaml): which of the probe commands it has and
// in which implementation, its main process and how that process takes signals. The commands
// are registered once for every container; `gated` makes a command missing from an image fail
// the way a real runtime or shell says it (so the reference's fallback to the sidecar-busybox is
// exercised). Whether a command runs inside a shell is tracked with AsyncLocalStorage, since a
// shell's message for a missing command differs from the runtime's and `kill` is a builtin there.
import { AsyncLocalStorage } from "node:async_hooks";
import type { Container } from "../core/objects.js";
import { globRe } from "./glob.js";
import { parseImage } from "./images.js";
import type { CommandHandler, Proc } from "./process.js";

interface ImageRule {
  name: string;
  tag?: string;
  toolset: string;
  process?: string;
  /** The image's ENTRYPOINT when it has one the pod's args go to (bitnami/kubectl's kubectl). */
  entrypoint?: string;
  runtime?: string;
  /** Files the image's Dockerfile adds: path -> size in bytes (a program) or text. */
  files?: Record<string, number | string>;
  /** How its own program takes signals, where it differs from its runtime's (locust's SIGTERM handler). */
  signals?: Record<string, number>;
}

interface ToolboxDoc {
  toolsets: Record<string, Record<string, string>>;
  images: ImageRule[];
  runtimes: Record<string, string>;
  signals: Record<string, Record<string, number>>;
  default: { toolset: string; runtime: string };
  runtimeBinaries?: Record<string, string[]>;
}

export interface ImageTools {
  toolset: string;
  /** command -> implementation (busybox, gnu, procps, iputils, curl, ...). */
  tools: Record<string, string>;
  process?: string;
  /** ENTRYPOINT, when the catalog says the image has one a pod's `args` are given to. */
  entrypoint?: string;
  runtime: string;
  /** An image the catalog describes (a rule matched), so what it lacks is known too. */
  known: boolean;
  /** Files its Dockerfile adds (path -> size or text). */
  files: Record<string, number | string>;
  /** Its own program's signal handling, where it differs from its runtime's. */
  signals?: Record<string, number>;
}

let doc: ToolboxDoc | undefined;
const memo = new Map<string, ImageTools>();

/**
 * The images' contents, from the stages the embedded cluster is built with. What an image holds
 * does not depend on the system, so it is kept per process (the helpers that ask take no cluster).
 */
export function installToolboxes(d: Record<string, unknown>): void {
  if ((doc as unknown) === d) return;
  doc = d as unknown as ToolboxDoc;
  memo.clear();
}

function load(): ToolboxDoc {
  if (!doc) throw new Error("no toolboxes: build an EmbeddedCluster with its stages first");
  return doc;
}

function toolsOf(d: ToolboxDoc, set: string, depth = 0): Record<string, string> {
  const own = d.toolsets[set] ?? {};
  const base = own.base && depth < 8 ? toolsOf(d, own.base, depth + 1) : {};
  const out: Record<string, string> = { ...base };
  for (const [k, v] of Object.entries(own)) if (k !== "base") out[k] = v;
  return out;
}

export function imageTools(image: string): ImageTools {
  let t = memo.get(image);
  if (t) return t;
  const d = load();
  const ref = parseImage(image);
  const rule = ref
    ? d.images.find(
        (r) => globRe(r.name).test(ref.name) && (!r.tag || new RegExp(`^(?:${r.tag})$`).test(ref.tag)),
      )
    : undefined;
  const app = ref?.name.split("/").pop() ?? "";
  const toolset = rule?.toolset ?? (ref?.tag.includes("alpine") ? "alpine" : d.default.toolset);
  t = {
    toolset,
    tools: toolsOf(d, toolset),
    process: rule?.process?.replace(/\{app\}/g, app),
    entrypoint: rule?.entrypoint,
    runtime: rule?.runtime ?? d.default.runtime,
    known: !!rule,
    files: rule?.files ?? {},
    ...(rule?.signals ? { signals: rule.signals } : {}),
  };
  memo.set(image, t);
  return t;
}

type Spec = Container;

/** The main process's argv: the pod's command/args, else the image's default. */
export function commandLine(spec: Spec): string[] {
  const cmd: string[] = (spec?.command ?? []).map(String);
  const args: string[] = (spec?.args ?? []).map(String);
  if (cmd.length) return [...cmd, ...args];
  if (args.length) return args;
  const p = imageTools(String(spec?.image ?? "")).process;
  return p ? [p] : ["/bin/sh"];
}

/** What PID 1 is, for its signal handling. */
export function runtimeOf(spec: Spec): string {
  const argv0 = commandLine(spec)[0].split(" ")[0];
  const base = argv0.slice(argv0.lastIndexOf("/") + 1).replace(/:$/, "");
  const named = load().runtimes[base] ?? (/^python\d/.test(base) ? "python" : undefined);
  return named ?? imageTools(String(spec?.image ?? "")).runtime;
}

/**
 * Exit code when PID 1 gets `signal` (TERM, KILL, ...), from inside the container or from the
 * runtime as the kubelet stops it; undefined: PID 1 has no handler for it, so the kernel does not
 * deliver it (only SIGKILL from outside the PID namespace ends it then).
 */
export function pid1Exit(spec: Spec, signal: string): number | undefined {
  const own = imageTools(String(spec?.image ?? "")).signals;
  // the image's own program runs when the pod gives no command of its own
  if (own && !spec?.command?.length && !spec?.args?.length) return own[signal];
  return load().signals[runtimeOf(spec)]?.[signal];
}

/** PID 1 installs a SIGTERM handler: it stops when the kubelet asks, not at the grace period's SIGKILL. */
export const handlesTerm = (spec: Spec) => pid1Exit(spec, "TERM") !== undefined;

export const isPause = (spec: Spec | undefined) => imageTools(String(spec?.image ?? "")).runtime === "pause";

interface ShellScope {
  name: string;
  bash: boolean;
}

const shellScope = new AsyncLocalStorage<ShellScope>();

/** Wrap a shell so the commands it runs know they run inside it. */
export function asShell(fn: CommandHandler): CommandHandler {
  return (args, p) => shellScope.run({ name: p.name || "sh", bash: p.name === "bash" }, () => fn(args, p));
}

export const inShell = () => shellScope.getStore() !== undefined;

/** The implementation of a command in the container's image (the shell's builtin kill counts). */
export function toolImpl(p: Proc, cmd: string): string | undefined {
  const image = String(p.container?.image ?? "");
  const impl = imageTools(image).tools[cmd];
  if (impl) return impl;
  if (cmd === "kill" && inShell()) return "builtin";
  // a runtime's own program (python in python:*): the image's
  return imagePrograms(image).some((b) => b.endsWith(`/${cmd}`)) ? "image" : undefined;
}

/** A command that exists only in the images whose toolbox lists it. */
export function gated(cmd: string, fn: CommandHandler): CommandHandler {
  return (args, p) => {
    if (toolImpl(p, cmd)) return fn(args, p);
    const sh = shellScope.getStore();
    const name = p.name || cmd;
    if (!sh) {
      p.stderr.write(
        `OCI runtime exec failed: exec failed: unable to start container process: exec: "${name}": executable file not found in $PATH: unknown\n`,
      );
    } else if (sh.bash) p.stderr.write(`bash: line 1: ${name}: command not found\n`);
    else if (imageTools(String(p.container?.image ?? "")).tools.ps === "busybox")
      p.stderr.write(`${sh.name}: ${name}: not found\n`);
    else p.stderr.write(`${sh.name}: 1: ${name}: not found\n`);
    return 127;
  };
}

/** What every image with a userland has (coreutils or BusyBox applets, a POSIX shell). */
const CORE = [
  "sh",
  "echo",
  "printf",
  "true",
  "false",
  "sleep",
  "env",
  "printenv",
  "hostname",
  "pwd",
  "id",
  "whoami",
  "uname",
  "date",
  "cat",
  "ls",
  "mkdir",
  "touch",
  "rm",
  "df",
  "seq",
  "grep",
  "head",
  "tail",
  "wc",
  "sort",
  "tr",
  "test",
  "[",
  "which",
];
/** BusyBox (and so Alpine) puts these applets in /usr/bin; the rest in /bin. */
const BUSYBOX_USR = new Set(
  ["env", "printenv", "id", "whoami", "seq", "head", "tail", "wc", "sort", "tr", "test", "[", "which"].concat(
    ["wget", "nslookup", "top", "pkill", "getent", "curl"],
  ),
);

/**
 * The executables an image's base distribution has, by absolute path: Debian, Ubuntu, CentOS
 * and Oracle Linux merge /usr (/bin is a link to /usr/bin, so both paths exist; bash and dash
 * too); BusyBox and Alpine link their applets into /bin and /usr/bin; distroless and pause hold
 * none. A file here is what `ls /bin`, `test -x /bin/date` and `command -v` see.
 */
export function imageBinaries(image: string): string[] {
  const t = imageTools(image);
  if (t.toolset === "none") return [];
  const tools = Object.entries(t.tools)
    .filter(([, impl]) => impl)
    .map(([cmd]) => cmd);
  const busybox = t.tools.ps === "busybox" || t.toolset.startsWith("alpine") || t.toolset === "busybox";
  if (busybox) {
    const names = [...CORE, "ash", ...tools];
    return names.map((n) => (BUSYBOX_USR.has(n) ? `/usr/bin/${n}` : `/bin/${n}`));
  }
  const names = [...CORE, "bash", "dash", ...tools];
  return [...names.map((n) => `/usr/bin/${n}`), ...names.map((n) => `/bin/${n}`)];
}

/**
 * The programs an image holds beyond its distribution's commands: its runtime's (toolboxes.yaml
 * runtimeBinaries: python, java, node, redis-server, ...) and its own default program (the Go
 * services' /src/server); a bare name is found on PATH in /usr/local/bin.
 */
export function imagePrograms(image: string): string[] {
  const t = imageTools(image);
  const own = t.process?.split(" ")[0].replace(/:$/, "");
  const named = own ? [own.includes("/") ? own : `/usr/local/bin/${own}`] : [];
  return [...(load().runtimeBinaries?.[t.runtime] ?? []), ...named];
}

/** Whether the image has the executable a command line names (a path, or a name on PATH). */
export function imageHas(image: string, argv0: string): boolean {
  const bins = [...imageBinaries(image), ...imagePrograms(image)];
  if (argv0.includes("/")) return bins.includes(argv0);
  return bins.some((b) => b.endsWith(`/${argv0}`));
}
