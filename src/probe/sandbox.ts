// The probe sandbox: a command line from the model in, the observation it sees out. Commands are
// split into argv without a shell, checked against the read-only allowlist, run as kubectl with
// the cluster's kubeconfig, a wall-clock timeout and a bounded capture; pipes into grep, head,
// tail and wc are applied to the captured output. A refusal is an observation, never an error.
import { execa } from "execa";
import type { SandboxMode } from "../sandbox/support.js";
import { toolCommand } from "../sandbox/tool-command.js";
import { cut } from "./cut.js";
import { parseFilter } from "./filters.js";
import { ALLOWED, checkKubectl } from "./kubectl.js";
import { CAPTURE_BYTES, MIN_SHARE } from "./limits.js";
import { type Segment, showArgv, splitCommandLine } from "./tokenize.js";

export interface ProbeOptions {
  kubeconfig: string;
  /** The one namespace probes may look at (pinned with -n). */
  namespace: string;
  /** Wall ms each command may run before it is killed. */
  timeoutMs: number;
  /** Characters of observation per probe call; longer output is cut with a note. */
  maxOutput: number;
  /** Commands in one `;`-separated list (default 10). */
  maxCommands?: number;
  /** The kubectl to run (default: kubectl on PATH). */
  kubectl?: string;
  /**
   * bwrap: kubectl runs in bubblewrap (read-only system, empty HOME and /tmp, no writable path);
   * none (default): unconfined. Both give it only the allowlisted environment, never the runner's.
   */
  sandbox?: SandboxMode;
}

export type Probe = (command: string) => Promise<string>;

/** Why the probe refuses one command of a line, or its checked kubectl argv. */
export function checkSegment(seg: Segment, namespace: string): { refusal: string } | { argv: string[] } {
  if (seg.refusal) return { refusal: seg.refusal };
  const [program, ...filterArgvs] = seg.stages;
  if (program[0] !== "kubectl") return { refusal: `only kubectl runs here, not ${program[0]}; ${ALLOWED}` };
  const bad = filterArgvs.map(parseFilter).find((f) => "refusal" in f);
  if (bad && "refusal" in bad) return { refusal: bad.refusal };
  return checkKubectl(program.slice(1), namespace);
}

async function runOne(seg: Segment, o: ProbeOptions, budget: number): Promise<string> {
  const checked = checkSegment(seg, o.namespace);
  if ("refusal" in checked) return `$ ${seg.text}\nrefused: ${checked.refusal}\n`;
  const [, ...filterArgvs] = seg.stages;
  const filters = filterArgvs.map(parseFilter);

  const redirect = { show: "", merge: " 2>&1", drop: " 2>/dev/null" }[seg.stderr ?? "show"];
  const shown = [`kubectl ${showArgv(checked.argv)}${redirect}`, ...filterArgvs.map(showArgv)].join(" | ");
  const cmd = toolCommand(o.sandbox ?? "none", o.kubeconfig, o.kubectl ?? "kubectl", checked.argv);
  const r = await execa(cmd.file, cmd.args, {
    env: cmd.env,
    extendEnv: false,
    stdin: "ignore",
    reject: false,
    timeout: o.timeoutMs,
    forceKillAfterDelay: 1000,
    maxBuffer: CAPTURE_BYTES,
    stripFinalNewline: false,
  });
  if (r.failed && r.code === "ENOENT")
    return `$ ${shown}\nkubectl is not installed on the machine running the benchmark\n`;
  const mode = seg.stderr ?? "show";
  const stderr = mode === "show" ? String(r.stderr ?? "").trim() : "";
  // 2>&1: what kubectl wrote to stderr goes through the pipe after its output
  let stdout = String(r.stdout ?? "") + (mode === "merge" ? String(r.stderr ?? "") : "");
  for (const f of filters) if ("apply" in f) stdout = f.apply(stdout);
  const notes: string[] = [];
  if (r.timedOut) notes.push(`[timed out after ${Math.round(o.timeoutMs / 1000)} s and was stopped]`);
  else if (r.isMaxBuffer) notes.push(`[stopped after ${CAPTURE_BYTES} bytes of output]`);
  else if (r.exitCode) notes.push(`[exit code ${r.exitCode}]`);
  // the notes come after the cut, so a long output cannot hide why it ended
  const body = cut([stdout.trimEnd(), stderr].filter(Boolean).join("\n"), budget).trimEnd();
  return `$ ${shown}\n${[body, ...notes].filter(Boolean).join("\n") || "(no output)"}\n`;
}

export function createProbe(o: ProbeOptions): Probe {
  const maxCommands = o.maxCommands ?? 10;
  return async (command: string) => {
    const segments = splitCommandLine(command);
    if (!segments.length)
      return `refused: empty command; give a read-only kubectl command, or several separated by ';' (${ALLOWED})`;
    if (segments.length > maxCommands)
      return `refused: ${segments.length} commands in one probe; at most ${maxCommands}, separated by ';'`;
    // each command gets an equal share of the output budget, so the first cannot crowd out the rest
    const budget = Math.max(MIN_SHARE, Math.floor(o.maxOutput / segments.length));
    const parts: string[] = [];
    for (const seg of segments) parts.push(await runOne(seg, o, budget));
    return parts.join("");
  };
}
