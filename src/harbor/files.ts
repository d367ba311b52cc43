// The texts of one Harbor task folder (Harbor's task format, harborframework.com/docs/task-format):
// task.toml, instruction.md, environment/ (Dockerfile, entrypoint, case), tests/test.sh and
// solution/solve.sh. Paths inside the image are fixed here; the scripts read each from a variable
// first so that a test can run them in a temporary folder, without a container.

import { reportAt } from "../diagnosis/build.js";
import { REPORT_SCOPE } from "../diagnosis/levels.js";
import { readReport, renderReport } from "../diagnosis/report.js";
import { failure } from "../faults/catalog.js";
import { oraclePlaybook } from "../llm/builtin/oracle.js";
import type { HarborCase } from "./case.js";
import { type TomlTable, toToml } from "./toml.js";

/** Where things are inside the task's image. */
export const IMAGE = {
  task: "/opt/microremed-task",
  state: "/var/lib/microremed-task",
  workdir: "/app",
  agentUser: "agent",
  agentHome: "/home/agent",
  logs: "/logs/verifier",
} as const;

export interface TaskTimes {
  /** Wall seconds the agent may take. */
  agentTimeoutSec: number;
}

/** The report's head as the agent's instruction gives it: what the report says before its live context. */
function reportHead(c: HarborCase, inventory: string): string {
  const faults = c.faults.map((f) => ({ failure: failure(f.failure), target: f.target }));
  const { report } = reportAt({ env: c.env, namespace: c.namespace, inventory }, faults, { level: c.report });
  const text = renderReport({ ...report, runtimeContext: "" });
  return text.slice(0, text.indexOf("\n\n## Runtime context")).trim();
}

export function taskToml(c: HarborCase, t: TaskTimes): string {
  const verifySec = Math.ceil((c.settle + c.hold) / c.speed) + 600;
  const doc: TomlTable = {
    schema_version: "1.1",
    task: {
      name: `microremed/${c.name}`,
      description: `Repair ${c.env} in namespace ${c.namespace} from a ${c.report}-level incident report (MicroRemed, ${c.tier} tier)`,
      authors: [{ name: "MicroRemed" }],
      keywords: ["kubernetes", "sre", "remediation", "ansible", c.tier],
    },
    metadata: {
      category: "sre",
      difficulty: c.tier === "expert" ? "hard" : c.tier,
      system: c.env,
      tier: c.tier,
      report_level: c.report,
      seed: c.seed,
      failures: c.faults.map((f) => f.failure),
      services: c.faults.map((f) => f.target),
    },
    verifier: { timeout_sec: verifySec, user: "root" },
    agent: { timeout_sec: t.agentTimeoutSec, user: IMAGE.agentUser },
    environment: {
      build_timeout_sec: 1200,
      cpus: 2,
      memory_mb: 4096,
      storage_mb: 10240,
      allow_internet: true,
      mcp_servers: [
        {
          name: "cluster",
          transport: "stdio",
          command: "microremed",
          args: [
            "mcp",
            "--report",
            `${IMAGE.workdir}/incident-report.json`,
            "--kubeconfig",
            `${IMAGE.agentHome}/.kube/config`,
            "--sandbox",
            "none",
            "--dir",
            `${IMAGE.agentHome}/.mcp`,
          ],
        },
      ],
    },
  };
  return toToml(doc);
}

export function instruction(c: HarborCase, inventory: string): string {
  return `# Incident in ${c.env}

You are the on-call engineer of the Kubernetes namespace \`${c.namespace}\`, where the microservice
system ${c.env} runs. ${REPORT_SCOPE[c.report]}

${reportHead(c, inventory)}

The whole report, with the namespace's runtime context as it was when it was written, is in
\`${IMAGE.workdir}/incident-report.md\` (and as JSON in \`${IMAGE.workdir}/incident-report.json\`).

Repair the system so that it works as before the incident, and leave the rest of the namespace as
it was. What you may use:

- \`kubectl\`: your kubeconfig (\`~/.kube/config\`, also \`$KUBECONFIG\`) acts as the namespace's
  on-call identity; other namespaces are not yours.
- \`ansible-playbook\` with the \`kubernetes.core\` collection; the inventory is
  \`${IMAGE.workdir}/inventory.ini\` (localhost, local connection).
- The MCP server \`cluster\` (\`get_report\`, \`kubectl\`, \`run_playbook\`, \`submit\`), if your agent
  speaks MCP: \`microremed mcp --report ${IMAGE.workdir}/incident-report.json --sandbox none\` over stdio.

When you are done, you may state what you found in \`${IMAGE.workdir}/diagnosis.json\`:
\`{"service": "<the service at fault>", "cause": "<the cause, in one line>"}\`.
The system is checked as you leave it, a little while after you stop.
`;
}

export function dockerfile(): string {
  return `# A MicroRemed case as a plain container: the embedded Kubernetes cluster runs inside it.
FROM node:20-bookworm-slim
RUN apt-get update \\
 && apt-get install -y --no-install-recommends ansible python3-kubernetes kubernetes-client ca-certificates procps \\
 && rm -rf /var/lib/apt/lists/*
COPY microremed.tgz /tmp/microremed.tgz
RUN npm install -g /tmp/microremed.tgz && rm /tmp/microremed.tgz
RUN useradd --create-home --shell /bin/bash ${IMAGE.agentUser} \\
 && mkdir -p ${IMAGE.workdir} && chown ${IMAGE.agentUser}:${IMAGE.agentUser} ${IMAGE.workdir}
# the case and the harness's start: root's only (the case names the fault)
COPY task/ ${IMAGE.task}/
RUN chown -R root:root ${IMAGE.task} && chmod 0700 ${IMAGE.task} && chmod 0700 ${IMAGE.task}/entrypoint.sh
ENV KUBECONFIG=${IMAGE.agentHome}/.kube/config
WORKDIR ${IMAGE.workdir}
ENTRYPOINT ["${IMAGE.task}/entrypoint.sh"]
CMD ["sleep", "infinity"]
`;
}

/** The container's start: the embedded cluster (root's), then the case, then the container's command. */
export function entrypoint(c: HarborCase): string {
  return `#!/bin/bash
# Starts the case at container start: the embedded cluster as root, the system deployed, the fault
# injected and seen, the agent's identity and report written (microremed task start); then the
# container's command. The harness's admin kubeconfig and the case stay in root's folders.
set -euo pipefail
task=\${MICROREMED_TASK_DIR:-${IMAGE.task}}
state=\${MICROREMED_TASK_STATE:-${IMAGE.state}}
workdir=\${MICROREMED_TASK_WORKDIR:-${IMAGE.workdir}}
agent_home=\${MICROREMED_AGENT_HOME:-${IMAGE.agentHome}}
if [ ! -e "$state/ready" ]; then
  umask 077
  mkdir -p "$state"
  owner=()
  if [ "$(id -u)" = 0 ] && id ${IMAGE.agentUser} >/dev/null 2>&1; then
    owner=(--owner "$(id -u ${IMAGE.agentUser}):$(id -g ${IMAGE.agentUser})")
  fi
  setsid microremed sim --kubeconfig "$state/admin.kubeconfig" --speed ${c.speed} --seed ${c.seed} --env ${c.env} \\
    >"$state/sim.log" 2>&1 </dev/null &
  echo $! >"$state/sim.pid"
  waited=0
  until grep -q "embedded cluster ready" "$state/sim.log"; do
    if ! kill -0 "$(cat "$state/sim.pid")" 2>/dev/null || [ "$waited" -ge 1500 ]; then
      echo "the embedded cluster did not start within 300 s:" >&2
      cat "$state/sim.log" >&2
      exit 1
    fi
    sleep 0.2
    waited=$((waited + 1))
  done
  if ! microremed task start "$task/case.json" --kubeconfig "$state/admin.kubeconfig" --state "$state" \\
    --agent-kubeconfig "$agent_home/.kube/config" --workdir "$workdir" "\${owner[@]}" >"$state/start.log" 2>&1; then
    cat "$state/start.log" >&2
    exit 1
  fi
  touch "$state/ready"
fi
exec "$@"
`;
}

export function testSh(): string {
  return `#!/bin/bash
# Harbor's verifier (as root): the case scored as MicroRemed scores a run's (settle, each fault's
# check, no collateral damage, the hold), written to reward.json (reward 1 or 0; diagnosis 1 or 0
# when the agent stated one). An error of the harness writes no reward: Harbor records it as such.
set -euo pipefail
state=\${MICROREMED_TASK_STATE:-${IMAGE.state}}
exec microremed task verify --kubeconfig "$state/admin.kubeconfig" --state "$state" \\
  --logs "\${MICROREMED_TASK_LOGS:-${IMAGE.logs}}" --workdir "\${MICROREMED_TASK_WORKDIR:-${IMAGE.workdir}}"
`;
}

/** The oracle's fix, as MicroRemed's oracle model writes it from what the report says. */
export function solveSh(c: HarborCase, inventory: string): string {
  const facts = readReport(reportHead(c, inventory));
  if (!facts) throw new Error(`the report of ${c.name} cannot be read back`);
  const playbook = oraclePlaybook(facts.faults, facts.namespace);
  const first = facts.faults[0];
  const diagnosis = first
    ? `printf '%s\\n' '${JSON.stringify({ service: first.service, cause: first.failure ?? first.category ?? "found from what the namespace shows" })}' >"\${MICROREMED_TASK_WORKDIR:-${IMAGE.workdir}}/diagnosis.json"\n`
    : "";
  return `#!/bin/bash
# The oracle's fix for this case: the playbook MicroRemed's oracle model writes from the report
# (the canonical fix for a named failure; a diagnosis from the namespace where the report names
# none), run as the agent with ansible-playbook.
set -euo pipefail
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat >"$work/inventory.ini" <<'INVENTORY'
${inventory.trim()}
INVENTORY
cat >"$work/playbook.yml" <<'PLAYBOOK'
${playbook.trim()}
PLAYBOOK
ansible-playbook -i "$work/inventory.ini" "$work/playbook.yml"
${diagnosis}`;
}
