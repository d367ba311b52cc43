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
  service: string;
  /** What the injection patched, deleted or created besides a chaos object (the expert types). */
  touched?: Touched[];
  /** An incident's causes (kind, name): what localization and the stated diagnosis are scored against. */
  causes?: { kind: string; name: string }[];
  /** The chaos object created, if any (the config patch creates none), in Chaos Mesh's namespace. */
  chaos?: { apiVersion: string; kind: string; name: string; namespace?: string };
  /** Template parameters overridden by the experiment file. */
  params?: Record<string, unknown>;
  /** Cluster ms the chaos runs before Chaos Mesh recovers it by itself (its spec.duration). */
  durationMs?: number;
  /** Cluster time (ms) at which that happens: set by whoever knows the cluster's clock. */
  endsAt?: number;
}
