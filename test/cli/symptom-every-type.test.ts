// The symptom-level oracle on every reference type and two of the expert tier's, through the CLI
// on Simple-Micro (report-levels.test.ts runs one fault per localization signal in npm test; this
// file is in the long lane, test/lanes.ts).
import { beforeAll, describe, it } from "vitest";
import { checkBuilt } from "./cli-helpers.js";
import { symptomOracle } from "./levels.js";

beforeAll(checkBuilt);

const EVERY_TYPE = [
  ["cpu-stress", "time-service"],
  ["memory-stress", "hello-service"],
  ["disk-io", "time-service"],
  ["network-loss", "hello-service"],
  ["network-delay", "time-service"],
  ["pod-fail", "hello-service"],
  ["pod-config-error", "time-service"],
  ["svc-deleted", "hello-service"],
  ["image-bad-tag", "time-service"],
];

describe("report levels", () => {
  it("symptom: the oracle finds and repairs every fault, localized, from an alert that names neither service nor failure", async () => {
    await symptomOracle(EVERY_TYPE);
  }, 900_000);
});
