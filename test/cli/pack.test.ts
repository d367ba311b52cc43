// What `npm pack` ships is enough to run. The packed tarball, installed
// into an empty folder (its dependencies from the npm cache or registry), runs a case of its own
// shipped experiment file on its own embedded cluster, from that folder.
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import { beforeAll, describe, expect, it } from "vitest";
import { checkBuilt, ROOT, readCases, tmp } from "./cli-helpers.js";

beforeAll(checkBuilt);

describe("the npm package", () => {
  it("installed into an empty folder, runs `microremed run` from there", async () => {
    const work = tmp("mr-pack-");
    const packed = await execa("npm", ["pack", "--silent", "--pack-destination", work, ROOT], { cwd: work });
    const tarball = join(work, packed.stdout.trim().split("\n").pop() ?? "");
    const app = join(work, "app");
    await execa("mkdir", ["-p", app]);
    await execa("npm", ["init", "-y"], { cwd: app });
    await execa("npm", ["install", "--prefer-offline", "--no-audit", "--no-fund", "--omit=dev", tarball], {
      cwd: app,
      timeout: 300_000,
    });
    const bin = join(app, "node_modules", ".bin", "microremed");
    const r = await execa(
      bin,
      [
        "run",
        "--env",
        "simple-micro",
        "--model",
        "oracle",
        "--experiment-path",
        "experiments/pod-fail.txt",
        "--experiments",
        "2",
        "--speed",
        "600",
        "--settle",
        "5",
        "--save-path",
        "logs",
      ],
      { cwd: app, reject: false, timeout: 400_000 },
    );
    expect(r.exitCode, String(r.stderr)).toBe(0);
    const [run] = readdirSync(join(app, "logs"));
    expect(readCases(join(app, "logs", run)).map((c) => c.status)).toEqual(["success", "success"]);
  }, 600_000);
});
