import { it } from "vitest";
import { ManualClock } from "../../src/sim/clock.js";
import { EmbeddedCluster } from "../../src/sim/cluster.js";
import { R } from "../../src/sim/controllers/context.js";
import { GenericBehavior } from "../../src/sim/model/generic.js";
import { FaultedBehavior } from "../../src/sim/model/faulted.js";
import { Rng } from "../../src/util/rng.js";
import { manifests } from "./topology-helpers.js";

for (const generic of [true, false]) it(`tt x10 generic=${generic}`, () => {
  const clock = new ManualClock();
  const c = new EmbeddedCluster({ clock, autoDrain: false, nodes: [{ name: "n", cpu: "256", memory: "1024Gi", pods: 2000 }] });
  if (generic) (c.ctx as any).behavior = new FaultedBehavior(new GenericBehavior(new Rng(1)), c.ctx.faults);
  const t0 = Date.now();
  for (let i = 0; i < 10; i++) {
    const ns = `tt${i}`;
    c.ctx.registry.create(R("Namespace"), undefined, { apiVersion: "v1", kind: "Namespace", metadata: { name: ns } });
    for (const o of manifests("train-ticket")) c.ctx.registry.create(R(o.kind), ns, o);
  }
  c.ctx.runtime.drain();
  for (let t = 0; t < 300; t++) { clock.advance(1000); c.ctx.runtime.drain(); }
  const ready = c.ctx.registry.list(R("Pod"), undefined).filter((p) => p.status?.conditions?.some((x: any) => x.type === "Ready" && x.status === "True")).length;
  console.log(`generic=${generic}`, Date.now() - t0, "ms", ready, "ready");
});
