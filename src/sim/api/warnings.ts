// The warnings the API server sends with a write (the `Warning: 299 - "..."` headers kubectl prints
// as "Warning: ..."): for now the one about a container's duplicate environment variables, which
// kube-apiserver sends since 1.30 (pkg/api/pod/warnings.go, warningsForPodSpecAndMeta: an env
// entry whose name an earlier entry has, unless its value refers to that earlier one as $(NAME)).
// Workload kinds warn about their pod template on create, and on update only when the spec changed
// (pkg/registry/apps/deployment/strategy.go WarningsOnUpdate: when the generation moved).
import type { KObject } from "../core/types.js";

interface EnvVar {
  name?: string;
  value?: string;
  valueFrom?: unknown;
}
interface Container {
  env?: EnvVar[];
}
interface PodSpec {
  initContainers?: Container[];
  containers?: Container[];
  ephemeralContainers?: Container[];
}

/** Where each kind keeps its pod spec: the path as the warnings name it, and the spec. */
function podSpecOf(o: KObject): { path: string; spec: PodSpec } | undefined {
  const at = (path: string, spec: unknown) => (spec ? { path, spec: spec as PodSpec } : undefined);
  const spec = (o as { spec?: Record<string, unknown> }).spec;
  const tmpl = (s: unknown) => (s as { template?: { spec?: unknown } } | undefined)?.template?.spec;
  switch (o.kind) {
    case "Pod":
      return at("spec", spec);
    case "PodTemplate":
      return at("template.spec", (o as { template?: { spec?: unknown } }).template?.spec);
    case "Deployment":
    case "ReplicaSet":
    case "StatefulSet":
    case "DaemonSet":
    case "Job":
    case "ReplicationController":
      return at("spec.template.spec", tmpl(spec));
    case "CronJob":
      return at("spec.jobTemplate.spec.template.spec", tmpl((spec?.jobTemplate as { spec?: unknown })?.spec));
    default:
      return undefined;
  }
}

function duplicateEnv(path: string, spec: PodSpec): string[] {
  const out: string[] = [];
  const lists: [string, Container[] | undefined][] = [
    ["initContainers", spec.initContainers],
    ["containers", spec.containers],
    ["ephemeralContainers", spec.ephemeralContainers],
  ];
  for (const [field, containers] of lists)
    (containers ?? []).forEach((c, ci) => {
      const seen = new Set<string>();
      (c.env ?? []).forEach((e, i) => {
        const name = e.name ?? "";
        if (!seen.has(name)) {
          seen.add(name);
          return;
        }
        // X="$(X)..." builds on the earlier value: no warning, unless it is X="$(X)" or a valueFrom
        const ref = `$(${name})`;
        const value = e.value ?? "";
        if (e.valueFrom !== undefined || value === ref || !value.includes(ref))
          out.push(
            `${path}.${field}[${ci}].env[${i}]: hides previous definition of ${JSON.stringify(name)}, which may be dropped when using apply`,
          );
      });
    });
  return out;
}

/** The warnings for a write of `obj` (`old`: what it replaces, on an update). */
export function writeWarnings(obj: KObject, old?: KObject): string[] {
  const at = podSpecOf(obj);
  if (!at) return [];
  const body = (o: KObject) =>
    JSON.stringify((o as { spec?: unknown; template?: unknown }).spec ?? o.template);
  if (old && obj.kind !== "Pod" && body(old) === body(obj)) return [];
  return duplicateEnv(at.path, at.spec);
}

/** The Warning header values (RFC 7234 warn-code 299, agent "-", the text quoted). */
export const warningHeaders = (warnings: string[]) => warnings.map((w) => `299 - ${JSON.stringify(w)}`);
