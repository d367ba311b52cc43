// Experiment files' `params` (tune a fault, never retarget it) and user chaos templates,
// checked with errors that name the file, the line and the fix. Field names are Chaos
// Mesh 2.x's (https://chaos-mesh.org/docs/simulate-network-chaos-on-kubernetes/ and siblings).
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { MicroRemedError } from "../../src/errors.js";
import { failure } from "../../src/faults/catalog.js";
import { renderTemplate } from "../../src/faults/inject.js";
import type { Chaos } from "../../src/kube/objects.js";
import { loadExperimentFile, parseExperimentYaml } from "../../src/runner/experiments.js";

const dir = mkdtempSync(join(tmpdir(), "mr-faults-"));
const write = (name: string, text: string) => {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
};

function errorOf(fn: () => unknown): MicroRemedError {
  try {
    fn();
  } catch (e) {
    if (e instanceof MicroRemedError) return e;
    throw e;
  }
  throw new Error("expected an error");
}

const caseWith = (params: string) =>
  `cases:\n  - failure: network-delay\n    target: time-service\n    params:\n${params}`;

describe("params", () => {
  it("tune a fault: latency, jitter and correlation of a delay; workers and load of a stress", () => {
    const e = parseExperimentYaml(
      `${caseWith("      delay: {latency: 200ms, jitter: 20ms, correlation: '25'}\n      duration: 5m\n")}  - {failure: cpu-stress, params: {stressors: {cpu: {workers: 2, load: 50}}}}\n`,
      "ok.yaml",
    );
    expect(e.cases[0].faults[0].params).toEqual({
      delay: { latency: "200ms", jitter: "20ms", correlation: "25" },
      duration: "5m",
    });
    expect(e.cases[1].faults[0].params).toEqual({ stressors: { cpu: { workers: 2, load: 50 } } });
  });

  it.each([
    ["selector", "      selector: {namespaces: [kube-system]}\n", 5],
    ["namespace", "      delay: {latency: 1s}\n      namespace: kube-system\n", 6],
    ["mode", "      mode: all\n", 5],
    ["value", "      value: '100'\n", 5],
    ["target", "      target: {selector: {namespaces: [other]}, mode: all}\n", 5],
    ["delay.selector", "      delay:\n        latency: 1s\n        selector: {namespaces: [x]}\n", 7],
  ])("refuse %s, naming the field, its line and the fix", (field, params, line) => {
    const e = errorOf(() => parseExperimentYaml(caseWith(params), "p.yaml"));
    expect(e.code).toBe("E_EXPERIMENT_FILE");
    expect(e.message).toBe(`p.yaml:${line}: params.${field} would retarget the network-delay fault`);
    expect(e.fix).toMatch(/params tune a fault .*the harness targets the case's `target:` service/);
  });

  it("refuse a field the kind does not have, listing the ones it has", () => {
    const e = errorOf(() => parseExperimentYaml(caseWith("      delay: {latencyy: 1s}\n"), "p.yaml"));
    expect(e.message).toBe('p.yaml:5: cases.0.params.delay: unknown field "latencyy"');
    expect(e.fix).toBe('remove "latencyy"; allowed here: latency, jitter, correlation, reorder');
  });

  it("refuse a value of the wrong form, with an example of the right one", () => {
    const e = errorOf(() => parseExperimentYaml(caseWith("      delay: {latency: fast}\n"), "p.yaml"));
    expect(e.message).toMatch(/^p\.yaml:5: cases\.0\.params\.delay\.latency: must match pattern/);
    expect(e.fix).toMatch(/Go duration such as "500ms"/);
    const patch = errorOf(() =>
      parseExperimentYaml("cases:\n  - {failure: pod-config-error, params: {duration: 1s}}\n", "p.yaml"),
    );
    expect(patch.message).toMatch(/pod-config-error takes no params/);
  });

  it("cannot move the injected object, even when merged by hand", () => {
    const spec = failure("network-delay");
    const vars = { target_namespace: "simple-micro", target_pod: "time-service" };
    const obj = renderTemplate(spec, vars, { delay: { latency: "200ms" } }) as Chaos;
    expect(obj.metadata).toEqual({ name: "simple-micro-network-delay", namespace: "chaos-mesh" });
    expect(obj.spec!.selector).toEqual({
      namespaces: ["simple-micro"],
      labelSelectors: { app: "time-service" },
    });
    expect(obj.spec!.delay).toEqual({ latency: "200ms", correlation: "0" });
    expect(() => renderTemplate(spec, vars, { selector: { namespaces: ["kube-system"] } })).toThrow(
      /params.selector of network-delay would retarget the fault/,
    );
    // a key that would reach the prototype is never merged
    const proto = JSON.parse('{"__proto__": {"selector": {"namespaces": ["x"]}}}') as Record<string, unknown>;
    expect(() => renderTemplate(spec, vars, proto)).toThrow(/would retarget/);
  });
});

describe("a user's chaos template", () => {
  const TEMPLATE = [
    "apiVersion: chaos-mesh.org/v1alpha1",
    "kind: StressChaos",
    "metadata: {name: cpu-spike}",
    "spec:",
    "  mode: one",
    "  stressors:",
    "    cpu: {workers: 4, load: 100}",
    "",
  ].join("\n");

  it("becomes a failure of the run, checked by the symptom named, aimed by the harness", () => {
    write("cpu-spike.yaml", TEMPLATE);
    const exp = write(
      "mine.yaml",
      "cases:\n  - {template: cpu-spike.yaml, check: cpu, target: hello-service, params: {stressors: {cpu: {load: 90}}}}\n",
    );
    const e = loadExperimentFile(exp);
    const id = e.cases[0].faults[0].failure;
    expect(id).toBe("template:cpu-spike");
    const spec = failure(id);
    expect(spec).toMatchObject({ kind: "StressChaos", verifier: "cpu", category: "Resource-Level" });
    const obj = renderTemplate(
      spec,
      { target_namespace: "ns1", target_pod: "hello-service" },
      e.cases[0].faults[0].params,
    ) as Chaos;
    expect(obj.metadata).toEqual({ name: "ns1-cpu-spike", namespace: "chaos-mesh" });
    expect(obj.spec!.selector).toEqual({ namespaces: ["ns1"], labelSelectors: { app: "hello-service" } });
    expect(obj.spec!.stressors).toEqual({ cpu: { workers: 4, load: 90 } });
  });

  it.each([
    [
      "a kind the cluster does not simulate",
      TEMPLATE.replace("StressChaos", "KernelChaos"),
      2,
      /kind: must be equal to one of the allowed values/,
      /StressChaos, NetworkChaos, PodChaos, IOChaos/,
    ],
    [
      "a typo in the spec",
      TEMPLATE.replace("stressors", "stresors"),
      6,
      /spec: unknown field "stresors"/,
      /allowed here: mode, value, duration, containerNames, stressors/,
    ],
    [
      "a missing action",
      "apiVersion: chaos-mesh.org/v1alpha1\nkind: NetworkChaos\nspec:\n  mode: one\n  delay: {latency: 1s}\n",
      3,
      /spec: "action" is missing/,
      /add "action"/,
    ],
    [
      "its own selector",
      `${TEMPLATE}  selector:\n    namespaces: [kube-system]\n`,
      8,
      /spec.selector: a template does not choose where its fault lands/,
      /remove spec.selector/,
    ],
  ])("is refused for %s, naming the file, the line and the fix", (_what, text, line, message, fix) => {
    const t = write("bad.yaml", text);
    const exp = write("uses-bad.yaml", "cases:\n  - {template: bad.yaml, check: cpu}\n");
    const e = errorOf(() => loadExperimentFile(exp));
    expect(e.message.startsWith(`${t}:${line}: `), e.message).toBe(true);
    expect(e.message).toMatch(message);
    expect(e.fix).toMatch(fix);
  });

  it("needs a known check and an existing file", () => {
    write("cpu-spike.yaml", TEMPLATE);
    const bad = write("c.yaml", "cases:\n  - {template: cpu-spike.yaml, check: latency}\n");
    expect(errorOf(() => loadExperimentFile(bad)).message).toMatch(
      /c\.yaml:2: cases\.0\.check: must be equal to one/,
    );
    const missing = write("m.yaml", "cases:\n  - {template: nope.yaml, check: cpu}\n");
    expect(errorOf(() => loadExperimentFile(missing)).message).toMatch(
      /cannot read chaos template .*nope\.yaml: ENOENT/,
    );
  });
});
