// Fairness of the incident tier's "the fix does not stick" family (docs/incident-tier.md), on
// Simple-Micro through `microremed run` on the embedded cluster: each tempting wrong fix fails for
// its stated reason (the oracle, whose detectors find the source, the config agent's ConfigMap and
// the CronJob, noop and the runbook: Simple-Micro's fairness run, test/tiers/incident.test.ts):
//   config drift  patching the caller's env: the agent sets it back within 30 s;
//                 scaling the agent to 0 first: the namespace's health (the agent is part of it);
//                 the wrong port exposed on the callee's Service: the agent writes its ports list
//                 whole (a JSON merge patch replaces lists: RFC 7386), within 30 s;
//   cronjob       scaling the service back up: the next run scales it to 0 within the hold.
// Sources: kubectl set env (staging/src/k8s.io/kubectl/pkg/cmd/set/set_env.go: a patch of the
// template, no last-applied change), the CronJob controller
// (pkg/controller/cronjob/cronjob_controllerv2.go: a Job per schedule time, none while suspended),
// SREGym's configmap_drift, Argo CD's self-heal (live drift reverted at the next sync).
import { describe, expect, it } from "vitest";
import { playbook, runScenarios, scripted } from "./incident.js";

const SCENARIOS = ["sticks-config-drift", "sticks-cronjob"];

/** The family's scenarios (or some) on a system with a model, through `run`; its records. */
const runSticks = (env: string, model: string, scenarios = SCENARIOS, extra: string[] = []) =>
  runScenarios(env, scenarios, model, extra);

/** The caller's address set right on the Deployment, under the agent that re-applies the ConfigMap. */
const PATCH_CALLER = playbook(`
- name: set the address right
  ansible.builtin.command: kubectl -n {{namespace}} set env deployment/hello-service TIME_SERVICE_ADDR=time-service:5001
- name: wait for it
  ansible.builtin.command: kubectl -n {{namespace}} rollout status deployment/hello-service --timeout=120s
`);

/** The agent scaled away, then the caller's address set right: it sticks, the namespace is short of its agent. */
const SCALE_AGENT_AWAY = playbook(`
- name: stop the agent
  ansible.builtin.command: kubectl -n {{namespace}} scale deployment/platform-sync --replicas=0
- name: set the address right
  ansible.builtin.command: kubectl -n {{namespace}} set env deployment/hello-service TIME_SERVICE_ADDR=time-service:5001
- name: wait for it
  ansible.builtin.command: kubectl -n {{namespace}} rollout status deployment/hello-service --timeout=120s
`);

/** The wrong port exposed on the callee's Service (what the caller dials, sent to what it serves). */
const ALIAS_PORT = playbook(`
- name: serve the port the caller dials too
  ansible.builtin.command: >-
    kubectl -n {{namespace}} patch service/time-service --type=json
    -p '[{"op":"add","path":"/spec/ports/-","value":{"name":"http-alias","port":5002,"targetPort":5001}}]'
`);

/** The service scaled back up, the CronJob left as it is. */
const SCALE_UP = playbook(`
- name: scale the service back up
  ansible.builtin.command: kubectl -n {{namespace}} scale deployment/time-service --replicas=1
- name: wait for it
  ansible.builtin.command: kubectl -n {{namespace}} rollout status deployment/time-service --timeout=120s
`);

describe("the sticks family's wrong fixes fail for their stated reasons", () => {
  it("patching the caller under the config agent is reverted within the hold", async () => {
    const [c] = await runSticks("simple-micro", scripted(PATCH_CALLER), ["sticks-config-drift"]);
    expect(c.status).toBe("failure");
    expect(c.reason?.code).toBe("ineffective");
    // the caller's calls through the reverted address, or its users while the revert rolls out
    expect(c.reason?.detail).toMatch(/TIME_SERVICE_ADDR|users see failures: hello/);
  });

  it("scaling the agent away makes the fix stick but costs the namespace its agent", async () => {
    const [c] = await runSticks("simple-micro", scripted(SCALE_AGENT_AWAY), ["sticks-config-drift"]);
    expect(c.status).toBe("failure");
    expect(c.reason?.detail).toMatch(/platform-sync was scaled from 1 to 0/);
    expect(c.reason?.detail).not.toMatch(/TIME_SERVICE_ADDR/);
  });

  it("exposing the wrong port on the callee's Service is reverted too: the agent writes the ports list whole", async () => {
    const [c] = await runSticks("simple-micro", scripted(ALIAS_PORT), ["sticks-config-drift"]);
    expect(c.status).toBe("failure");
    // the first reading may come before the agent's next round (not-held) or after it (ineffective)
    expect(["ineffective", "not-held"]).toContain(c.reason?.code);
    expect(c.reason?.detail).toMatch(/TIME_SERVICE_ADDR|users see failures: hello/);
  });

  it("scaling the service back up under the CronJob is undone at its next run", async () => {
    const [c] = await runSticks("simple-micro", scripted(SCALE_UP), ["sticks-cronjob"]);
    expect(c.status).toBe("failure");
    expect(c.reason?.code).toBe("ineffective");
  });
});
