// The probe's contract in words, for the tool's description: every rule the probe enforces, its
// time limit and its output limit. Each part is built from what the checks use (the verbs, the
// refused flags, the exec rules' usages, the filters', grep's limits, the limits), so a rule
// cannot be added or changed without the model being told.
import { URL_RULE } from "./exec-net.js";
import { BIN_DIRS, EXEC_ALLOWED } from "./exec-rules.js";
import { FILTER_RULES } from "./filters.js";
import { READ_VERBS } from "./kubectl.js";
import { OUTPUT_FORMATS, REFUSED } from "./kubectl-flags.js";
import { CAPTURE_BYTES, MIN_SHARE, type ProbeLimits } from "./limits.js";
import { GREP_LIMITS } from "./regex.js";
import { MAX_STAGES } from "./tokenize.js";

/** The refused flags as a model writes them: `-s/--server`, `--kubeconfig`. */
const REFUSED_FLAGS = REFUSED.map(([d]) => (d.short ? `-${d.short}/--${d.long}` : `--${d.long}`)).join(" ");

const FILTERS = Object.values(FILTER_RULES)
  .map((f) => f.usage)
  .join(", ");

export function probeContract(l: ProbeLimits): string {
  return [
    `Runs read-only kubectl commands as your on-call identity in the incident's namespace (-n is added; other namespaces answer 403) and returns what they print. No shell runs: the line is split into words as a shell would (quotes and backslashes work) and each command runs directly.`,
    `- Commands: kubectl ${READ_VERBS.join(", ")}. Flags go after the command (only -n before it); a flag the command does not have is refused.`,
    `- Refused, with the reason: commands that change the cluster (write them into the playbook); -w/--watch, --watch-only, -f/--follow (they never end; rollout status reads the state now); -o other than ${OUTPUT_FORMATS.join("|")}; these flags, which read or write this machine's files, change kubectl's identity or cluster, or log its requests: ${REFUSED_FLAGS}.`,
    `- exec: one pod (name or deploy/<name>), then -- and one program, by name or from ${BIN_DIRS.join(" ")}: ${EXEC_ALLOWED}. ${URL_RULE}.`,
    `- Several commands: separate them with ";" (at most ${l.maxCommands} per call). Pipes: up to ${MAX_STAGES - 1} after kubectl, into ${FILTERS}; they read the piped output only. grep: ${GREP_LIMITS}.`,
    `- Shell syntax is refused: $(...), backticks, $VAR, &&, ||, &, (...), redirection to or from files (>, >>, <), and anything but plain text; write values literally and separate commands with ";". Allowed: 2>&1 or |& (stderr joins the pipe, after the output) and 2>/dev/null (stderr dropped); without them stderr is shown after the output.`,
    `- Each command is stopped after ${l.timeoutSeconds} s and after ${CAPTURE_BYTES} bytes of output (before the pipes). One call returns at most ${l.maxOutput} characters, shared equally by its commands (at least ${MIN_SHARE} each); longer output keeps its first and last lines with a line in between saying how many lines were cut, so narrow long output (| grep WORD, | tail -n N, --tail=N, -l <selector>, -o jsonpath='{...}').`,
  ].join("\n");
}
