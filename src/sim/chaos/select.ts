// Choosing the targets of an experiment, once, when it starts (the records controller selects only
// while `containerRecords` is empty): the selector narrows the pods, the mode picks among them with
// the cluster's seeded rng, and container-scoped kinds name a container per pod (the first one
// unless `containerNames` says otherwise). Pods created later are never looked at again.

import { R } from "../api/resources.js";
import { fieldMatches, parseFieldSelector, selectorMatches } from "../api/selectors.js";
import type { SimContext } from "../context/context.js";
import type { Container, Pod } from "../core/objects.js";
import { type ChaosObject, type ChaosSelector, containerScoped, type SelectorSpec } from "./spec.js";

export interface Selected {
  id: string;
  selectorKey: string;
}

/**
 * Pods the selector matches. Chaos Mesh itself ignores the phase unless `podPhaseSelectors` is
 * given, but its daemon can only inject into running containers; docs/failures.md's rule (one random
 * Running pod) is what is modelled: by default only Running pods not being deleted count.
 */
export function matchingPods(ctx: SimContext, sel: ChaosSelector | undefined, defaultNs: string): Pod[] {
  sel = sel ?? {};
  let pods: Pod[];
  if (sel.pods && Object.keys(sel.pods).length) {
    pods = Object.entries(sel.pods as Record<string, string[]>).flatMap(([ns, names]) =>
      names.map((n) => ctx.store.get(R("Pod"), ns, n) as Pod | undefined).filter((p): p is Pod => !!p),
    );
  } else {
    const namespaces: string[] = sel.namespaces?.length ? sel.namespaces : [defaultNs];
    pods = namespaces.flatMap((ns) => ctx.store.list(R("Pod"), ns) as Pod[]);
  }
  const fields = parseFieldSelector(
    Object.entries((sel.fieldSelectors ?? {}) as Record<string, string>)
      .map(([k, v]) => `${k}=${v}`)
      .join(","),
  );
  const phases: string[] | undefined = sel.podPhaseSelectors?.length ? sel.podPhaseSelectors : undefined;
  return pods
    .filter((p) => !p.metadata.deletionTimestamp)
    .filter((p) =>
      selectorMatches(
        { matchLabels: sel.labelSelectors, matchExpressions: sel.expressionSelectors },
        p.metadata.labels,
      ),
    )
    .filter((p) => selectorMatches({ matchLabels: sel.annotationSelectors }, p.metadata.annotations))
    .filter((p) => fieldMatches(fields, p))
    .filter(
      (p) => !sel.nodes?.length || (p.spec?.nodeName !== undefined && sel.nodes.includes(p.spec.nodeName)),
    )
    .filter((p) => !sel.nodeSelectors || nodeMatches(ctx, p, sel.nodeSelectors))
    .filter((p) => {
      const phase = p.status?.phase;
      return phases ? phase !== undefined && phases.includes(phase) : phase === "Running";
    })
    .sort((a, b) =>
      `${a.metadata.namespace}/${a.metadata.name}`.localeCompare(
        `${b.metadata.namespace}/${b.metadata.name}`,
      ),
    );
}

function nodeMatches(ctx: SimContext, pod: Pod, labels: Record<string, string>): boolean {
  const node = pod.spec?.nodeName ? ctx.store.get(R("Node"), undefined, pod.spec.nodeName) : undefined;
  return !!node && selectorMatches({ matchLabels: labels }, node.metadata.labels);
}

/** generic.FilterObjectsByMode: indexes of the chosen objects, or an error message. */
export function pickByMode(ctx: SimContext, mode: string, value: unknown, count: number): number[] | string {
  if (count === 0) return "no pod is selected";
  const n = Number.parseInt(String(value ?? ""), 10);
  switch (mode) {
    case "one":
      return [ctx.rng.int(count)];
    case "all":
      return [...Array(count).keys()];
    case "fixed":
      if (Number.isNaN(n)) return `strconv.Atoi: parsing "${value ?? ""}": invalid syntax`;
      if (n <= 0) return "cannot select any object as value below or equal 0";
      return randomIndexes(ctx, count, Math.min(n, count));
    case "fixed-percent":
    case "random-max-percent": {
      if (Number.isNaN(n)) return `strconv.Atoi: parsing "${value ?? ""}": invalid syntax`;
      if (n === 0) return "cannot select any object as value below or equal 0";
      if (n < 0 || n > 100) return `fixed percentage value of ${n} is invalid, Must be (0,100]`;
      const pct = mode === "fixed-percent" ? n : ctx.rng.int(n + 1);
      return randomIndexes(ctx, count, Math.floor((count * pct) / 100));
    }
    default:
      return `mode ${mode} not supported`;
  }
}

function randomIndexes(ctx: SimContext, count: number, k: number): number[] {
  const left = [...Array(count).keys()];
  const out: number[] = [];
  while (out.length < k) out.push(left.splice(ctx.rng.int(left.length), 1)[0]);
  return out;
}

/** The selector specs of an object by selector key, as GetSelectorSpecs returns them. */
function selectorSpecs(chaos: ChaosObject): [string, SelectorSpec][] {
  const s = chaos.spec ?? {};
  const out: [string, SelectorSpec][] = [[".", { selector: s.selector, mode: s.mode, value: s.value }]];
  if (chaos.kind === "NetworkChaos" && s.target) out.push(["target", s.target]);
  return out;
}

/** Select the experiment's targets now: record ids, or why nothing could be selected. */
export function selectTargets(ctx: SimContext, chaos: ChaosObject): Selected[] | string {
  const ns = chaos.metadata.namespace!;
  const out: Selected[] = [];
  for (const [key, spec] of selectorSpecs(chaos)) {
    const pods = matchingPods(ctx, spec.selector, ns);
    const picked = pickByMode(ctx, spec.mode ?? "one", spec.value, pods.length);
    if (typeof picked === "string") return picked;
    const chosen = picked.map((i) => pods[i]);
    if (!chosen.length) return "no target has been selected";
    for (const pod of chosen) {
      const podId = `${pod.metadata.namespace}/${pod.metadata.name}`;
      if (key !== "." || !containerScoped(chaos)) {
        out.push({ id: podId, selectorKey: key });
        continue;
      }
      for (const c of containersOf(pod, chaos.spec?.containerNames))
        out.push({ id: `${podId}/${c}`, selectorKey: key });
    }
  }
  return out;
}

/** The first container unless names are given; named ones may be sidecar init containers. */
function containersOf(pod: Pod, names: string[] | undefined): string[] {
  if (!names?.length) return pod.spec?.containers?.length ? [pod.spec.containers[0].name] : [];
  const sidecars = (pod.spec?.initContainers ?? []).filter(
    (c: Container) => c.restartPolicy === "Always" && names.includes(c.name),
  );
  const regular = (pod.spec?.containers ?? []).filter((c: Container) => names.includes(c.name));
  return [...sidecars, ...regular].map((c: Container) => c.name);
}
