// Fairness over the expert tier of every system, through the CLI on the embedded
// cluster: the oracle repairs every case (it reads only what the agent can read: the report,
// which names the service and the category, and the cluster), noop none, and the plausible wrong
// fix of restarting the reported service (what repairs most of the reference's seven) repairs
// none but the two Chaos Mesh types (a new pod is outside their selection, as in the reference),
// each failing because the fault's check still fails (ineffective) or fails again within the hold
// (not-held), never as an error of the run.
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readCases, tmp, write } from "../cli/cli-helpers.js";
import { runAll } from "./run-all.js";

const RESTART = `turns:
  - content: |
      The service is unhealthy; restarting it clears whatever state it is stuck in.
      \`\`\`yaml
      - hosts: localhost
        gather_facts: false
        tasks:
          - name: restart the service
            ansible.builtin.command: kubectl -n {{namespace}} rollout restart deployment/{{service}}
          - name: wait for it
            ansible.builtin.command: kubectl -n {{namespace}} rollout status deployment/{{service}} --timeout=60s
            ignore_errors: true
      \`\`\`
`;

/** The expert tier's fairness on one system: oracle all, noop none, a restart none. */
export function expertFairness(env: string) {
  describe(`${env}, the expert tier`, () => {
    it("oracle repairs every case", async () => {
      const { r, summary, dir } = await runAll(env, "oracle", ["--tiers", "expert"]);
      expect(r.exitCode, String(r.stderr).slice(-2000)).toBe(0);
      const [row] = summary;
      expect(row.tier).toBe("expert");
      expect(row.injectionFailures, `see ${dir}`).toBe(0);
      expect(row.evaluated).toBeGreaterThan(40);
      expect(row.successRate, `see ${dir}`).toBe(1);
    });

    it("noop repairs none", async () => {
      const { r, summary } = await runAll(env, "noop", ["--tiers", "expert"]);
      expect(r.exitCode, String(r.stderr).slice(-2000)).toBe(0);
      expect(summary[0].successRate).toBe(0);
    });

    it("restarting the reported service repairs only the Chaos Mesh types, whose chaos keeps to the pods it selected", async () => {
      const script = write(tmp("mr-restart-"), "restart.yaml", RESTART);
      const { r, dir } = await runAll(env, `scripted:${script}`, ["--tiers", "expert"]);
      expect(r.exitCode, String(r.stderr).slice(-2000)).toBe(0);
      const cases = readCases(join(dir, "SoloGen_expert"));
      const chaos = (c: (typeof cases)[number]) =>
        c.faults.every((f) => f.failure === "http-abort" || f.failure === "network-partition");
      // a new pod is outside an HTTPChaos or a partition, as outside the reference's NetworkChaos
      for (const c of cases.filter((x) => x.status === "success"))
        expect(chaos(c), JSON.stringify(c.faults)).toBe(true);
      const others = cases.filter((c) => !chaos(c) && c.status !== "injection-failure");
      expect(others.length).toBeGreaterThan(30);
      // ineffective: the fault's check still fails after the settle; not-held: a new pod passed it
      // for a while, until its liveness probe or its memory limit killed it again (both are the
      // restart failing; which one a case meets depends on where the settle's reading falls)
      for (const c of others)
        expect(["ineffective", "not-held"], JSON.stringify(c.faults)).toContain(c.reason?.code);
    });
  });
}
