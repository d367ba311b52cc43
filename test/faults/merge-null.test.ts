// An incident step's `apply` merges its change into the deployed manifest as a developer edits the
// file; a null in the change drops the field, as a JSON merge patch does (RFC 7386), so that a story
// can move a variable from `value` to `valueFrom` (the API server reads a null string as unset:
// k8s.io/apimachinery's JSON decoding, core/v1 EnvVar's `value` omitempty).
import { describe, expect, it } from "vitest";
import { mergeManifest } from "../../src/faults/steps.js";

describe("an apply step's manifest with a null", () => {
  it("drops the field the null names and merges the rest", () => {
    const base = { spec: { containers: [{ name: "app", env: [{ name: "ADDR", value: "svc:5001" }] }] } };
    const merged = mergeManifest(base, {
      spec: {
        containers: [
          {
            name: "app",
            env: [{ name: "ADDR", value: null, valueFrom: { configMapKeyRef: { name: "cm", key: "ADDR" } } }],
          },
        ],
      },
    });
    expect(merged).toEqual({
      spec: {
        containers: [
          {
            name: "app",
            env: [{ name: "ADDR", valueFrom: { configMapKeyRef: { name: "cm", key: "ADDR" } } }],
          },
        ],
      },
    });
    expect(base.spec.containers[0].env[0].value).toBe("svc:5001");
  });
  it("drops a null in an item the manifest did not have (an env entry added over an envFrom's key)", () => {
    const base = { spec: { containers: [{ name: "app", env: [{ name: "NODE_IP", value: "x" }] }] } };
    const ref = { configMapKeyRef: { name: "cm", key: "DB_PORT" } };
    const merged = mergeManifest(base, {
      spec: { containers: [{ name: "app", env: [{ name: "DB_PORT", value: null, valueFrom: ref }] }] },
    });
    expect(merged).toEqual({
      spec: {
        containers: [
          {
            name: "app",
            env: [
              { name: "NODE_IP", value: "x" },
              { name: "DB_PORT", valueFrom: ref },
            ],
          },
        ],
      },
    });
  });
});
