// The oracle: writes the canonical remediation for the failure category, using only what an
// agent may use (kubectl in the target namespace); for a report that names only the category
// (the expert tier) or not even that (the service and symptom levels), a playbook that diagnoses
// first, finding the faulty services from the namespace where the report names none. It proves each case solvable; it does not
// touch chaos objects, which a real system would not have.
import { stringify } from "yaml";
import { reportIn } from "../../diagnosis/report.js";
import { estimateTokens, type Model, type ModelRequest, type ModelResponse } from "../types.js";
import { scriptTask } from "./script-task.js";

/** The canonical fix per failure: replace the faulty pod, or roll back a bad template. */
function fixTasks(failure: string, namespace: string, service: string) {
  const deploy = `deployment/${service}`;
  const [what, verb] =
    failure === "pod-config-error"
      ? ["Roll back to the last working template of", "undo"]
      : ["Replace the faulty pod of", "restart"];
  // one task: the fix, then wait until the rollout has finished
  return [
    {
      name: `${what} ${service}`,
      "ansible.builtin.shell": `kubectl rollout ${verb} ${deploy} -n ${namespace} && kubectl rollout status ${deploy} -n ${namespace} --timeout=600s`,
    },
  ];
}

/** The oracle's scripts (models/oracle): the repair, and what it reads the namespace with. */
const SCRIPTS = ["cluster.py", "localize.py", "expert-fix.py"];
/** The incident repair and the families' detector files it imports. */
const INCIDENT_SCRIPTS = [
  "incident-fix.py",
  "sticks.py",
  "load.py",
  "template.py",
  "leak.py",
  "herring.py",
  "started.py",
  "stale.py",
  "twin.py",
  "multi.py",
  "capacity.py",
  "deep4.py",
  "window.py",
];

/**
 * An incident's report names where users' requests fail, not the causes: the oracle runs its
 * detectors over the namespace (models/oracle/incident-fix.py) until none finds a cause.
 */
function incidentTasks(namespace: string) {
  return [
    scriptTask(
      "Find the incident's causes from what the namespace shows, and repair each",
      "oracle",
      ["cluster.py", ...INCIDENT_SCRIPTS],
      `python3 "$d/incident-fix.py" ${namespace}`,
    ),
  ];
}

/**
 * An alert names neither the service nor whether it is an incident: the expert repair first, then
 * the incident detectors; the task fails only when neither found anything to repair.
 */
function alertTasks(namespace: string) {
  return [
    scriptTask(
      "Find the faulty services and the incident's causes from what the namespace shows, and repair them",
      "oracle",
      [...SCRIPTS, ...INCIDENT_SCRIPTS],
      `set +e\npython3 "$d/expert-fix.py" ${namespace} '?'\na=$?\npython3 "$d/incident-fix.py" ${namespace}\nb=$?\n[ $a -eq 0 ] || [ $b -eq 0 ]`,
    ),
  ];
}

/**
 * A fault the report does not name the type of (the expert tier; the service level), or whose
 * service it does not name either (the symptom level: service "?"): the oracle diagnoses from
 * what the namespace shows, as the case's identity, finding the faulty services first where the
 * report names none, and repairs what it finds (models/oracle/expert-fix.py), so its success
 * proves the case solvable by an agent.
 */
function diagnoseTasks(namespace: string, service: string) {
  const what = service === "?" ? "Find the faulty services" : `Diagnose ${service}`;
  return [
    scriptTask(
      `${what} from what the namespace shows, and repair them`,
      "oracle",
      SCRIPTS,
      `python3 "$d/expert-fix.py" ${namespace} '${service}'`,
    ),
  ];
}

export function oraclePlaybook(
  faults: { failure?: string; category?: string; service: string }[],
  namespace: string,
  incident = false,
): string {
  // an alert names no service: one task finds and repairs every faulty one
  const tasks = incident
    ? incidentTasks(namespace)
    : faults.length
      ? faults.flatMap((f): Record<string, unknown>[] =>
          f.failure ? fixTasks(f.failure, namespace, f.service) : diagnoseTasks(namespace, f.service),
        )
      : alertTasks(namespace);
  const what = faults.length
    ? faults.map((f) => `${f.failure ?? f.category ?? "the fault"} in ${f.service}`).join(", ")
    : "what the alert reports";
  return stringify([{ name: `Remediate ${what}`, hosts: "localhost", gather_facts: false, tasks }]);
}

export class OracleModel implements Model {
  readonly id = "oracle";

  async generate(req: ModelRequest): Promise<ModelResponse> {
    // the diagnosis report in the conversation is all it knows, as for any model
    const f = reportIn(req.messages);
    const tool = req.tools.find((t) => t.name === "print_playbook");
    const input = estimateTokens(req.messages.map((m) => m.content).join("\n"));
    if (!f || !tool) {
      // Asked something it has no canonical answer for (e.g. a probe round): say so plainly.
      return {
        message: { role: "assistant", content: "No further action." },
        usage: { inputTokens: input, outputTokens: 4 },
      };
    }
    const playbook = oraclePlaybook(f.faults, f.namespace, f.incident);
    const args = JSON.stringify({ playbook });
    // where the report names the service, the oracle states it (an alert's is found by the playbook)
    // an incident's causes are found by the playbook, after this answer: it states none
    const stated = f.faults[0] && !f.incident && req.tools.some((t) => t.name === "submit_diagnosis");
    const diagnosis = stated
      ? [
          {
            id: "oracle-2",
            name: "submit_diagnosis",
            arguments: JSON.stringify({
              service: f.faults[0].service,
              cause: f.faults[0].failure ?? f.faults[0].category ?? "found from what the namespace shows",
            }),
          },
        ]
      : [];
    return {
      message: {
        role: "assistant",
        content: "",
        toolCalls: [{ id: "oracle-1", name: "print_playbook", arguments: args }, ...diagnosis],
      },
      usage: { inputTokens: input, outputTokens: estimateTokens(args) },
    };
  }
}
