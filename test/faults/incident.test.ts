// The incident tier's scenarios as data (chaos/incidents.yaml, docs/incident-tier.md): the file's
// schema, each scenario's placement on the systems (env.yaml incidentTargets), its placeholders,
// and the parts of the steps that need no cluster (the manifest merge of an `apply`). The steps
// on a cluster, and their restore, are test/faults/incident-steps.test.ts's.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadEnv } from "../../src/envs/env.js";
import { catalog } from "../../src/faults/catalog.js";
import {
  FAMILIES,
  fillValue,
  incidents,
  renderScenario,
  scenarioPlaceholders,
} from "../../src/faults/incident.js";
import { inject } from "../../src/faults/inject.js";
import { mergeManifest } from "../../src/faults/steps.js";
import type { KubeClient } from "../../src/kube/client.js";
import { inapplicable, parseExperimentText, planCases, targetVars } from "../../src/runner/experiments.js";
import { packageRoot } from "../../src/util/paths.js";

const SYSTEMS = ["simple-micro", "online-boutique", "train-ticket"].map((s) => loadEnv(s));
/** Scenarios whose parts only one system has, and why. */
const ONE_SYSTEM: Record<string, string> = {
  "load-surge": "only Online-Boutique has a load generator (Locust's USERS)",
  "load-retry-storm": "only Train-Ticket has a client whose retries are settings (its gateway)",
  "far-store-maxmemory":
    "only Online-Boutique has redis, whose runtime CONFIG it is (its family has two others)",
  "load-heap-oom":
    "only Train-Ticket has a JVM on the users' path (Online-Boutique's adservice fails no page: the frontend ignores its ads' errors)",
  "template-secret-rotated":
    "only Online-Boutique's simulated store checks a password (Train-Ticket's MySQL does not yet)",
  "template-mounted-file":
    "only Train-Ticket mounts a configuration file its application reads at start (its MySQL's node.cnf)",
  "load-hpa-capacity":
    "only Online-Boutique has a load source whose demand rises past the caps (Locust's USERS)",
  "load-batch-window":
    "only Online-Boutique has a load generator whose image a CronJob can run (Locust's USERS)",
  "herring-needed-change":
    "only Online-Boutique's simulated store checks a password, the change that must stay (Train-Ticket's MySQL does not yet)",
};

describe("chaos/incidents.yaml", () => {
  it("every scenario is a failure of the incident tier, of a known family, with causes and a hold", () => {
    expect(incidents().size).toBeGreaterThanOrEqual(3);
    for (const s of incidents().values()) {
      expect(FAMILIES).toContain(s.family);
      expect(s.causes.length, s.id).toBeGreaterThan(0);
      expect(s.hold, s.id).toBeGreaterThanOrEqual(60);
      expect(catalog().get(s.id)?.tier, s.id).toBe("incident");
      expect(s.sources.length, `${s.id} names its sources`).toBeGreaterThan(0);
    }
  });

  it("applies each scenario to at least two systems, each with a value for every placeholder", () => {
    for (const s of incidents().values()) {
      const where = SYSTEMS.filter((e) => e.faultTargets[s.id]?.length);
      // the far scenarios need depth Simple-Micro lacks; each still has two systems, but for
      // those whose parts only one system has (ONE_SYSTEM)
      expect(where.length, `${s.id} applies to ${where.map((e) => e.name)}`).toBeGreaterThanOrEqual(
        ONE_SYSTEM[s.id] ? 1 : 2,
      );
      for (const env of where)
        for (const alert of env.faultTargets[s.id]) {
          const vars = targetVars(env, s.id, alert) ?? {};
          const r = renderScenario(s, vars);
          expect(scenarioPlaceholders(r), `${s.id} on ${env.name}`).toEqual([]);
          // what the steps name exists in the system: the alert, the causes' workloads
          const names = env.manifests.map((m) => `${m.kind}/${m.metadata?.name}`);
          expect(names, `${s.id} on ${env.name}`).toContain(`Deployment/${alert}`);
          // or made by a step (a config agent's source ConfigMap, a CronJob)
          const made = r.steps.flatMap((st) =>
            st.do === "create" ? st.objects.map((o) => `${o.kind}/${o.metadata?.name}`) : [],
          );
          for (const c of r.causes)
            expect([...names, ...made], `${s.id} on ${env.name}`).toContain(`${c.kind}/${c.name}`);
        }
    }
  });

  it("every cause is made by a step that is not benign, and no benign step touches a cause", () => {
    for (const s of incidents().values())
      for (const env of SYSTEMS.filter((e) => e.faultTargets[s.id]?.length)) {
        const alert = env.faultTargets[s.id][0];
        const r = renderScenario(s, targetVars(env, s.id, alert) ?? {});
        // what a step touches: the object it names, the objects it creates, the workload it execs in
        const touches = (b: boolean) =>
          r.steps
            .filter((st) => !!st.benign === b)
            .flatMap((st) =>
              st.do === "create"
                ? st.objects.map((o) => `${o.kind}/${o.metadata?.name}`)
                : st.do === "exec"
                  ? [`Deployment/${st.app}`]
                  : "kind" in st
                    ? [`${st.kind}/${st.name}`]
                    : [],
            );
        // a created object acts on what it names (a CronJob scaling a Deployment): that is made by it
        const created = r.steps.filter((st) => !st.benign && st.do === "create");
        const madeBy = (c: { kind: string; name: string }) =>
          created.some((st) =>
            (st as { objects: { kind: string; metadata?: { name?: string } }[] }).objects.some(
              (o) =>
                o.metadata?.name === c.name ||
                JSON.stringify(o).includes(`${c.kind.toLowerCase()}/${c.name}`),
            ),
          );
        for (const c of r.causes) {
          if (madeBy(c)) continue;
          expect(touches(false), `${s.id} on ${env.name}`).toContain(`${c.kind}/${c.name}`);
          // an annotation edit of the alert is a red herring; it may touch the cause's Deployment
          // only where the cause is the alert itself (Simple-Micro's herring), and changes no template
        }
        // the herrings come after the causal change, which is older by a wait
        const firstBenign = r.steps.findIndex((st) => st.benign);
        const wait = r.steps.findIndex((st) => st.do === "wait");
        if (firstBenign >= 0) expect(wait, s.id).toBeLessThan(firstBenign);
      }
  });

  it("fills a placeholder that is a whole value with the value as it is, and one in text as text", () => {
    expect(fillValue({ a: "[p]", b: "svc:[p]", c: ["[q]"] }, { p: 50052, q: "x" })).toEqual({
      a: 50052,
      b: "svc:50052",
      c: ["x"],
    });
    expect(fillValue("[unknown]", {})).toBe("[unknown]");
  });

  it("an incident is run as a case, not injected alone", async () => {
    const f = catalog().get("herring-old-change")!;
    await expect(inject({} as KubeClient, f, "ns", "hello-service")).rejects.toThrow(/incident scenario/);
  });
});

describe("experiments/incident.txt", () => {
  it("plans each system's applicable scenarios, its alert as the target, and says which do not apply", () => {
    const exp = parseExperimentText(
      "far-targetport\nmulti-masked\nherring-old-change\n",
      "experiments/incident.txt",
    );
    const [sm, ob] = SYSTEMS;
    expect(inapplicable(exp, sm)).toEqual(["far-targetport"]);
    expect(inapplicable(exp, ob)).toEqual([]);
    const cases = planCases(exp, sm, 42);
    expect(cases.map((c) => c.faults[0].failure)).toEqual(["multi-masked", "herring-old-change"]);
    expect(cases[0].faults[0].target).toBe("hello-service");
    expect(cases[0].faults[0].vars).toMatchObject({ alert: "hello-service", callee: "time-service" });
  });
});

describe("an apply step's manifest", () => {
  it("merges lists of named items by name and replaces other lists, as a developer edits the file", () => {
    const base = {
      spec: {
        ports: [{ name: "grpc", port: 50051, targetPort: 50051 }],
        containers: [{ name: "server", env: [{ name: "A", value: "1" }], args: ["x"] }],
      },
    };
    const merged = mergeManifest(base, {
      spec: {
        ports: [{ name: "grpc", targetPort: 50052 }],
        containers: [
          {
            name: "server",
            env: [
              { name: "A", value: "2" },
              { name: "B", value: "3" },
            ],
            args: ["y"],
          },
        ],
      },
    });
    expect(merged).toEqual({
      spec: {
        ports: [{ name: "grpc", port: 50051, targetPort: 50052 }],
        containers: [
          {
            name: "server",
            env: [
              { name: "A", value: "2" },
              { name: "B", value: "3" },
            ],
            args: ["y"],
          },
        ],
      },
    });
    // the base is left as it was
    expect(base.spec.ports[0].targetPort).toBe(50051);
  });
});

describe("the README's incident table", () => {
  it("counts, per scenario and system, the alerts each env.yaml lists", () => {
    const text = readFileSync(join(packageRoot(), "README.md"), "utf8");
    const section = text.slice(text.indexOf("### The incident tier"));
    for (const s of incidents().values()) {
      const row = section.split("\n").find((l) => l.startsWith(`| ${s.id} |`));
      expect(row, s.id).toBeDefined();
      const cells = row!
        .split("|")
        .slice(3, 6)
        .map((c) => c.trim());
      expect(cells, s.id).toEqual(SYSTEMS.map((e) => String(e.faultTargets[s.id]?.length ?? "—")));
    }
  });
});
