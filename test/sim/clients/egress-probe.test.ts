// A case on the embedded cluster whose model probes the network as models do (pinging a public
// resolver from the target pod): through `microremed run` with a scripted ThinkRemed model, a
// network-delay case (the shipped NetworkChaos template: 1000 ms on every packet leaving the pod,
// direction `to` and no target, so the egress to outside addresses too: Chaos Mesh's netem sits
// on the pod's interface, https://chaos-mesh.org/docs/simulate-network-chaos-on-kubernetes/).
// The probe sees the delay while the fault is on; the playbook replaces the injected pod (Chaos
// Mesh's qdisc lives in that pod's network namespace) and pings again from the new one, failing
// unless the link is clean (0% loss), as the reference runner's check requires.
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import { beforeAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import type { CaseRecord } from "../../../src/runlog/records.js";
import { CLI, checkBuilt } from "../../cli/cli-helpers.js";
import { parsePing } from "../helpers/failures.js";

const PING = "kubectl exec deploy/{{service}} -c sidecar-busybox -- ping -c 3 -W 2 8.8.8.8";
const FIX = `- hosts: localhost
  gather_facts: false
  tasks:
    - command: kubectl rollout restart deployment/{{service}} -n {{namespace}}
    - command: kubectl rollout status deployment/{{service}} -n {{namespace}} --timeout=600s
    - command: kubectl -n {{namespace}} ${PING.replace("kubectl ", "")}
      register: ping
      failed_when: "' 0% packet loss' not in ping.stdout"
    - debug: { var: ping.stdout }
`;

let dir: string;
beforeAll(() => {
  checkBuilt();
  dir = mkdtempSync(join(tmpdir(), "egress-probe-"));
  writeFileSync(
    join(dir, "one.yaml"),
    stringify({ cases: [{ failure: "network-delay", target: "time-service" }] }),
  );
});

describe("a model's probe pings a public address", { timeout: 300_000 }, () => {
  it("sees the delay while the fault is on, and the playbook's ping after the fix sees a clean link", async () => {
    const script = join(dir, "script.yaml");
    const usage = { inputTokens: 100, outputTokens: 10 };
    writeFileSync(
      script,
      stringify({
        turns: [
          { toolCalls: [{ name: "probe_system", arguments: { command: PING } }], usage },
          { toolCalls: [{ name: "print_playbook", arguments: { playbook: FIX } }], usage },
        ],
      }),
    );
    const r = await execa(
      process.execPath,
      [
        CLI,
        "run",
        "--env",
        "simple-micro",
        "--remediate-method",
        "ThinkRemed",
        "--model",
        `scripted:${script}`,
        "--experiment-path",
        join(dir, "one.yaml"),
        "--speed",
        "60",
        "--save-path",
        dir,
        "--run-name",
        "probe",
      ],
      { reject: false, all: true, timeout: 280_000 },
    );
    const file = join(dir, "probe", "cases.jsonl");
    expect(existsSync(file), r.all).toBe(true);
    const rec = JSON.parse(readFileSync(file, "utf8").trim().split("\n")[0]) as CaseRecord;
    const convo = JSON.parse(readFileSync(join(dir, "probe", "case-001", "conversation.json"), "utf8"));
    const observation: string = convo.conversation.find((m: { role: string }) => m.role === "tool").content;
    // the probe, while the fault is on: every echo request waits 1000 ms in the pod's egress
    expect(observation).toContain("PING 8.8.8.8 (8.8.8.8): 56 data bytes");
    const during = parsePing(observation);
    expect(during, observation).toMatchObject({ sent: 3, received: 3, loss: 0 });
    expect(during!.avg).toBeGreaterThan(1000);
    // after the fix the playbook's own ping passed its 0%-loss check, at an ordinary round trip
    expect(rec.status, r.all).toBe("success");
    const log = readFileSync(join(dir, "probe", "case-001", "playbook-1.log"), "utf8");
    const after = parsePing(log.replace(/\\n/g, "\n"));
    expect(after, log).toMatchObject({ sent: 3, received: 3, loss: 0 });
    expect(after!.avg).toBeLessThan(50);
  });
});
