// The kubelet's parts on their own: back-off arithmetic, the image registry rules, the
// scheduler's message, the stage engine's matching and its checks of the stage file.
import { existsSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { Backoff, goDuration } from "../../../src/sim/kubelet/backoff.js";
import { failureSummary } from "../../../src/sim/kubelet/scheduler.js";
import { imagesDoc, podStages, stagesPath } from "../../../src/sim/stages/load.js";
import {
  factMatches,
  render,
  renderValue,
  StageEngine,
  type StageSchema,
} from "../../../src/sim/stages/stage.js";
import { ImageCatalog, parseImage } from "../../../src/sim/userland/images.js";

describe("Backoff", () => {
  it("doubles from 10 s up to 5 min and starts over after 10 quiet minutes", () => {
    const b = new Backoff({ initial: 10_000, max: 300_000 });
    const seen: number[] = [];
    let t = 0;
    for (let i = 0; i < 8; i++) {
      b.next("k", t, t);
      seen.push(b.current("k"));
      t += 1000;
    }
    expect(seen).toEqual([10_000, 20_000, 40_000, 80_000, 160_000, 300_000, 300_000, 300_000]);
    expect(b.leftSince("k", t, t + 1000)).toBe(299_000);
    const quiet = t + 600_001;
    expect(b.leftSince("k", quiet, quiet)).toBe(0);
    b.next("k", quiet, quiet);
    expect(b.current("k")).toBe(10_000);
  });

  it("prints durations as Go does", () => {
    expect([512, 1000, 1234, 10_000, 80_000, 300_000].map(goDuration)).toEqual([
      "512ms",
      "1s",
      "1.234s",
      "10s",
      "1m20s",
      "5m0s",
    ]);
  });
});

describe("images", () => {
  const cat = new ImageCatalog();
  const av = (image: string) => cat.lookup(image).availability;

  it("normalizes references as containerd does", () => {
    expect(parseImage("nginx")?.canonical).toBe("docker.io/library/nginx:latest");
    expect(parseImage("codewisdom/ts-auth-service:1.0.0")?.canonical).toBe(
      "docker.io/codewisdom/ts-auth-service:1.0.0",
    );
    expect(parseImage("localhost:5000/app:1")?.name).toBe("localhost:5000/app");
    expect(parseImage("Nginx:1.25")).toBeUndefined();
    expect(parseImage("nginx:bad tag")).toBeUndefined();
  });

  it("pulls the systems' images", () => {
    for (const image of [
      "busybox:1.35",
      "python:3.9-slim",
      "redis:alpine",
      "mysql:5.7",
      "nacos/nacos-server:v2.0.4",
      "rabbitmq:3.8-management",
      "gcr.m.daocloud.io/google-samples/microservices-demo/adservice:v0.3.8",
      "us-central1-docker.pkg.dev/google-samples/microservices-demo/frontend:v0.10.1",
      "codewisdom/ts-avatar-service:0.2.0",
      "codewisdom/ts-order-service:1.0.1",
      "gcr.io/google-containers/pause:latest",
      "registry.k8s.io/pause:3.9",
    ])
      expect([image, av(image)]).toEqual([image, "present"]);
  });

  it("fails unknown tags of known repositories, broken names and unknown repositories", () => {
    expect(av("nginx:9.99-nope")).toBe("missing");
    expect(av("gcr.m.daocloud.io/google-samples/microservices-demo/adservice:latest")).toBe("missing");
    expect(av("codewisdom/ts-auth-service:2.0.0")).toBe("missing");
    // a repository no registry serves, unless whoever starts the cluster publishes it
    expect(av("myorg/anything:whatever")).toBe("missing");
    expect(
      new ImageCatalog(imagesDoc(), ["myorg/anything:whatever"]).lookup("myorg/anything:whatever")
        .availability,
    ).toBe("present");
    expect(av("myorg/nonexistent-service:1.0")).toBe("missing");
    expect(av("myorg/app:invalid-tag")).toBe("missing");
    expect(av("Bad/Name")).toBe("invalid");
    expect(cat.lookup("nginx@sha256:" + "a".repeat(64)).availability).toBe("present");
  });

  it("gives image IDs and sizes", () => {
    const info = cat.lookup("nginx:1.25");
    expect(info.imageID).toMatch(/^docker\.io\/library\/nginx@sha256:[0-9a-f]{64}$/);
    expect(info.bytes).toBe(72099410);
    expect(cat.lookup("codewisdom/ts-auth-service:1.0.0").size).toBe("large");
  });
});

describe("scheduler message", () => {
  it("counts reasons across nodes, sorted, with what preemption finds", () => {
    const cfg = podStages().scheduling;
    const msg = failureSummary(cfg, [
      [{ kind: "cpu" }],
      [{ kind: "taint", taint: "{node-role.kubernetes.io/control-plane: }" }],
      [{ kind: "cpu" }, { kind: "memory" }],
    ]);
    expect(msg).toBe(
      "0/3 nodes are available: 1 Insufficient memory, 1 node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }, 2 Insufficient cpu. " +
        "preemption: 0/3 nodes are available: 1 Preemption is not helpful for scheduling, 2 No preemption victims found for incoming pod.",
    );
  });
});

describe("stage engine", () => {
  const schema: StageSchema = {
    facts: { thing: ["step", "ok"] },
    fields: { thing: ["step"] },
    actions: { thing: ["poke"] },
    delays: ["wait"],
  };

  it("matches equal values, lists and negations", () => {
    expect(factMatches("Running", "Running")).toBe(true);
    expect(factMatches(["a", "b"], "b")).toBe(true);
    expect(factMatches("!a", "b")).toBe(true);
    expect(factMatches("!a", "a")).toBe(false);
    expect(factMatches(true, true)).toBe(true);
  });

  it("waits for a stage's delay and restarts it when another stage applies", () => {
    const e = new StageEngine(
      [
        { name: "slow", for: "thing", when: { step: "A", ok: true }, delay: "wait", next: { step: "B" } },
        { name: "fast", for: "thing", when: { step: "A" }, next: { step: "C" } },
      ],
      schema,
    );
    const subject = {};
    expect(e.due("thing", subject, { step: "A", ok: true }, 0, () => 500)).toBeUndefined();
    expect(e.due("thing", subject, { step: "A", ok: true }, 499, () => 500)).toBeUndefined();
    expect(e.due("thing", subject, { step: "A", ok: true }, 500, () => 500)?.name).toBe("slow");
    expect(e.due("thing", subject, { step: "A", ok: false }, 600, () => 500)?.name).toBe("fast");
  });

  it("rejects stages that use unknown facts, fields, actions or delays", () => {
    expect(() => new StageEngine([{ name: "x", for: "thing", when: { stpe: "A" } }], schema)).toThrow(
      /unknown fact "stpe"/,
    );
    expect(
      () => new StageEngine([{ name: "x", for: "thing", when: {}, next: { color: 1 } }], schema),
    ).toThrow(/cannot set "color"/);
    expect(() => new StageEngine([{ name: "x", for: "thing", when: {}, actions: ["kick"] }], schema)).toThrow(
      /unknown action/,
    );
    expect(() => new StageEngine([{ name: "x", for: "thing", when: {}, delay: "later" }], schema)).toThrow(
      /unknown delay/,
    );
  });

  it("renders templates, keeping the type of a lone placeholder", () => {
    expect(render("back-off {{b}} for {{c}}", { b: "10s", c: "x" })).toBe("back-off 10s for x");
    expect(renderValue("{{code}}", { code: 137 })).toBe(137);
    expect(() => render("{{nope}}", {})).toThrow(/not defined/);
  });
});

describe("stage files", () => {
  it("are found from the sources", () => {
    expect(stagesPath("pod.yaml")).toMatch(/src\/sim\/stages\/pod\.yaml$/);
  });

  it("are found from the build, which holds no YAML", async () => {
    const built = new URL("../../../dist/src/sim/stages/load.js", import.meta.url);
    if (!existsSync(built)) return; // run `npx tsc -p tsconfig.json` first to cover this
    const mod = (await import(built.href)) as { stagesPath(name: string): string };
    expect(mod.stagesPath("images.yaml")).toMatch(/src\/sim\/stages\/images\.yaml$/);
  });
});
