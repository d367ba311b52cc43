// metadata.generation is set by a kind's registry strategy, not by having a spec. On v1.31 a
// Deployment, a NetworkPolicy and a custom resource start at 1 and count spec changes; a Pod, a
// Service and a Namespace carry none (pkg/registry/core/pod/strategy.go PrepareForCreate sets a
// Pod's generation only from 1.33, PodObservedGenerationTracking; core/service and
// core/namespace strategies never do; apps/deployment/strategy.go sets Generation = 1 and bumps
// it when the spec changes).
import { afterAll, beforeAll, expect, it } from "vitest";
import { ensureNamespace, startCluster, type TestCluster } from "../helpers/exec.js";

const NS = "gen";
let t: TestCluster;

beforeAll(async () => {
  t = await startCluster(1);
  ensureNamespace(t.c, NS);
});
afterAll(async () => {
  await t?.stop();
});

const generation = async (kind: string, name: string) =>
  (await t.kubectl(["-n", NS, "get", kind, name, "-o", "jsonpath={.metadata.generation}"])).stdout;

it("a Deployment and a NetworkPolicy count spec changes; a Pod, a Service and a Namespace carry no generation", async () => {
  const made = await t.kubectl(
    ["-n", NS, "apply", "-f", "-"],
    `apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: web, image: nginx:1.27}]}
---
apiVersion: v1
kind: Service
metadata: {name: web}
spec: {selector: {app: web}, ports: [{port: 80}]}
---
apiVersion: v1
kind: Pod
metadata: {name: lone}
spec: {containers: [{name: c, image: busybox:1.36, command: [sleep, "3600"]}]}
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: deny}
spec: {podSelector: {}, policyTypes: [Ingress]}
`,
  );
  expect(made.exitCode, made.stderr).toBe(0);
  expect(await generation("deployment", "web")).toBe("1");
  expect(await generation("networkpolicy", "deny")).toBe("1");
  expect(await generation("service", "web")).toBe("");
  expect(await generation("pod", "lone")).toBe("");
  expect((await t.kubectl(["get", "namespace", NS, "-o", "jsonpath={.metadata.generation}"])).stdout).toBe(
    "",
  );
  await t.kubectl(["-n", NS, "set", "image", "deployment/web", "web=nginx:1.28"]);
  expect(await generation("deployment", "web")).toBe("2");
  await t.kubectl(["-n", NS, "label", "service", "web", "tier=front"]);
  expect(await generation("service", "web")).toBe("");
});
