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

const playbook = (tasks: string) => `turns:
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

/** One scenario on a system, with a scripted model, through `run`; its records. */
async function runOne(env: string, scenario: string, script: string) {
  const dir = tmp(`mr-incident-${scenario}-`);
  const exp = write(dir, "incident.txt", `${scenario}\n`);
  const model = write(dir, "fix.yaml", script);
  const r = await execa(
    process.execPath,
    [
      "dist/src/cli/main.js",
      "run",
      "--env",
      env,
      "--model",
      `scripted:${model}`,
      "--remediate-method",
      "SoloGen",
      "--experiment-path",
      exp,
      "--save-path",
      dir,
      "--run-name",
      "wrong-fix",
      "--speed",
      "600",
    ],
    { reject: false, timeout: 1_200_000 },
  );
  expect(r.exitCode, String(r.stderr).slice(-2000)).toBe(0);
  return readCases(join(dir, "wrong-fix"));
}

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
      // the causes were found and changed, each of them (localization per cause)
      for (const c of readCases(join(dir, "SoloGen_incident")))
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
      expect(new Set(cases.map((c) => c.reason?.code))).toEqual(new Set(["ineffective"]));
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

export { playbook, runOne };
