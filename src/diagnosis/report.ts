// The diagnosis report as the reference hands it to a method: namespace, root-cause service,
// failure category, the runtime context of the namespace, and the inventory. For the expert
// tier's failures it names the category at the reference's grain and the service, never the
// type (docs/expert-tier.md): finding what is wrong is the model's work. Lower levels (--report,
// levels.ts) leave out the category (service) or the service too (symptom: an alert instead).
// Its text as a model reads it (renderReport), and read back from that text (readReport) by the
// built-in models, which know only what any model is told.
import type { ReportLevel } from "./levels.js";

export interface DiagnosisReport {
  /** The level the report was written at; absent in reports of versions before levels (full). */
  level?: ReportLevel;
  namespace: string;
  /** The root-cause services, comma-separated; absent at the symptom level. */
  service?: string;
  /** The failure types' ids; absent when a fault is of the expert tier, and below full. */
  failure?: string;
  /** Each fault's category, in the order of the services (the reference's: the distinct ones); full only. */
  category?: string;
  /** The failure types' names; absent when a fault is of the expert tier, and below full. */
  title?: string;
  /** An incident's report: `service` is the alerting service, not the cause (docs/incident-tier.md). */
  incident?: boolean;
  /** The symptom level's alert: what users see, against the baseline, since when. */
  alert?: string;
  env: string;
  runtimeContext: string;
  inventory: string;
}

export function renderReport(r: DiagnosisReport): string {
  const head =
    r.level === "symptom"
      ? [
          "## Alert",
          `- System: ${r.env}`,
          `- Namespace: ${r.namespace}`,
          ...(r.alert ?? "").trim().split("\n"),
        ]
      : [
          "## Diagnosis report",
          `- System: ${r.env}`,
          `- Namespace: ${r.namespace}`,
          r.incident ? `- Alerting service: ${r.service}` : `- Root-cause service: ${r.service}`,
          ...(r.failure
            ? [`- Failure category: ${r.title} (${r.failure}; ${r.category})`]
            : r.category
              ? [`- Failure category: ${r.category}`]
              : []),
        ];
  return [
    ...head,
    "",
    "## Runtime context",
    r.runtimeContext.trim(),
    "",
    "## Ansible inventory (inventory.ini)",
    r.inventory.trim(),
  ].join("\n");
}

/** What a model can read back from a rendered report: the namespace and each fault's service, and its failure or category. */
export interface ReportFacts {
  namespace: string;
  /** failure: the type's id when the report names it; category: what the report says otherwise. */
  faults: { failure?: string; category?: string; service: string }[];
  /** An alert names no service: the faults are for the reader to find. */
  alert?: boolean;
  /** An incident's report: the service named is where users' requests fail, the causes are to be found. */
  incident?: boolean;
}

/** The inverse of renderReport, for the built-in models, which read the report as any model does. */
export function readReport(text: string): ReportFacts | undefined {
  const namespace = text.match(/^- Namespace: (\S+)$/m)?.[1];
  if (namespace && /^## Alert$/m.test(text)) return { namespace, faults: [], alert: true };
  const alerting = text.match(/^- Alerting service: (.+)$/m)?.[1].split(", ");
  if (namespace && alerting) {
    const categories = text.match(/^- Failure category: ([^()\n]+)$/m)?.[1].split(", ");
    return {
      namespace,
      incident: true,
      faults: alerting.map((service, i) => ({ service, ...(categories ? { category: categories[i] } : {}) })),
    };
  }
  const services = text.match(/^- Root-cause service: (.+)$/m)?.[1].split(", ");
  // "- Failure category: <title> (<id>, <id>; <category>)": the ids are in the last parentheses
  const ids = text.match(/^- Failure category: .*\(([^()]*);[^()]*\)$/m)?.[1].split(", ");
  if (!namespace || !services) return undefined;
  if (ids) {
    if (ids.length !== services.length) return undefined;
    return { namespace, faults: ids.map((failure, i) => ({ failure, service: services[i] })) };
  }
  // the expert tier's grain: the categories only, one per service; the service level: none
  const categories = text.match(/^- Failure category: ([^()\n]+)$/m)?.[1].split(", ");
  if (!categories) return { namespace, faults: services.map((service) => ({ service })) };
  if (categories.length !== services.length) return undefined;
  return { namespace, faults: categories.map((category, i) => ({ category, service: services[i] })) };
}

/** The report in a conversation: the first message that holds one. */
export function reportIn(messages: { content: string }[]): ReportFacts | undefined {
  for (const m of messages) {
    const r = readReport(m.content);
    if (r) return r;
  }
  return undefined;
}
