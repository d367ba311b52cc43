// The batch/v1 controllers of kube-controller-manager: Jobs, CronJobs and the TTL-after-finished
// controller, installed together (index.ts needs one line for all of them).
import type { SimContext } from "../context/context.js";
import { installCronJobController } from "./cronjob.js";
import { installJobController } from "./job.js";
import { installJobTtlController } from "./job-ttl.js";

export function installBatchControllers(ctx: SimContext): void {
  installJobController(ctx);
  installCronJobController(ctx);
  installJobTtlController(ctx);
}
