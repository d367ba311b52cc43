// The diagnosis report as the reference hands it to a method: namespace, root-cause service,
// failure category, the runtime context of the namespace, and the inventory. Its text as a model
// reads it (renderReport), and read back from that text (readReport) by the built-in models, which
// know only what any model is told.

export interface DiagnosisReport {
  namespace: string;
  service: string;
  failure: string;
  category: string;
  title: string;
  env: string;
  runtimeContext: string;
  inventory: string;
}

export function renderReport(r: DiagnosisReport): string {
  return [
    "## Diagnosis report",
    `- System: ${r.env}`,
    `- Namespace: ${r.namespace}`,
    `- Root-cause service: ${r.service}`,
    `- Failure category: ${r.title} (${r.failure}; ${r.category})`,
    "",
    "## Runtime context",
    r.runtimeContext.trim(),
    "",
    "## Ansible inventory (inventory.ini)",
    r.inventory.trim(),
  ].join("\n");
}

/** What a model can read back from a rendered report: the namespace and each fault's failure and service. */
export interface ReportFacts {
  namespace: string;
  faults: { failure: string; service: string }[];
}

/** The inverse of renderReport, for the built-in models, which read the report as any model does. */
export function readReport(text: string): ReportFacts | undefined {
  const namespace = text.match(/^- Namespace: (\S+)$/m)?.[1];
  const services = text.match(/^- Root-cause service: (.+)$/m)?.[1].split(", ");
  // "- Failure category: <title> (<id>, <id>; <category>)": the ids are in the last parentheses
  const ids = text.match(/^- Failure category: .*\(([^()]*);[^()]*\)$/m)?.[1].split(", ");
  if (!namespace || !services || !ids || ids.length !== services.length) return undefined;
  return { namespace, faults: ids.map((failure, i) => ({ failure, service: services[i] })) };
}

/** The report in a conversation: the first message that holds one. */
export function reportIn(messages: { content: string }[]): ReportFacts | undefined {
  for (const m of messages) {
    const r = readReport(m.content);
    if (r) return r;
  }
  return undefined;
}
