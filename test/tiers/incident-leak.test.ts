// The incident tier's heap leak (docs/incident-tier.md, load-heap-oom) through the CLI on the
// embedded cluster at --speed 600, on Train-Ticket: a deploy long before raised a service's JVM heap
// maximum above its memory limit, and the kernel OOM-kills it every few minutes. The tempting wrong
// fix, a restart, passes at first and is OOM-killed within the hold. (The oracle, noop and the
// runbook on it: test/sweep/incident.test.ts, with Train-Ticket's other incidents, by hand.)
// Sources: FudanSELab/train-ticket ts-*-service/Dockerfile (CMD java -Xmx200m -jar, which a
// container's args replace); the JDK's JAVA_TOOL_OPTIONS (prepended: the command line's -Xmx
// wins); the memory cgroup's OOM killer (mm/memcontrol.c: SIGKILL, exit 137, OOMKilled); kubectl's
// rollout undo (kubectl/pkg/polymorphichelpers/rollback.go: the previous revision only).
import { describe, expect, it } from "vitest";
import { RESTART_ALERT, runOne } from "./incident.js";

const ENV = "train-ticket";
const SCENARIO = "load-heap-oom";

describe("load-heap-oom on Train-Ticket: a heap maximum above the memory limit", () => {
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
