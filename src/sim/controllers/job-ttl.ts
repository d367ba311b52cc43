// The TTL-after-finished controller (pkg/controller/ttlafterfinished): a Job with
// ttlSecondsAfterFinished is deleted, with its pods, that long after its Complete or Failed
// condition's transition time.

import { R } from "../api/resources.js";
import type { SimContext } from "../context/context.js";
import { parseStamp } from "../core/clock.js";
import { keyOf, splitKey } from "../core/meta.js";
import type { Condition, Job } from "../core/objects.js";
import { jobFinished } from "./job.js";
import { Requeuer } from "./workload-status.js";

const NAME = "ttlafterfinished";

export function installJobTtlController(ctx: SimContext): void {
  const requeue = new Requeuer(ctx, NAME);
  ctx.runtime.register(NAME, (key) => {
    const [ns, name] = splitKey(key);
    const job = ctx.registry.tryGet(R("Job"), ns, name) as Job | undefined;
    const ttl = job?.spec?.ttlSecondsAfterFinished;
    if (!job || typeof ttl !== "number" || !jobFinished(job) || job.metadata.deletionTimestamp) return;
    const done = (job.status?.conditions ?? []).find(
      (c: Condition) => (c.type === "Complete" || c.type === "Failed") && c.status === "True",
    );
    const expireAt = parseStamp(ctx.clock, done?.lastTransitionTime) + ttl * 1000;
    const left = expireAt - ctx.clock.now();
    if (left > 0) {
      requeue.after(key, left);
      return;
    }
    ctx.registry.delete(R("Job"), ns, name, {
      propagationPolicy: "Foreground",
      preconditions: { uid: job.metadata.uid },
    });
  });
  ctx.store.subscribe((e) => {
    if (
      e.rt.kind === "Job" &&
      e.type !== "DELETED" &&
      (e.object as Job).spec?.ttlSecondsAfterFinished !== undefined
    )
      ctx.runtime.enqueue(NAME, keyOf(e.object));
  });
}
