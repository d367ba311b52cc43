// The API server's write warnings for duplicate environment variables, case by case as
// kubernetes pkg/api/pod/warnings_test.go ("duplicate env") has them: a later entry of the same
// name warns unless its value builds on the earlier one with $(NAME) (and is not just "$(NAME)");
// a valueFrom always warns. Workloads warn about their template on create and when it changes.
import { describe, expect, it } from "vitest";
import { writeWarnings } from "../../../src/sim/api/warnings.js";
import type { KObject } from "../../../src/sim/core/types.js";

const env = (name: string, entries: ({ value: string } | { valueFrom: object })[]) =>
  entries.map((e) => ({ name, ...e }));
const cases = (n: string) =>
  env(n, [
    { value: n },
    { value: n },
    { value: "other" },
    { value: "" },
    { value: `$(${n})` },
    { valueFrom: {} },
    { value: `$(${n}) $(${n})` }, // no warning
  ]);
const hides = (path: string, name: string) =>
  `${path}: hides previous definition of "${name}", which may be dropped when using apply`;

describe("duplicate env warnings", () => {
  it("a Pod: every later entry but the one building on $(NAME), init containers first", () => {
    const pod = {
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "p" },
      spec: {
        initContainers: [{ name: "i", env: cases("a") }],
        containers: [{ name: "c", env: cases("b") }],
      },
    } as KObject;
    const w = [1, 2, 3, 4, 5];
    expect(writeWarnings(pod)).toEqual([
      ...w.map((i) => hides(`spec.initContainers[0].env[${i}]`, "a")),
      ...w.map((i) => hides(`spec.containers[0].env[${i}]`, "b")),
    ]);
  });

  it("a Deployment: the template's path; on update only when the spec changed", () => {
    const dep = (replicas: number, extra = "") =>
      ({
        apiVersion: "apps/v1",
        kind: "Deployment",
        metadata: { name: "d" },
        spec: {
          replicas,
          template: {
            spec: {
              containers: [
                {
                  name: "c",
                  env: [
                    { name: "X", value: "a" },
                    { name: "X", value: `b${extra}` },
                  ],
                },
                {
                  name: "d",
                  env: [
                    { name: "Y", value: "a" },
                    { name: "Z", value: "a" },
                  ],
                },
              ],
            },
          },
        },
      }) as KObject;
    const warning = [hides("spec.template.spec.containers[0].env[1]", "X")];
    expect(writeWarnings(dep(1))).toEqual(warning);
    expect(writeWarnings(dep(1), dep(1))).toEqual([]);
    expect(writeWarnings(dep(1, "!"), dep(1))).toEqual(warning);
    expect(
      writeWarnings({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "x" } } as KObject),
    ).toEqual([]);
  });

  it("a CronJob: the job template's pod spec", () => {
    const cj = {
      apiVersion: "batch/v1",
      kind: "CronJob",
      metadata: { name: "c" },
      spec: {
        jobTemplate: {
          spec: {
            template: {
              spec: { containers: [{ name: "c", env: env("V", [{ value: "1" }, { value: "2" }]) }] },
            },
          },
        },
      },
    } as KObject;
    expect(writeWarnings(cj)).toEqual([
      hides("spec.jobTemplate.spec.template.spec.containers[0].env[1]", "V"),
    ]);
  });
});
