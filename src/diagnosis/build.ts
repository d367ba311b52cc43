// Building a case's diagnosis report: the faults' names and categories, and the runtime context,
// what `kubectl get pods,deploy` would show of the namespace and the targets' containers and
// resources. Built through the API, on any cluster.
import { readFileSync } from "node:fs";
import type { FailureType } from "../faults/catalog.js";
import type { KubeClient, ServerTable } from "../kube/client.js";
import type { Deployment, Pod } from "../kube/objects.js";
import type { ReportLevel } from "./levels.js";
import type { DiagnosisReport } from "./report.js";
import { alertText, podCounts, type SymptomMeasurement } from "./symptom.js";

/**
 * A Table as kubectl prints it (k8s.io/cli-runtime printers/tableprinter.go): the columns of
 * priority 0, their names upper-cased, cells as %v, three spaces between columns (GetNewTabWriter).
 */
function printTable(t: ServerTable): string {
  const shown = t.columnDefinitions.map((c, i) => ({ c, i })).filter(({ c }) => !c.priority);
  const header = shown.map(({ c }) => c.name.toUpperCase());
  const rows = t.rows.map((r) => shown.map(({ i }) => String(r.cells[i] ?? "")));
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  return [header, ...rows]
    .map((r) =>
      r
        .map((c, i) => c.padEnd(widths[i]))
        .join("   ")
        .trimEnd(),
    )
    .join("\n");
}

/**
 * What `kubectl get pods,deployments` shows: the API server's own tables, so every column and age
 * is what kubectl prints on any cluster (ages counted on the cluster's clock, by the server).
 */
export async function runtimeContext(
  client: KubeClient,
  namespace: string,
  services: string[],
): Promise<string> {
  const [pods, deps, list] = await Promise.all([
    client.table("v1", "Pod", namespace),
    client.table("apps/v1", "Deployment", namespace),
    client.list<Deployment>("apps/v1", "Deployment", namespace),
  ]);
  const parts = [
    `$ kubectl get pods -n ${namespace}`,
    printTable(pods),
    "",
    `$ kubectl get deployments -n ${namespace}`,
    printTable(deps),
  ];
  for (const s of services) {
    const d = list.find((x) => x.metadata.name === s);
    if (!d) continue;
    parts.push("", `Containers of deployment/${s}:`);
    for (const c of d.spec?.template?.spec?.containers ?? []) {
      parts.push(`- ${c.name}: image ${c.image}; resources ${JSON.stringify(c.resources ?? {})}`);
    }
  }
  return parts.join("\n");
}

/** What the report is built from besides the faults: its level, and the symptom level's measurement. */
export interface DiagnosisInput {
  level?: ReportLevel;
  /** The symptom level's measurement (its runtime context is read here, as for every level). */
  symptom?: SymptomMeasurement;
}

/**
 * The report at its level without its runtime context, and the services whose containers that
 * context details (the full level's, of the reference's tiers). Pure: the tests check every
 * failure type of every system through it.
 */
export function reportAt(
  common: { env: string; namespace: string; inventory: string },
  faults: { failure: FailureType; target: string }[],
  input: DiagnosisInput = {},
): { report: Omit<DiagnosisReport, "runtimeContext">; detail: string[] } {
  const first = faults[0];
  const level = input.level ?? "full";
  // the symptom level: an alert written from the measurement, and the namespace as anyone sees it
  if (level === "symptom")
    return {
      report: {
        level,
        ...common,
        alert: input.symptom ? alertText(input.symptom) : "- Alert: the namespace's monitoring fired",
      },
      detail: [],
    };
  const incident = faults.some((f) => f.failure.tier === "incident");
  const base = {
    level,
    ...common,
    service: faults.map((f) => f.target).join(", "),
    ...(incident ? { incident: true } : {}),
  };
  // the service level: no category; the targets' images and resources would say what changed
  if (level === "service") return { report: base, detail: [] };
  // the expert tier: the category and the service, and the namespace as anyone sees it; the
  // target's image and resources would say what changed
  // an incident: the alerting service and the symptom's category, never the causes
  if (faults.some((f) => f.failure.tier !== "reference"))
    return { report: { ...base, category: faults.map((f) => f.failure.category).join(", ") }, detail: [] };
  return {
    report: {
      ...base,
      failure: faults.map((f) => f.failure.id).join(", "),
      category: [...new Set(faults.map((f) => f.failure.category))].join(", "),
      title:
        faults.length === 1
          ? first.failure.title
          : faults.map((f) => `${f.failure.title} in ${f.target}`).join("; "),
    },
    detail: faults.map((f) => f.target),
  };
}

export async function buildDiagnosis(
  client: KubeClient,
  env: string,
  namespace: string,
  faults: { failure: FailureType; target: string }[],
  inventoryPath: string,
  input: DiagnosisInput = {},
): Promise<DiagnosisReport> {
  const common = { env, namespace, inventory: readFileSync(inventoryPath, "utf8") };
  // the symptom level's health alert counts the namespace's pods as they are now
  const symptom = input.symptom && {
    ...input.symptom,
    pods: podCounts(await client.list<Pod>("v1", "Pod", namespace)),
  };
  const { report, detail } = reportAt(common, faults, { ...input, ...(symptom ? { symptom } : {}) });
  return { ...report, runtimeContext: await runtimeContext(client, namespace, detail) };
}
