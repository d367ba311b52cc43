// Cases start equal, and chaos stays out of sight, through the CLI on the embedded cluster
// (`microremed sim`, then `run --cluster kube` against it, so the test can look as an admin too).
// A cmd: agent, the same in every case, first records what the case's identity sees (deploy, rs,
// svc, netpol, cm as YAML, `kubectl rollout history` of every Deployment, the namespace's events,
// and its tries at Chaos Mesh's namespace), then leaves behind what a model might: an env change
// with a change-cause, a Recreate strategy, a ConfigMap, a NetworkPolicy, a label on a Service,
// a deleted pod. The plan is cpu-stress, then a different case (bad-command, which patches its
// target with Recreate), then cpu-stress again: the third case must see what the first saw,
// names and times aside (pods, uids, timestamps, generations are the API server's on create).
// Chaos Mesh's objects live in its own namespace and select the case's
// (api/v1alpha1/common_webhook.go PodSelector.Default, pkg/selector/pod/selector.go), and its
// recorder writes their events beside them (controllers/utils/recorder/recorder.go makeEvent).
import { chmodSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse, stringify } from "yaml";
import { checkBuilt, cli, readCases, type SimCluster, startSim, tmp, write } from "./cli-helpers.js";

const AGENT = `#!/bin/sh
set -u
report=$(cat)
ns=$(printf '%s' "$report" | python3 -c "import json, sys; print(json.load(sys.stdin)['namespace'])")
kubectl -n "$ns" get deploy,rs,svc,netpol,cm -o yaml > state.yaml
for d in $(kubectl -n "$ns" get deploy -o name); do
  echo "== $d"; kubectl -n "$ns" rollout history "$d"
done > history.txt
kubectl -n "$ns" get events -o yaml > events.yaml
kubectl -n chaos-mesh get events > chaos-events.txt 2>&1
kubectl get stresschaos,httpchaos,networkchaos -A > chaos-list.txt 2>&1
# what a model might leave behind
kubectl -n "$ns" set env deployment/hello-service LEFTOVER=1 >&2
kubectl -n "$ns" annotate deployment/hello-service kubernetes.io/change-cause="leftover fix" --overwrite >&2
kubectl -n "$ns" patch deployment time-service -p '{"spec":{"strategy":{"type":"Recreate","rollingUpdate":null}}}' >&2
kubectl -n "$ns" create configmap leftover --from-literal=a=b >&2
kubectl -n "$ns" label service hello-service leftover=yes >&2
printf '%s\\n' 'apiVersion: networking.k8s.io/v1' 'kind: NetworkPolicy' 'metadata: {name: leftover}' \\
  'spec: {podSelector: {}, ingress: [{}]}' | kubectl -n "$ns" apply -f - >&2
kubectl -n "$ns" delete pod -l app=time-service --wait=false >&2
exit 0
`;

type Item = {
  kind: string;
  metadata: Record<string, unknown> & { ownerReferences?: Record<string, unknown>[] };
  status?: Record<string, unknown> & { conditions?: Record<string, unknown>[] };
};

/** A state dump without what the API server sets anew on create: uids, versions, times, generations. */
function normalized(yaml: string): string {
  const list = parse(yaml) as { items: Item[] };
  for (const it of list.items) {
    const m = it.metadata;
    for (const k of ["uid", "resourceVersion", "creationTimestamp", "generation", "managedFields"])
      delete m[k];
    for (const r of m.ownerReferences ?? []) delete r.uid;
    if (it.status) {
      delete it.status.observedGeneration;
      for (const c of it.status.conditions ?? []) {
        delete c.lastUpdateTime;
        delete c.lastTransitionTime;
      }
      // a condition set again moves to the end of the list (deployment/util SetDeploymentCondition)
      it.status.conditions?.sort((a, b) => String(a.type).localeCompare(String(b.type)));
    }
  }
  return stringify(list.items);
}

let dir: string;
let sim: SimCluster;
let cases: string[];

beforeAll(async () => {
  checkBuilt();
  dir = tmp("mr-equal-");
  sim = await startSim(dir, 600);
  const agent = write(dir, "agent.sh", AGENT);
  chmodSync(agent, 0o755);
  const exp = write(
    dir,
    "exp.yaml",
    stringify({
      cases: [
        { failure: "cpu-stress", target: "time-service" },
        { failure: "bad-command", target: "hello-service" },
        { failure: "cpu-stress", target: "time-service" },
      ],
    }),
  );
  // a history before the run: an earlier rollout with its change-cause, which every case must show
  const conn = ["--cluster", "kube", "--kubeconfig", sim.kubeconfig, "--namespace", "simple-micro"];
  const d = await cli(["deploy", "simple-micro", ...conn], { timeout: 240_000 });
  expect(d.exitCode, d.stderr).toBe(0);
  await sim.kubectl(["-n", "simple-micro", "set", "env", "deployment/time-service", "LOG_LEVEL=info"]);
  await sim.kubectl([
    "-n",
    "simple-micro",
    "annotate",
    "deployment/time-service",
    "kubernetes.io/change-cause=earlier rollout: LOG_LEVEL=info",
  ]);
  await sim.kubectl(["-n", "simple-micro", "rollout", "status", "deployment/time-service", "--timeout=120s"]);
  const save = join(dir, "runs");
  const r = await cli(
    [
      "run",
      "--cluster",
      "kube",
      "--kubeconfig",
      sim.kubeconfig,
      "--env",
      "simple-micro",
      "--model",
      "noop",
      "--remediate-method",
      `cmd:${agent}`,
      "--experiment-path",
      exp,
      "--save-path",
      save,
      "--run-name",
      "equal",
      "--settle",
      "5",
      "--hold",
      "5",
    ],
    { timeout: 600_000 },
  );
  expect(r.exitCode, r.stderr).toBe(0);
  const run = join(save, "equal");
  // deleting time-service's pods ends its stress: the cpu-stress cases succeed, bad-command fails
  expect(readCases(run).map((c) => c.status)).toEqual(["success", "failure", "success"]);
  cases = readdirSync(run)
    .filter((f) => f.startsWith("case-"))
    .sort()
    .map((f) => join(run, f));
}, 700_000);

afterAll(async () => {
  await sim?.stop();
});

const read = (caseDir: string, file: string) => readFileSync(join(caseDir, file), "utf8");

describe("cases start equal", () => {
  it("the third case sees the objects and rollout history the first saw, not the second's leftovers", () => {
    expect(cases).toHaveLength(3);
    const [first, second, third] = cases;
    expect(normalized(read(third, "state.yaml"))).toBe(normalized(read(first, "state.yaml")));
    expect(read(third, "history.txt")).toBe(read(first, "history.txt"));
    // the first case's leftovers were there to be removed: the second case did not see them either
    for (const c of [second, third]) {
      expect(read(c, "state.yaml")).not.toMatch(/leftover|LEFTOVER/);
      expect(read(c, "history.txt")).not.toMatch(/leftover/);
    }
    // the run's deploy applied the manifests again (the next revision, the template of an earlier
    // one); the earlier rollout stays in the history, with its change-cause
    expect(read(first, "history.txt")).toMatch(/\n\d+ +earlier rollout: LOG_LEVEL=info\n\d+ +<none>/);
  });

  it("a Deployment the cases changed is rolled back in place: the same objects, as old as they were", () => {
    // a Deployment deleted and made again would read "created 40 s ago" in a namespace days old.
    // Each case's shown time is re-based before it (docs/clock.md), every instant alike: so each
    // object's age against the oldest of them, which a re-base keeps, is what stays
    const ids = (c: string) => {
      const items = (parse(read(c, "state.yaml")) as { items: Item[] }).items.filter(
        (i) => i.kind === "Deployment" || i.kind === "ReplicaSet",
      );
      const at = (i: Item) => Date.parse(String(i.metadata.creationTimestamp));
      const oldest = Math.min(...items.map(at));
      return items
        .map((i) => `${i.kind}/${i.metadata.name} ${i.metadata.uid} +${(at(i) - oldest) / 1000}s`)
        .sort();
    };
    expect(ids(cases[2])).toEqual(ids(cases[0]));
  });

  it("the third case's events are the first's: none of the cases between is left", () => {
    const uids = (c: string) =>
      ((parse(read(c, "events.yaml")) as { items: Item[] }).items ?? []).map((e) => e.metadata.uid).sort();
    expect(uids(cases[2])).toEqual(uids(cases[0]));
  });
});

describe("chaos out of sight", () => {
  it("the namespace's events never name a chaos object", () => {
    for (const c of cases) expect(read(c, "events.yaml")).not.toMatch(/chaos/i);
  });

  it("the agent's identity reads nothing of Chaos Mesh: its namespace and its objects are forbidden", () => {
    for (const c of cases) {
      expect(read(c, "chaos-events.txt")).toMatch(/forbidden.*cannot list resource "events".*"chaos-mesh"/i);
      expect(read(c, "chaos-list.txt")).toMatch(/forbidden.*"chaos-mesh\.org"/i);
    }
  });

  it("the chaos was in Chaos Mesh's namespace, selecting the case's, and its events are there", async () => {
    const ev = await sim.kubectl(["-n", "chaos-mesh", "get", "events", "-o", "yaml"]);
    const items = (parse(ev.stdout) as { items: { involvedObject: { kind: string; name: string } }[] }).items;
    expect(items.map((e) => `${e.involvedObject.kind}/${e.involvedObject.name}`)).toContain(
      "StressChaos/simple-micro-cpu-stress",
    );
    // removed after each case
    const left = await sim.kubectl(["-n", "chaos-mesh", "get", "stresschaos", "-o", "name"]);
    expect(left.stdout.trim()).toBe("");
  });
});
