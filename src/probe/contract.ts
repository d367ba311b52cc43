// The probe's contract in words, for the tool's description: every rule the probe enforces, its
// time limit and its output limit, built from the same constants the checks use, so the model is
// told exactly the limits it will meet.
import { EXEC_ALLOWED } from "./exec-rules.js";
import { FILTERS_ALLOWED } from "./filters.js";
import { READ_VERBS } from "./kubectl.js";
import type { ProbeLimits } from "./limits.js";
import { MAX_STAGES } from "./tokenize.js";

export function probeContract(l: ProbeLimits): string {
  return [
    `Runs read-only kubectl commands as the case's identity in its namespace (-n is added; other namespaces answer 403) and returns what they print. No shell runs: the command line is split into words as a shell would, and run directly.`,
    `- Commands: kubectl ${READ_VERBS.join(", ")}. Inside exec: ${EXEC_ALLOWED}.`,
    `- Several commands: separate them with ";" (at most ${l.maxCommands} per call). Pipes: up to ${MAX_STAGES - 1} after kubectl, ${FILTERS_ALLOWED}.`,
    `- Refused, with the reason: commands that change the cluster (write them into the playbook), -w/--watch and -f/--follow (they never end), flags that read or write local files or change identity or cluster (--kubeconfig, --context, --server, --token, --as, -f FILE, -k, --raw, -v), -o *template-file. Shell syntax is refused too: $(...), backticks, $VAR, &&, ||, &, (...), and redirection to or from files (>, >>, <); write values literally and separate commands with ";". Allowed: 2>&1 (stderr into the pipe) and 2>/dev/null (stderr dropped); without them stderr is shown after the output.`,
    `- Each command is stopped after ${l.timeoutSeconds} s. One call returns at most ${l.maxOutput} characters, shared equally by its commands; longer output keeps its first and last lines with a line in between saying how many were cut, so narrow long output (| grep WORD, | tail -n N, --tail=N, -l <selector>, -o jsonpath='{...}').`,
  ].join("\n");
}
