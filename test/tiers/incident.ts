// Fairness over the incident tier (docs/incident-tier.md), through the CLI on the embedded
// cluster: the oracle repairs every scenario from what the agent can read (the report names only
// the alerting service; its detectors read the namespace), noop none, the runbook baseline none
// (its newest-rollout undo takes a red herring, and every cause leaves its workloads Ready), and
// each family's tempting wrong fix fails for its stated reason:
//   multi    fixing one of two causes (the deleted Service made again): the caller's wrong address
//            still fails its own check;
//   herring  undoing the newest rollout (a benign one): the older causal deploy stays;
//   far      restarting the alerting service, healthy and with a clean history: the Service
//            behind it still sends its port nowhere.
// Sources: Kubernetes' rollout undo (kubectl/pkg/polymorphichelpers/rollback.go: the previous
// revision of the named Deployment only), the Service's targetPort (pkg/proxy: traffic to
// targetPort), ITBench (several root-cause entities), SREGym (concurrent failures).
import { join } from "node:path";
import { execa } from "execa";
import { describe, expect, it } from "vitest";
import { readCases, tmp, write } from "../cli/cli-helpers.js";
import { runAll } from "./run-all.js";

/** A scripted model's one answer: a playbook of these tasks on localhost. */
export const playbook = (tasks: string) => `turns:
  - content: |
      \`\`\`yaml
      - hosts: localhost
        gather_facts: false
        tasks:
${tasks
  .trim()
  .split("\n")
  .map((l) => `          ${l}`)
  .join("\n")}
      \`\`\`
`;

/** A `scripted:` model id answering with this text. */
export const scripted = (text: string) => `scripted:${write(tmp("mr-incident-model-"), "fix.yaml", text)}`;

/** Scenarios on a system with a model (oracle, noop, runbook, scripted:<file>), SoloGen through
 * `run` at --speed 600; their case records, in order. */
export async function runScenarios(env: string, scenarios: string[], model: string, extra: string[] = []) {
  const dir = tmp(`mr-incident-${scenarios[0]}-`);
  const exp = write(dir, "incident.txt", `${scenarios.join("\n")}\n`);
  const r = await execa(
    process.execPath,
    [
      "dist/src/cli/main.js",
      "run",
      "--env",
      env,
      "--model",
      model,
      "--remediate-method",
      "SoloGen",
      "--experiment-path",
      exp,
      "--save-path",
      dir,
      "--run-name",
      "r",
      "--speed",
      "600",
      ...extra,
    ],
    { reject: false, timeout: 1_200_000 },
  );
  expect(r.exitCode, String(r.stderr).slice(-2000)).toBe(0);
  return readCases(join(dir, "r"));
}

/** One scenario on a system with a scripted model answering `script`; its records. */
export const runOne = (env: string, scenario: string, script: string) =>
  runScenarios(env, [scenario], scripted(script));

/** Scenarios whose canonical fix is made inside a container (exec), out of the API's change record. */
const RUNTIME_FIXES = new Set(["far-store-maxmemory"]);

/** The incident tier's fairness on one system: oracle all, noop none, the runbook none. */
export function incidentFairness(env: string) {
  describe(`${env}, the incident tier`, () => {
    it("oracle repairs every scenario", async () => {
      const { r, summary, dir } = await runAll(env, "oracle", ["--tiers", "incident"]);
      expect(r.exitCode, String(r.stderr).slice(-2000)).toBe(0);
      const [row] = summary;
      expect(row.tier).toBe("incident");
      expect(row.injectionFailures, `see ${dir}`).toBe(0);
      expect(row.evaluated).toBeGreaterThanOrEqual(2);
      expect(row.successRate, `see ${dir}`).toBe(1);
      // the causes were found and changed, each of them (localization per cause), save a cause
      // repaired at run time through exec (redis-cli CONFIG SET), which no API write records
      for (const c of readCases(join(dir, "SoloGen_incident")))
        if (!RUNTIME_FIXES.has(String(c.failure)))
          expect(c.localization?.localized, JSON.stringify(c.localization)).toBe(true);
    });

    it("noop repairs none", async () => {
      const { r, summary } = await runAll(env, "noop", ["--tiers", "incident"]);
      expect(r.exitCode, String(r.stderr).slice(-2000)).toBe(0);
      expect(summary[0].successRate).toBe(0);
    });

    it("from the symptom level's alert too: the oracle repairs every scenario, the runbook none", async () => {
      const oracle = await runAll(env, "oracle", ["--tiers", "incident", "--report", "symptom"]);
      expect(oracle.r.exitCode, String(oracle.r.stderr).slice(-2000)).toBe(0);
      expect(oracle.summary[0].successRate, `see ${oracle.dir}`).toBe(1);
      const runbook = await runAll(env, "runbook", ["--tiers", "incident", "--report", "symptom"]);
      expect(runbook.r.exitCode, String(runbook.r.stderr).slice(-2000)).toBe(0);
      expect(runbook.summary[0].successRate, `see ${runbook.dir}`).toBe(0);
    });

    it("the runbook repairs none: its undo takes the newest rollout, a red herring, and every cause is Ready", async () => {
      const { r, summary, dir } = await runAll(env, "runbook", ["--tiers", "incident"]);
      expect(r.exitCode, String(r.stderr).slice(-2000)).toBe(0);
      expect(summary[0].successRate, `see ${dir}`).toBe(0);
      const cases = readCases(join(dir, "SoloGen_incident"));
      // never repaired; under a reverter its scale-up may pass the first look and be undone in the hold
      for (const c of cases) expect(["ineffective", "not-held"], `${c.failure}`).toContain(c.reason?.code);
    });
  });
}

/** Simple-Micro's two-cause scenario with only its deleted Service made again: the wrong address stays. */
export const ONE_OF_TWO = playbook(`
- name: make the missing Service again
  ansible.builtin.command: kubectl -n {{namespace}} create service clusterip time-service --tcp=5001:5001
`);

/** Undo the newest rollout of the namespace (time-service's, a benign one). */
export const UNDO_NEWEST = playbook(`
- name: undo the newest rollout
  ansible.builtin.command: kubectl -n {{namespace}} rollout undo deployment/time-service
- name: wait for it
  ansible.builtin.command: kubectl -n {{namespace}} rollout status deployment/time-service --timeout=120s
`);

/** Restart the alerting service, the one the report names. */
export const RESTART_ALERT = playbook(`
- name: restart the alerting service
  ansible.builtin.command: kubectl -n {{namespace}} rollout restart deployment/{{service}}
- name: wait for it
  ansible.builtin.command: kubectl -n {{namespace}} rollout status deployment/{{service}} --timeout=120s
`);
