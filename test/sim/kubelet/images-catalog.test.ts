// The simulated registry admits only published version ranges of the repositories it knows: a
// made-up version is "not found", as Docker Hub answers and containerd reports it (the pod
// stays in ErrImagePull / ImagePullBackOff), while every image the three systems use pulls.
// containerd's message for a missing tag: pkg/cri/server/image_pull.go wraps the resolver's
// `failed to resolve reference "<ref>": <ref>: not found` in `failed to pull and unpack image`;
// the kubelet reports it as `rpc error: code = NotFound desc = ...` (ErrImagePull).
import { readdirSync, readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";
import { R } from "../../../src/sim/api/resources.js";
import { ManualClock } from "../../../src/sim/core/clock.js";
import type { Pod } from "../../../src/sim/core/objects.js";
import { imagesDoc } from "../../../src/sim/stages/load.js";
import { ImageCatalog } from "../../../src/sim/userland/images.js";
import { ensureNamespace, podManifest, startCluster, type TestCluster, waitFor } from "../helpers/exec.js";

const catalog = new ImageCatalog(imagesDoc());
const envsDir = new URL("../../../envs/", import.meta.url);

/** Every `image:` of the systems' manifests and of the reference's systems.json. */
function systemImages(): string[] {
  const found = new Set<string>();
  const walk = (v: unknown) => {
    if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === "object")
      for (const [k, x] of Object.entries(v)) {
        if (k === "image" && typeof x === "string") found.add(x);
        else walk(x);
      }
  };
  for (const env of readdirSync(envsDir)) {
    const text = readFileSync(new URL(`${env}/manifests.yaml`, envsDir), "utf8");
    for (const doc of parseAllDocuments(text)) walk(doc.toJS());
  }
  // and the images the reference's facts about the three systems name
  walk(
    JSON.parse(readFileSync(new URL("../../data/fixtures/reference/systems.json", import.meta.url), "utf8")),
  );
  return [...found].sort();
}

describe("image catalog", () => {
  it("pulls every image the three systems use", () => {
    const images = systemImages();
    expect(images.length).toBeGreaterThan(50);
    const missing = images.filter((i) => catalog.lookup(i).availability !== "present");
    expect(missing).toEqual([]);
  });

  it("admits published versions and refuses made-up ones of known repositories", () => {
    for (const ok of [
      "nginx:1.27",
      "nginx:1.25.5-alpine",
      "nginx:1.7.9",
      "busybox:1.36.1",
      "python:3.12-slim",
      "redis:7.2.4-alpine",
      "mysql:8.0.36",
      "alpine:3.20",
      "rabbitmq:3.13-management-alpine",
    ])
      expect(catalog.lookup(ok).availability, ok).toBe("present");
    for (const bad of [
      "nginx:1.0.23449928384992872784",
      "nginx:1.99",
      "nginx:2.0",
      "busybox:1.99",
      "python:3.99-slim",
      "redis:7.2.12345",
      "alpine:3.99",
    ])
      expect(catalog.lookup(bad).availability, bad).toBe("missing");
  });

  it("refuses a repository no registry serves, with that registry's answer", () => {
    // Docker Hub answers a repository it does not have with 401 insufficient_scope
    const madeUp = catalog.lookup("i_made_this_up:and_this_too");
    expect(madeUp.availability).toBe("missing");
    expect(madeUp.error).toBe(
      'rpc error: code = Unknown desc = failed to pull and unpack image "docker.io/library/i_made_this_up:and_this_too": failed to resolve reference "docker.io/library/i_made_this_up:and_this_too": pull access denied, repository does not exist or may require authorization: server message: insufficient_scope: authorization failed',
    );
    // quay.io answers 401 UNAUTHORIZED on the manifest; other registries "not found"
    expect(catalog.lookup("quay.io/nobody/nothing:1.0").error).toBe(
      'rpc error: code = Unknown desc = failed to pull and unpack image "quay.io/nobody/nothing:1.0": failed to resolve reference "quay.io/nobody/nothing:1.0": unexpected status from HEAD request to https://quay.io/v2/nobody/nothing/manifests/1.0: 401 UNAUTHORIZED',
    );
    expect(catalog.lookup("example.org/team/app:0.0.99999").error).toBe(
      'rpc error: code = NotFound desc = failed to pull and unpack image "example.org/team/app:0.0.99999": failed to resolve reference "example.org/team/app:0.0.99999": example.org/team/app:0.0.99999: not found',
    );
  });

  it("pulls the images kubernetes.core's integration targets use, and refuses their made-up ones", () => {
    for (const ok of [
      "alpine:3.8",
      "gcr.io/kuar-demo/kuard-amd64:1",
      "gcr.io/kuar-demo/kuard-amd64:3",
      "gcr.io/kuar-demo/kuard-amd64:v0.10.0-green",
      "gcr.io/kuar-demo/kuard-amd64:v0.10.0-purple",
      "nginx:1.17",
      "quay.io/fluentd_elasticsearch/fluentd:v2.5.2",
    ])
      expect(catalog.lookup(ok).availability, ok).toBe("present");
    // k8s_rollback's "Crash the existing DaemonSet": a tag never published
    expect(catalog.lookup("quay.io/fluentd_elasticsearch/fluentd:v2734894949").error).toBe(
      'rpc error: code = NotFound desc = failed to pull and unpack image "quay.io/fluentd_elasticsearch/fluentd:v2734894949": failed to resolve reference "quay.io/fluentd_elasticsearch/fluentd:v2734894949": quay.io/fluentd_elasticsearch/fluentd:v2734894949: not found',
    );
  });

  it("counts the images it is told are published (a user's own system), that tag only", () => {
    const mine = new ImageCatalog(imagesDoc(), ["registry.example.com/team/custom-app:7.7", "cart:1"]);
    expect(mine.lookup("registry.example.com/team/custom-app:7.7").availability).toBe("present");
    expect(mine.lookup("docker.io/library/cart:1").availability).toBe("present");
    const other = mine.lookup("registry.example.com/team/custom-app:7.8");
    expect(other.availability).toBe("missing");
    expect(other.error).toContain("registry.example.com/team/custom-app:7.8: not found");
    expect(catalog.lookup("registry.example.com/team/custom-app:7.7").availability).toBe("missing");
  });
});

describe("image sizes", () => {
  it("gives every image of the systems its own size (Image size in the Pulled event)", () => {
    const images = systemImages().filter((i) => catalog.lookup(i).availability === "present");
    const bytes = new Map<number, string[]>();
    for (const i of images) {
      const b = catalog.lookup(i).bytes;
      bytes.set(b, [...(bytes.get(b) ?? []), i.replace(/:.*/, "")]);
    }
    // the same repository at two tags may share a size; two repositories never do
    const shared = [...bytes.values()].filter((names) => new Set(names).size > 1);
    expect(shared).toEqual([]);
    const ob = (s: string) =>
      catalog.lookup(`us-central1-docker.pkg.dev/google-samples/microservices-demo/${s}:v0.10.1`).bytes;
    expect(ob("adservice")).toBeGreaterThan(ob("cartservice"));
    expect(ob("cartservice")).toBeGreaterThan(ob("productcatalogservice"));
  });
});

describe("a made-up tag on the cluster", () => {
  let t: TestCluster;
  const clock = new ManualClock();
  beforeAll(async () => {
    t = await startCluster(1, clock);
    ensureNamespace(t.c, "img");
  });
  afterAll(async () => {
    await t?.stop();
  });

  it("stays in ErrImagePull / ImagePullBackOff with containerd's not-found message", async () => {
    const image = "nginx:1.0.23449928384992872784";
    t.c.ctx.registry.create(R("Pod"), "img", podManifest("img", "web", [{ name: "web", image }]));
    const ref = `docker.io/library/${image}`;
    const waiting = await waitFor(
      "ErrImagePull",
      () => {
        const s = (t.c.ctx.registry.get(R("Pod"), "img", "web") as Pod).status?.containerStatuses?.[0]?.state
          ?.waiting;
        return s?.reason === "ErrImagePull" && s;
      },
      clock,
    );
    expect(waiting.message).toBe(
      `rpc error: code = NotFound desc = failed to pull and unpack image "${ref}": failed to resolve reference "${ref}": ${ref}: not found`,
    );
    await waitFor(
      "ImagePullBackOff",
      () =>
        (t.c.ctx.registry.get(R("Pod"), "img", "web") as Pod).status?.containerStatuses?.[0]?.state?.waiting
          ?.reason === "ImagePullBackOff",
      clock,
    );
    const row = await t.kubectl(["get", "pod", "web", "-n", "img", "--no-headers"]);
    expect(row.stdout).toMatch(/^web\s+0\/1\s+(ImagePullBackOff|ErrImagePull)\s+0\s/);
    const ev = await t.kubectl([
      "get",
      "events",
      "-n",
      "img",
      "-o",
      "jsonpath={range .items[*]}{.message}|{end}",
    ]);
    expect(ev.stdout).toContain(`Failed to pull image "${image}": rpc error: code = NotFound`);
  });
});
