// Issue 22's fairness over the expert tier of every system, through the CLI on the embedded
// cluster: the oracle repairs every case (it reads only what the agent can read: the report,
// which names the service and the category, and the cluster), noop none, and the plausible wrong
// fix of restarting the reported service (what repairs most of the reference's seven) repairs
// none, each failing because the fault's check still fails (ineffective), never as an error of
// the run.
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

    it("restarting the reported service repairs none: the fault's check still fails", async () => {
      const script = write(tmp("mr-restart-"), "restart.yaml", RESTART);
      const { r, summary, dir } = await runAll(env, `scripted:${script}`, ["--tiers", "expert"]);
      expect(r.exitCode, String(r.stderr).slice(-2000)).toBe(0);
      expect(summary[0].successRate, `see ${dir}`).toBe(0);
      const reasons = new Set(
        readCases(join(dir, "SoloGen_expert"))
          .filter((c) => c.status === "failure")
          .map((c) => c.reason?.code),
      );
      expect([...reasons]).toEqual(["ineffective"]);
    });
  });
}
