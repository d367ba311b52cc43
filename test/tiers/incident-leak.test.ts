// The incident tier's heap leak (docs/incident-tier.md, load-heap-oom) through the CLI on the
// embedded cluster at --speed 600, on Train-Ticket: a deploy long before raised a service's JVM heap
// maximum above its memory limit, and the kernel OOM-kills it every few minutes. The oracle reads
// the container's command line, its limit and its pods' OOMKilled state and puts back the earlier
// revision's command line, at the full and the symptom level; noop and the runbook baseline fail
// (its undo takes the newest rollout, a benign one: the service's own logging change keeps the
// heap flag); the tempting wrong fix, a restart, passes at first and is OOM-killed within the hold.
// Sources: FudanSELab/train-ticket ts-*-service/Dockerfile (CMD java -Xmx200m -jar, which a
// container's args replace); the JDK's JAVA_TOOL_OPTIONS (prepended: the command line's -Xmx
// wins); the memory cgroup's OOM killer (mm/memcontrol.c: SIGKILL, exit 137, OOMKilled); kubectl's
// rollout undo (kubectl/pkg/polymorphichelpers/rollback.go: the previous revision only).
import { join } from "node:path";
import { execa } from "execa";
import { describe, expect, it } from "vitest";
import { readCases, tmp, write } from "../cli/cli-helpers.js";
import { RESTART_ALERT, runOne } from "./incident.js";

const ENV = "train-ticket";
const SCENARIO = "load-heap-oom";

/** The scenario with a built-in model, through `run`; its records. */
async function runModel(model: string, extra: string[] = []) {
  const dir = tmp(`mr-leak-${model}-`);
  const exp = write(dir, "incident.txt", `${SCENARIO}\n`);
  const r = await execa(
    process.execPath,
    [
      "dist/src/cli/main.js",
      "run",
      "--env",
      ENV,
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

describe("load-heap-oom on Train-Ticket: a heap maximum above the memory limit", () => {
  it("the oracle puts back the earlier revision's command line; no OOM over the hold, at the full and symptom levels", async () => {
    for (const report of ["full", "symptom"]) {
      const [c] = await runModel("oracle", ["--report", report]);
      expect(c.status, `${report}: ${JSON.stringify(c.reason)}`).toBe("success");
      if (report === "full") expect(c.localization?.localized, JSON.stringify(c.localization)).toBe(true);
    }
  }, 2_400_000);

  it("noop and the runbook fail: the runbook's undo takes a benign rollout, the heap flag stays", async () => {
    for (const m of ["noop", "runbook"]) {
      const [c] = await runModel(m);
      expect(c.status, m).toBe("failure");
      // between two kills the pod serves: the checks may pass first, then the hold sees the kill
      expect(["ineffective", "not-held"], `${m}: ${JSON.stringify(c.reason)}`).toContain(c.reason?.code);
    }
  }, 2_400_000);

  it("a restart looks like a fix, then the new pod is OOM-killed within the hold", async () => {
    const restart = RESTART_ALERT.replaceAll("{{service}}", "ts-basic-service").replace(
      "--timeout=120s",
      "--timeout=600s",
    );
    const [c] = await runOne(ENV, SCENARIO, restart);
    expect(c.status).toBe("failure");
    // the fresh pod passes at first; it is killed in the hold (not-held: "ts-basic-service-…
    // restarted"), or before the checks first pass (ineffective: the search fails meanwhile)
    expect(["ineffective", "not-held"], JSON.stringify(c.reason)).toContain(c.reason?.code);
    expect(JSON.stringify(c.reason)).toMatch(
      /ts-basic-service[^"]*restarted|search: \d of \d requests failed/,
    );
  }, 1_200_000);
});
