// The diagnosis report as the reference hands it to a method: namespace, root-cause service,
// failure category, the runtime context of the namespace, and the inventory.
import type { DiagnosisReport } from "./types.js";

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
