// In the sweep (by hand), not the tier lane: the scenario runs on Online-Boutique only (the one
// system with a load generator), and the tier lane keeps to Simple-Micro.
// load-batch-window (docs/incident-tier.md) through the CLI on the embedded cluster at --speed 600:
// the tempting wrong fixes fail for their stated reasons, and a fix of the job's setting holds (the
// oracle, noop and the runbook over Online-Boutique: test/sweep/incident.test.ts):
//   restart          a rolling restart of the alerting frontend: the next run of the warmup job
//                    (every 10 minutes, within the 1800 s hold) times its pages out again;
//   scale the alert  the frontend at three replicas: what it calls (the catalog, recommendations,
//                    checkout) still saturates while a run lasts;
//   look and wait    nothing changed because the namespace looks healthy between runs: the next
//                    run fails the users again (noop's outcome, by a model that only read);
//   put it back      the job's users set back to a handful (kubectl set env on the CronJob): the
//                    runs still come, and the frontend serves them (the canonical fix but for suspend).
// Sources: kubernetes pkg/controller/cronjob (a run every schedule tick, concurrencyPolicy Forbid),
// pkg/controller/job (activeDeadlineSeconds: the pods deleted, DeadlineExceeded); kubectl's
// set env (polymorphichelpers: a CronJob's job template); microservices-demo src/loadgenerator
// (locust -u ${USERS}, a closed loop of users).
import { describe, expect, it } from "vitest";
import { playbook, runOne } from "../tiers/incident.js";

const OB = "online-boutique";
const SCENARIO = "load-batch-window";
const WRONG = ["ineffective", "not-held"];

/** The wrong fixes, each failing because the next run of the job times the users out again. */
const WRONG_FIXES: [string, string][] = [
  [
    "restarting the frontend: the next run fails its pages again",
    `
- name: restart the frontend
  ansible.builtin.command: kubectl -n {{namespace}} rollout restart deployment/frontend
- name: wait for it
  ansible.builtin.command: kubectl -n {{namespace}} rollout status deployment/frontend --timeout=120s
`,
  ],
  [
    "scaling the alerting frontend out: what it calls still saturates during a run",
    `
- name: scale the frontend out
  ansible.builtin.command: kubectl -n {{namespace}} scale deployment/frontend --replicas=3
- name: wait for it
  ansible.builtin.command: kubectl -n {{namespace}} rollout status deployment/frontend --timeout=120s
`,
  ],
  [
    "changing nothing because it looks healthy between runs: the next run fails the users again",
    `
- name: look at the pods
  ansible.builtin.command: kubectl -n {{namespace}} get pods
`,
  ],
];

describe("load-batch-window on Online-Boutique: a warmup CronJob's runs time the storefront out", () => {
  for (const [title, tasks] of WRONG_FIXES)
    it(title, async () => {
      const [c] = await runOne(OB, SCENARIO, playbook(tasks));
      expect(c.status).toBe("failure");
      // at --speed 600 a reading of what users see spans minutes of cluster time (each request an
      // exec), so the first reading itself usually meets a run (ineffective); else the hold does
      expect(WRONG).toContain(c.reason?.code);
    }, 1_200_000);

  it("the job's users put back to a handful: its runs go on and the storefront serves them", async () => {
    const [c] = await runOne(
      OB,
      SCENARIO,
      playbook(`
- name: the warmup's users back to a handful
  ansible.builtin.command: kubectl -n {{namespace}} set env cronjob/storefront-cache-warmup USERS=10
- name: the run under way, if any, stopped
  ansible.builtin.shell: >-
    kubectl -n {{namespace}} get jobs -o jsonpath='{range .items[?(@.status.active)]}{.metadata.name}{"\\n"}{end}'
    | xargs -r kubectl -n {{namespace}} delete job
`),
    );
    expect(c.status, JSON.stringify(c.reason)).toBe("success");
  }, 1_200_000);
});
