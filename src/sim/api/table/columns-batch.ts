// batch/v1 kinds, with the columns of kubectl 1.31's printers (pkg/printers/internalversion/
// printers.go: printJob with its Status column since 1.28, printCronJob with Timezone).

import type { CronJob, Job } from "../../core/objects.js";
import { humanDuration, parseTime, since } from "./duration.js";
import { formatLabelSelector, int } from "./format.js";
import { col } from "./types.js";
import { workloadPrinter } from "./workload.js";

const has = (o: Job, type: string) =>
  (o.status?.conditions ?? []).some((c) => c.type === type && c.status === "True");

/** printJob's status: terminal conditions first, then terminating, suspended, interim ones. */
function jobStatus(o: Job): string {
  if (has(o, "Complete")) return "Complete";
  if (has(o, "Failed")) return "Failed";
  if (o.metadata?.deletionTimestamp) return "Terminating";
  if (has(o, "Suspended")) return "Suspended";
  if (has(o, "FailureTarget")) return "FailureTarget";
  if (has(o, "SuccessCriteriaMet")) return "SuccessCriteriaMet";
  return "Running";
}

function completions(o: Job): string {
  const succeeded = int(o.status?.succeeded);
  if (typeof o.spec?.completions === "number") return `${succeeded}/${o.spec.completions}`;
  const parallelism = int(o.spec?.parallelism);
  return parallelism > 1 ? `${succeeded}/1 of ${parallelism}` : `${succeeded}/1`;
}

function duration(o: Job, now: number): string {
  const start = parseTime(o.status?.startTime);
  if (start === undefined) return "";
  const end = parseTime(o.status?.completionTime);
  return humanDuration((end ?? now) - start);
}

export const jobPrinter = workloadPrinter<Job>({
  own: [
    col("Status", "string", "Status of the job."),
    col(
      "Completions",
      "string",
      "The number of pods which reached phase Succeeded. The value increases monotonically for a given spec. However, it may decrease in reaction to scale down of elastic indexed jobs.",
    ),
    col("Duration", "string", "Time required to complete the job."),
  ],
  cells(o, now) {
    return [jobStatus(o), completions(o), duration(o, now)];
  },
  podSpec: (o) => o.spec?.template?.spec,
  selector: {
    description:
      "A label query over pods that should match the pod count. Normally, the system sets this field for you. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors",
    cell: (o) => formatLabelSelector(o.spec?.selector),
  },
});

export const cronJobPrinter = workloadPrinter<CronJob>({
  own: [
    col("Schedule", "string", "The schedule in Cron format, see https://en.wikipedia.org/wiki/Cron."),
    col(
      "Timezone",
      "string",
      "The time zone name for the given schedule, see https://en.wikipedia.org/wiki/List_of_tz_database_time_zones. If not specified, this will default to the time zone of the kube-controller-manager process. The set of valid time zone names and the time zone offset is loaded from the system-wide time zone database by the API server during CronJob validation and the controller manager during execution. If no system-wide time zone database can be found a bundled version of the database is used instead. If the time zone name becomes invalid during the lifetime of a CronJob or due to a change in host configuration, the controller will stop creating new new Jobs and will create a system event with the reason UnknownTimeZone. More information can be found in https://kubernetes.io/docs/concepts/workloads/controllers/cron-jobs/#time-zones",
    ),
    col(
      "Suspend",
      "boolean",
      "This flag tells the controller to suspend subsequent executions, it does not apply to already started executions.  Defaults to false.",
    ),
    col("Active", "integer", "A list of pointers to currently running jobs."),
    col("Last Schedule", "string", "Information when was the last time the job was successfully scheduled."),
  ],
  cells(o, now) {
    const suspend = o.spec?.suspend;
    return [
      o.spec?.schedule ?? "",
      o.spec?.timeZone ?? "<none>",
      // printBoolPtr
      suspend === undefined || suspend === null ? "<unset>" : suspend ? "True" : "False",
      (o.status?.active ?? []).length,
      o.status?.lastScheduleTime ? since(o.status.lastScheduleTime, now) : "<none>",
    ];
  },
  podSpec: (o) => o.spec?.jobTemplate?.spec?.template?.spec,
  selector: {
    description:
      "A label query over pods that should match the pod count. Normally, the system sets this field for you. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors",
    cell: (o) => formatLabelSelector(o.spec?.jobTemplate?.spec?.selector),
  },
});
