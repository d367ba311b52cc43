// API semantics over the store: create/update/delete as the API server does them (defaults,
// validation, resourceVersion checks, generation, status subresource, graceful deletion,
// finalizers). The HTTP handlers and the controllers both write through here.
import { isDeepStrictEqual } from "node:util";
import type { Rng } from "../../util/rng.js";
import { type Clock, stamp } from "../core/clock.js";
import type { Namespace, Pod, Service } from "../core/objects.js";
import { KEY, type KObject, type ResourceType } from "../core/types.js";
import type { Store } from "../store/store.js";
import { generateJobSelector } from "./batch.js";
import { fromStorage, toStorage } from "./convert.js";
import { CustomCatalog } from "./crd/catalog.js";
import { defaultOnRead } from "./crd/schema.js";
import { applyDefaults } from "./defaults.js";
import { type FieldWrite, manage } from "./fields/managers.js";
import { apiVersionOf, resourceOfKind } from "./resources.js";
import { fieldMatches, matches, parseFieldSelector, parseLabelSelector } from "./selectors.js";
import type { ClusterIPAllocator } from "./service-ips.js";
import { ApiError, alreadyExists, badRequest, conflict, notFound } from "./status.js";
import { prepareForCreate, prepareForUpdate } from "./strategy.js";
import { validate, validateUpdate } from "./validate.js";

/**
 * Kinds with a spec whose registry strategy sets no metadata.generation (v1.31): a Pod (until
 * PodObservedGenerationTracking, 1.33), a Service, a Namespace, a PersistentVolume(Claim), a
 * ResourceQuota, a LimitRange, a Node (pkg/registry/core/<kind>/strategy.go PrepareForCreate).
 */
const UNGENERATED = new Set([
  "Pod",
  "Service",
  "Namespace",
  "PersistentVolume",
  "PersistentVolumeClaim",
  "ResourceQuota",
  "LimitRange",
  "Node",
]);

export interface ListOptions {
  labelSelector?: string | null;
  fieldSelector?: string | null;
}

export interface WriteOptions {
  dryRun?: boolean;
  subresource?: string;
  /** Controllers write without resourceVersion checks. */
  force?: boolean;
  /** Where a create draws its uid and generated name (a component's own stream); the registry's by default. */
  rng?: Rng;
  /** Who writes, for managedFields: a request's fieldManager or User-Agent; k3s for the cluster's own components. */
  manager?: string;
  /** Server-side apply: the configuration applied, and whether it takes fields other managers own. */
  apply?: { config: unknown; force: boolean };
}

export interface DeleteOptions {
  gracePeriodSeconds?: number;
  propagationPolicy?: "Foreground" | "Background" | "Orphan";
  preconditions?: { uid?: string; resourceVersion?: string };
  dryRun?: boolean;
}

const NS = (rt: ResourceType) => rt.kind === "Namespace";

/** What an admission plugin is shown: it may change `obj` or refuse the write by throwing. */
export interface AdmissionRequest {
  operation: "CREATE" | "UPDATE";
  rt: ResourceType;
  obj: KObject;
  old?: KObject;
  subresource?: string;
  dryRun: boolean;
}

/** Mutating and validating admission in one: plugins run in order, after defaulting. */
export type AdmissionPlugin = (req: AdmissionRequest) => void;

/** Everything but metadata and status: a change here bumps metadata.generation. */
function specOf(o: KObject): Record<string, unknown> {
  const { metadata: _m, status: _s, apiVersion: _a, kind: _k, ...rest } = o;
  return rest;
}

export class Registry {
  /** The custom resources that CRDs serve in this cluster. */
  readonly custom = new CustomCatalog();
  readonly admission: AdmissionPlugin[] = [];
  /** Validating admission: after the object's own validation, before it is stored (LimitRanger, ResourceQuota). */
  readonly validating: AdmissionPlugin[] = [];

  constructor(
    readonly store: Store,
    readonly clock: Clock,
    readonly rng: Rng,
    /** Where Services without a chosen address get their ClusterIP (a stream of its own). */
    private readonly serviceIPs: ClusterIPAllocator,
  ) {}

  now(): string {
    return stamp(this.clock, this.clock.now());
  }

  get(rt: ResourceType, ns: string | undefined, name: string): KObject {
    const o = this.store.get(rt, ns, name);
    if (!o) throw notFound(rt.resource, rt.group, name);
    return this.read(rt, o);
  }

  tryGet(rt: ResourceType, ns: string | undefined, name: string): KObject | undefined {
    const o = this.store.get(rt, ns, name);
    return o && this.read(rt, o);
  }

  /**
   * An object as the version `rt` reads it: converted from the stored version, and for custom
   * resources with their schema's defaults, as apiextensions decodes them.
   */
  read(rt: ResourceType, o: KObject): KObject {
    if (!rt.custom) return fromStorage(KEY(rt), o, apiVersionOf(rt));
    const out = defaultOnRead(o, this.custom.served(rt)?.schema);
    // every served version reads the same stored object (conversion strategy None)
    const apiVersion = apiVersionOf(rt);
    return out.apiVersion === apiVersion ? out : { ...out, apiVersion };
  }

  private fieldWrite(rt: ResourceType, opts: WriteOptions): FieldWrite {
    return {
      manager: opts.manager ?? "k3s",
      apiVersion: apiVersionOf(rt),
      kind: rt.kind,
      // metav1.Time: whole seconds
      time: this.now().replace(/\.\d+Z$/, "Z"),
      subresource: opts.subresource,
      hasStatus: !!rt.subresources?.includes("status"),
      withStatus: !!opts.force,
      apply: opts.apply,
    };
  }

  private admit(req: AdmissionRequest): void {
    for (const plugin of this.admission) plugin(req);
  }

  list(rt: ResourceType, ns: string | undefined, opts: ListOptions = {}): KObject[] {
    const labels = parseLabelSelector(opts.labelSelector);
    const fields = parseFieldSelector(opts.fieldSelector);
    return this.store
      .list(rt, ns)
      .map((o) => this.read(rt, o))
      .filter((o) => matches(labels, o.metadata.labels) && fieldMatches(fields, o))
      .sort(
        (a, b) =>
          (a.metadata.namespace ?? "").localeCompare(b.metadata.namespace ?? "") ||
          a.metadata.name!.localeCompare(b.metadata.name!),
      );
  }

  private checkNamespace(rt: ResourceType, ns: string | undefined) {
    if (!rt.namespaced) return;
    if (!ns)
      throw badRequest(
        "the namespace of the provided object does not match the namespace sent on the request",
      );
    const nsObj = this.store.get(NSRT, undefined, ns);
    if (!nsObj) throw notFound("namespaces", "", ns);
    if (nsObj.metadata.deletionTimestamp)
      throw new ApiError(
        403,
        "Forbidden",
        `${rt.resource} "${"?"}" is forbidden: unable to create new content in namespace ${ns} because it is being terminated`,
        {
          kind: rt.resource,
        },
      );
  }

  create(rt: ResourceType, ns: string | undefined, input: KObject, opts: WriteOptions = {}): KObject {
    if (!input || typeof input !== "object" || Array.isArray(input))
      throw badRequest("the object provided is not a JSON object");
    const written: KObject = structuredClone(input);
    written.apiVersion = apiVersionOf(rt);
    written.kind = rt.kind;
    const obj = toStorage(KEY(rt), written);
    obj.metadata = { ...(obj.metadata ?? {}) };
    if (obj.metadata.namespace && rt.namespaced && ns && obj.metadata.namespace !== ns)
      throw badRequest(
        "the namespace of the provided object does not match the namespace sent on the request",
      );
    if (rt.namespaced) obj.metadata.namespace = ns;
    else delete obj.metadata.namespace;
    const rng = opts.rng ?? this.rng;
    if (!obj.metadata.name && obj.metadata.generateName)
      obj.metadata.name = obj.metadata.generateName + rng.chars(5);
    try {
      this.checkNamespace(rt, ns);
    } catch (e) {
      if (e instanceof ApiError && e.code === 403)
        throw new ApiError(403, "Forbidden", e.message.replace('"?"', `"${obj.metadata.name}"`), e.details);
      throw e;
    }
    applyDefaults(obj);
    prepareForCreate(obj);
    this.admit({ operation: "CREATE", rt, obj, dryRun: !!opts.dryRun });
    validate(obj);
    // etcd3's store.Create refuses it with a plain error, which the server answers as 500
    if (input.metadata?.resourceVersion && !opts.dryRun)
      throw new ApiError(500, "", "resourceVersion should not be set on objects to be created");
    if (this.store.get(rt, ns, obj.metadata.name!))
      throw alreadyExists(rt.resource, rt.group, obj.metadata.name!);
    // (the real server admits before etcd refuses a duplicate; checking first keeps a quota from being charged for it)
    for (const plugin of this.validating) plugin({ operation: "CREATE", rt, obj, dryRun: !!opts.dryRun });
    const m = obj.metadata;
    m.uid = randomUid(rng);
    m.creationTimestamp = this.now();
    if ((obj.spec !== undefined && !UNGENERATED.has(rt.kind)) || rt.custom) m.generation = 1;
    else delete m.generation;
    delete m.deletionTimestamp;
    delete m.deletionGracePeriodSeconds;
    delete m.resourceVersion;
    if (obj.kind === "Service") this.allocateClusterIP(obj as Service);
    if (obj.kind === "Job") generateJobSelector(obj);
    m.managedFields = manage(undefined, obj, this.fieldWrite(rt, opts));
    if (opts.dryRun)
      return this.read(rt, {
        ...obj,
        metadata: { ...m, resourceVersion: String(this.store.resourceVersion) },
      });
    return this.read(rt, this.store.put(rt, obj));
  }

  update(
    rt: ResourceType,
    ns: string | undefined,
    name: string,
    input: KObject,
    opts: WriteOptions = {},
  ): KObject {
    if (!input || typeof input !== "object" || Array.isArray(input))
      throw badRequest("the object provided is not a JSON object");
    const stored = this.store.get(rt, ns, name);
    if (!stored) throw notFound(rt.resource, rt.group, name);
    // custom resources compare with what a read shows (schema defaults); others with storage
    const old = rt.custom ? this.read(rt, stored) : stored;
    if (input.metadata?.name && input.metadata.name !== name)
      throw badRequest(
        `the name of the object (${input.metadata.name}) does not match the name on the URL (${name})`,
      );
    const rv = input.metadata?.resourceVersion;
    if (!opts.force && rv && rv !== old.metadata.resourceVersion) throw conflict(rt.resource, rt.group, name);
    let next: KObject = structuredClone(input);
    next.apiVersion = apiVersionOf(rt);
    next.kind = rt.kind;
    next = toStorage(KEY(rt), next);
    const hasStatus = rt.subresources?.includes("status");
    if (opts.subresource === "status") {
      next = { ...old, status: next.status };
    } else if (hasStatus && !opts.force) {
      next.status = old.status;
    }
    next.metadata = {
      ...next.metadata,
      name: old.metadata.name,
      namespace: old.metadata.namespace,
      uid: old.metadata.uid,
      creationTimestamp: old.metadata.creationTimestamp,
      generation: old.metadata.generation,
      resourceVersion: old.metadata.resourceVersion,
    };
    if (old.metadata.deletionTimestamp) {
      next.metadata.deletionTimestamp = old.metadata.deletionTimestamp;
      next.metadata.deletionGracePeriodSeconds = old.metadata.deletionGracePeriodSeconds;
    } else if (!opts.force) {
      delete next.metadata.deletionTimestamp;
      delete next.metadata.deletionGracePeriodSeconds;
    }
    for (const k of Object.keys(next.metadata) as (keyof typeof next.metadata)[])
      if (next.metadata[k] === undefined) delete next.metadata[k];
    applyDefaults(next);
    prepareForUpdate(old, next, opts.subresource);
    this.admit({
      operation: "UPDATE",
      rt,
      obj: next,
      old,
      subresource: opts.subresource,
      dryRun: !!opts.dryRun,
    });
    if (opts.subresource !== "status") {
      validate(next);
      validateUpdate(old, next);
    }
    // a custom resource without a status subresource counts status changes too (customresource strategy)
    const gen = (o: KObject) =>
      rt.custom && !rt.subresources?.includes("status") ? { ...specOf(o), status: o.status } : specOf(o);
    if (old.metadata.generation !== undefined && !isDeepStrictEqual(gen(old), gen(next)))
      next.metadata.generation = (old.metadata.generation ?? 1) + 1;
    next.metadata.managedFields = manage(old, next, this.fieldWrite(rt, opts));
    if (isDeepStrictEqual(old, next)) return this.read(rt, old); // a no-op keeps resourceVersion and generation
    if (opts.dryRun) return this.read(rt, next);
    const put = this.store.put(rt, next);
    return this.read(rt, this.finishIfReleased(rt, put) ?? put);
  }

  /** An object marked for deletion whose last finalizer is gone leaves the store. */
  private finishIfReleased(rt: ResourceType, o: KObject): KObject | undefined {
    const m = o.metadata;
    if (!m.deletionTimestamp || (m.finalizers?.length ?? 0) > 0) return undefined;
    if (rt.kind === "Pod" && (m.deletionGracePeriodSeconds ?? 0) > 0) return undefined; // the kubelet ends it
    if (NS(rt)) return undefined; // the namespace controller ends it
    return this.store.remove(rt, m.namespace, m.name!);
  }

  delete(
    rt: ResourceType,
    ns: string | undefined,
    name: string,
    opts: DeleteOptions = {},
  ): { object: KObject; gone: boolean } {
    const stored = this.store.get(rt, ns, name);
    if (!stored) throw notFound(rt.resource, rt.group, name);
    const old = rt.custom ? this.read(rt, stored) : stored;
    // what the caller is shown: the version it addressed
    const shown = (object: KObject, gone = false) => ({ object: this.read(rt, object), gone });
    const pre = opts.preconditions;
    if (pre?.uid && pre.uid !== old.metadata.uid) throw conflict(rt.resource, rt.group, name);
    if (pre?.resourceVersion && pre.resourceVersion !== old.metadata.resourceVersion)
      throw conflict(rt.resource, rt.group, name);
    if (opts.dryRun) return shown(old);
    const m = { ...old.metadata };
    if (NS(rt)) {
      if (m.deletionTimestamp) return shown(old);
      const next = {
        ...old,
        metadata: { ...m, deletionTimestamp: this.now() },
        status: { ...(old as Namespace).status, phase: "Terminating" },
      };
      return shown(this.store.put(rt, next));
    }
    let grace = 0;
    if (rt.kind === "Pod") {
      const pod = old as Pod;
      grace = opts.gracePeriodSeconds ?? pod.spec?.terminationGracePeriodSeconds ?? 30;
      if (!pod.spec?.nodeName || pod.status?.phase === "Succeeded" || pod.status?.phase === "Failed")
        grace = 0;
      if (m.deletionTimestamp && grace >= (m.deletionGracePeriodSeconds ?? 0) && grace !== 0)
        return shown(old);
    } else {
      const policy = opts.propagationPolicy ?? "Background";
      const fin = policy === "Foreground" ? "foregroundDeletion" : policy === "Orphan" ? "orphan" : undefined;
      if (fin && !m.deletionTimestamp && !(m.finalizers ?? []).includes(fin))
        m.finalizers = [...(m.finalizers ?? []), fin];
    }
    if (grace === 0 && (m.finalizers?.length ?? 0) === 0) {
      return shown(this.store.remove(rt, ns, name)!, true);
    }
    if (m.deletionTimestamp && rt.kind !== "Pod") return shown(old);
    m.deletionTimestamp = stamp(this.clock, this.clock.now() + grace * 1000);
    m.deletionGracePeriodSeconds = grace;
    if (rt.kind !== "Pod" && m.generation !== undefined) m.generation += 1;
    return shown(this.store.put(rt, { ...old, metadata: m }));
  }

  /** Remove now, whatever the finalizers say (controllers finishing a deletion). */
  purge(rt: ResourceType, ns: string | undefined, name: string): void {
    this.store.remove(rt, ns, name);
  }

  private allocateClusterIP(svc: Service) {
    if (svc.spec.clusterIP === "None") {
      svc.spec.clusterIPs = ["None"];
      return;
    }
    // an address asked for is kept, and listed in clusterIPs (storage.go's normalizeClusterIPs)
    if (svc.spec.clusterIP) {
      svc.spec.clusterIPs ??= [svc.spec.clusterIP];
      return;
    }
    if (svc.spec.type === "ExternalName") return;
    const used = new Set((this.store.list(SVCRT) as Service[]).map((s) => s.spec?.clusterIP));
    const ip = this.serviceIPs.allocate(used);
    svc.spec.clusterIP = ip;
    svc.spec.clusterIPs = [ip];
  }
}

const NSRT = resourceOfKind("Namespace")!;
const SVCRT = resourceOfKind("Service")!;

function randomUid(rng: Rng): string {
  const h = () => rng.chars(4, "0123456789abcdef");
  return `${h()}${h()}-${h()}-4${h().slice(1)}-a${h().slice(1)}-${h()}${h()}${h()}`;
}
