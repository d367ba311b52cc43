// What an injection did: the objects it changed besides a chaos object, and the chaos object it
// created (in Chaos Mesh's namespace), so that the restore can put exactly that back.

/** An object the injection changed, so the restore can put exactly it back. */
export interface Touched {
  apiVersion: string;
  kind: string;
  name: string;
  /** replaced: a command ran in the service's pods (runtime state), so they are replaced at restore. */
  action: "patched" | "deleted" | "created" | "replaced";
}

export interface Injection {
  failure: string;
  namespace: string;
  /** The service it was injected into (an incident: the alerting service). */
  target: string;
  /** What the injection patched, deleted or created besides a chaos object (the expert types). */
  touched?: Touched[];
  /** An incident's causes (kind, name): what localization and the stated diagnosis are scored against. */
  causes?: CauseRef[];
  /** The chaos object created, if any (the config patch creates none), in Chaos Mesh's namespace. */
  chaos?: { apiVersion: string; kind: string; name: string; namespace?: string };
  /** Template parameters overridden by the experiment file. */
  params?: Record<string, unknown>;
  /** Cluster ms the chaos runs before Chaos Mesh recovers it by itself (its spec.duration). */
  durationMs?: number;
  /** Cluster time (ms) at which that happens: set by whoever knows the cluster's clock. */
  endsAt?: number;
  /** An incident's onset: cluster time (ms) from which its steps left users' requests failing. */
  onsetMs?: number;
}

/** The injection with what it noted of the cluster's shown time moved by `ms` (the clock re-based). */
export function movedBy(i: Injection, ms: number): Injection {
  if (!ms) return i;
  return {
    ...i,
    ...(i.endsAt !== undefined ? { endsAt: i.endsAt + ms } : {}),
    ...(i.onsetMs !== undefined ? { onsetMs: i.onsetMs + ms } : {}),
  };
}

/** An incident's cause as scored: the object, and the objects that carry it too (Cause.via). */
export interface CauseRef {
  kind: string;
  name: string;
  via?: { kind: string; name: string }[];
}

/** A cause as localization and the stated diagnosis score it: the object and those that carry it too. */
export const causeRef = (c: {
  kind: string;
  name: string;
  via?: { kind: string; name: string }[];
}): CauseRef => ({
  kind: c.kind,
  name: c.name,
  ...(c.via?.length ? { via: c.via.map((v) => ({ kind: v.kind, name: v.name })) } : {}),
});
