// The harness leaves no fingerprint where a model looks. A cmd: agent, acting as the
// case's identity, looks at its sandbox, its kubeconfig, the namespace's objects and events, the
// node, and inside every container (processes, mounts, disk use, scratch folders, logs) after the
// fault is in and its checks have run: nothing names the harness, the run's folder or a case
// number. The IO fault's check (a write into the volume) leaves no file; the sandbox's working
// folder, its PID 1's command line and its environment hold no host path; the kubeconfig's
// context keeps the namespace, as an on-call engineer's does; the playbook's environment and
// processes, as ansible runs it, name nothing either. Every type of every system: the
// tier lane (test/tiers/fingerprints.test.ts).
import { beforeAll, describe, expect, it } from "vitest";
import { checkBuilt } from "../cli/cli-helpers.js";
import { type Looked, look, traces } from "./look.js";

beforeAll(checkBuilt);

describe("what a model sees on Simple-Micro", () => {
  let looked: Looked;
  beforeAll(async () => {
    looked = await look(
      "simple-micro",
      "cases:\n  - {failure: disk-io, target: time-service}\n  - {failure: cpu-stress, target: time-service}\n",
    );
  }, 600_000);

  it("names neither the harness nor the run, in the cluster or in the sandbox", () => {
    for (const seen of looked.seen) expect(traces(seen, looked.saveDir)).toEqual([]);
  });

  it("shows the IO fault as Chaos Mesh does (toda's FUSE mount), and no file of the check", () => {
    const seen = looked.seen[0];
    expect(seen).toMatch(/^toda \/var\/log\/mysql fuse /m);
    // the volume the check writes into was listed
    expect(seen).toMatch(/^\/var\/log\/mysql:$/m);
    const scratch = seen.split("\n").filter((l) => /tmp\.[A-Za-z0-9]{10}/.test(l));
    expect(scratch).toEqual([]);
  });

  it("gives the agent a neutral working folder, a bare PID 1 and its namespace in the kubeconfig", () => {
    const seen = looked.seen[1];
    const self = seen.slice(seen.indexOf("== self"));
    expect(self).toMatch(/^PWD=\/run\/ansible\/work$/m);
    expect(self).toMatch(/^root +1 .*bwrap --args 4 -- \/usr\/bin\/python3 /m);
    expect(self).not.toMatch(/RUSAGE/);
    // the playbook ran and looked: ansible's environment is in what it printed
    const played = seen.slice(seen.indexOf("== playbook"));
    expect(played).toMatch(/"ANSIBLE_CALLBACKS_ENABLED=task_results"/);
    expect(played).toMatch(/"TASK_RESULTS_FILE=/);
    // pods listed without -n: the context's namespace is the case's
    expect(seen).toMatch(/^== pod\/time-service-/m);
    expect(seen).toMatch(/namespace: simple-micro/);
  });
});
