// Fairness of the incidents outside the pod template whose cause is what a process read when it
// started (docs/incident-tier.md), through the CLI on the embedded cluster at --speed 600:
//   template-secret-rotated  a Secret both sides of a password read at start, rotated with only
//                            the client restarted: the store still requires the old password.
// The oracle repairs it from what the agent reads (models/oracle/secret.py: the running
// containers' environment, read through exec, against the Secret's data now; the stale side
// restarted), at the full and the symptom report level; noop and the runbook do not (its undo
// takes the newest rollout, a benign one; every workload stays Ready); and the tempting wrong
// fixes fail for their stated reasons:
//   restarting the client whose logs show the errors: its new pods read the same rotated Secret,
//   the store still holds the old password (WRONGPASS);
//   undoing the client's rollout (the deploy that added the password): it then sends none (NOAUTH).
// Sources: kubernetes pkg/kubelet/kubelet_pods.go makeEnvironmentVariables (envFrom and
// secretKeyRef read when the container is created, $(VAR) expanded from earlier entries), Kubernetes
// docs, Secrets (a Secret consumed as environment variables is not updated in a running
// container); redis src/acl.c (WRONGPASS) and src/server.c processCommand (NOAUTH);
// kubectl/pkg/polymorphichelpers/rollback.go (rollout undo: the previous revision's template).
//   template-mounted-file    Train-Ticket's tsdb-mysql option file (a ConfigMap mounted into its
//                            conf.d) edited long ago to bind-address = 127.0.0.1, read when the
//                            server restarted: the oracle (models/oracle/started.py) fixes the file
//                            and restarts the server; noop and the runbook (its restart of what is
//                            not Ready reads the same file) do not; restarting alone and fixing the
//                            file alone each leave the server bound to loopback.
// Sources: docker-library/mysql Dockerfile.oracle (!includedir /etc/mysql/conf.d/), MySQL's option
// files read at server start (mysys/my_default.cc), the radondb chart's node.cnf in Train-Ticket.
// At the symptom level the oracle's expert repair runs first; it waits only for a rollout it made,
// so the Deployment only the detectors can make Ready does not hold it to its 600 s limit.
import { join } from "node:path";
import { execa } from "execa";
import { describe, expect, it } from "vitest";
import { readCases, tmp, write } from "../cli/cli-helpers.js";
import { look, traces } from "../fingerprints/look.js";
import { playbook, runOne } from "./incident.js";

const ROTATED = "template-secret-rotated";
const MOUNTED = "template-mounted-file";

/** One scenario on a system with a built-in model, through `run`; its records. */
async function runModel(env: string, scenario: string, model: string, extra: string[] = []) {
  const dir = tmp(`mr-secret-${model}-`);
  const exp = write(dir, "incident.txt", `${scenario}\n`);
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

describe("template-secret-rotated on Online-Boutique", () => {
  it("the oracle restarts the store, the side that still holds the old password, and nothing else", async () => {
    const [c] = await runModel("online-boutique", ROTATED, "oracle");
    expect(c.status, JSON.stringify(c.reason)).toBe("success");
    expect(c.localization?.localized, JSON.stringify(c.localization)).toBe(true);
    expect(c.localization?.changed).toEqual(["patch deployments/redis-cart"]);
  });

  it("from the symptom level's alert too", async () => {
    const [c] = await runModel("online-boutique", ROTATED, "oracle", ["--report", "symptom"]);
    expect(c.status, JSON.stringify(c.reason)).toBe("success");
  });

  it("noop repairs nothing: the store refuses its client's password", async () => {
    const [c] = await runModel("online-boutique", ROTATED, "noop");
    expect(c.status).toBe("failure");
    expect(c.reason?.code).toBe("ineffective");
    expect(c.reason?.detail).toMatch(/the store does not answer its client at redis-cart:6379/);
  });

  it("the runbook repairs nothing: its undo takes the newest rollout, a benign one", async () => {
    const [c] = await runModel("online-boutique", ROTATED, "runbook");
    expect(c.status).toBe("failure");
    expect(c.reason?.code).toBe("ineffective");
  });
});

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
  it("the oracle fixes the file and restarts the server, both causes and nothing else", async () => {
    const [c] = await runModel("train-ticket", MOUNTED, "oracle");
    expect(c.status, JSON.stringify(c.reason)).toBe("success");
    expect(c.localization?.localized, JSON.stringify(c.localization)).toBe(true);
  });

  it("from the symptom level's alert too (the expert repair first leaves the rollout to the detectors)", async () => {
    const [c] = await runModel("train-ticket", MOUNTED, "oracle", ["--report", "symptom"]);
    expect(c.status, JSON.stringify(c.reason)).toBe("success");
  });

  it("noop and the runbook repair nothing: the server stays bound to loopback, not Ready", async () => {
    for (const model of ["noop", "runbook"]) {
      const [c] = await runModel("train-ticket", MOUNTED, model);
      expect(c.status, model).toBe("failure");
      expect(c.reason?.code, model).toBe("ineffective");
      expect(c.reason?.detail, model).toMatch(/tsdb-mysql is not serving as deployed/);
    }
  });

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
