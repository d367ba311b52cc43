import { describe, expect, it } from "vitest";
import { look, traces } from "../fingerprints/look.js";
import { playbook, runOne } from "./incident.js";

const ROTATED = "template-secret-rotated";
const MOUNTED = "template-mounted-file";

describe("template-secret-rotated's wrong fixes fail for their stated reasons", () => {
  it("restarting the client whose logs show the errors: it reads the same rotated Secret again", async () => {
    const [c] = await runOne(
      "online-boutique",
      ROTATED,
      playbook(`
- name: restart the cart service
  ansible.builtin.command: kubectl -n {{namespace}} rollout restart deployment/cartservice
- name: wait for it
  ansible.builtin.command: kubectl -n {{namespace}} rollout status deployment/cartservice --timeout=300s`),
    );
    expect(c.status).toBe("failure");
    expect(c.reason?.code).toBe("ineffective");
    expect(c.reason?.detail).toMatch(/the store does not answer its client/);
  });

  it("undoing the client's rollout: the deploy that added the password goes, it sends none", async () => {
    const [c] = await runOne(
      "online-boutique",
      ROTATED,
      playbook(`
- name: undo the cart service's rollout
  ansible.builtin.command: kubectl -n {{namespace}} rollout undo deployment/cartservice
- name: wait for it
  ansible.builtin.command: kubectl -n {{namespace}} rollout status deployment/cartservice --timeout=300s`),
    );
    expect(c.status).toBe("failure");
    expect(c.reason?.detail).toMatch(/the store does not answer its client/);
  });
});

it("no trace of the harness after the story, where a model looks", async () => {
  const { seen, saveDir } = await look(
    "online-boutique",
    `cases:\n  - {failure: ${ROTATED}, target: frontend}\n`,
  );
  expect(seen.length).toBe(1);
  expect(traces(seen[0], saveDir)).toEqual([]);
  // what the agent needs to see is there: the Secret both sides take their password from
  expect(seen[0]).toMatch(/secretRef:\s+name: redis-cart-auth/);
});

describe("template-mounted-file on Train-Ticket", () => {
  it("restarting the server alone: it reads the same file again", async () => {
    const [c] = await runOne(
      "train-ticket",
      MOUNTED,
      playbook(`
- name: restart the database
  ansible.builtin.command: kubectl -n {{namespace}} rollout restart deployment/tsdb-mysql`),
    );
    expect(c.status).toBe("failure");
    expect(c.reason?.detail).toMatch(/tsdb-mysql is not serving as deployed/);
  });

  it("fixing the file alone: the running server keeps what it read at start", async () => {
    const cnf =
      "[mysqld]\\nbind-address = 0.0.0.0\\ndefault_storage_engine=InnoDB\\nmax_connections=65535\\n";
    const [c] = await runOne(
      "train-ticket",
      MOUNTED,
      playbook(`
- name: fix the option file
  ansible.builtin.command: >-
    kubectl -n {{namespace}} patch configmap tsdb-mysql --type merge
    -p '{"data":{"node.cnf":"${cnf}"}}'`),
    );
    expect(c.status).toBe("failure");
    expect(c.reason?.detail).toMatch(/tsdb-mysql is not serving as deployed/);
  });
});
