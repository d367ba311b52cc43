// Events as the kubelet and controllers emit them: aggregated by object, reason and message
// (count and lastTimestamp grow), in the involved object's namespace.

import type { Registry } from "../api/registry.js";
import { apiVersionOf, resourceOfKind } from "../api/resources.js";
import { ApiError } from "../api/status.js";
import { stamp } from "../core/clock.js";
import type { Event } from "../core/objects.js";
import type { KObject } from "../core/types.js";

const EVENT_RT = resourceOfKind("Event")!;

export interface EventSource {
  component: string;
  host?: string;
}

export class EventRecorder {
  private readonly seen = new Map<string, string>(); // aggregation key -> event name
  private lastNanos = 0n;

  constructor(private readonly registry: Registry) {}

  record(
    obj: KObject,
    type: "Normal" | "Warning",
    reason: string,
    message: string,
    source: EventSource,
    fieldPath?: string,
  ): void {
    const ns = obj.metadata.namespace ?? "default";
    const now = stamp(this.registry.clock, this.registry.clock.now());
    const aggKey = `${obj.metadata.uid}|${fieldPath ?? ""}|${reason}|${message}`;
    const existingName = this.seen.get(aggKey);
    const existing = existingName
      ? (this.registry.tryGet(EVENT_RT, ns, existingName) as Event | undefined)
      : undefined;
    if (existing) {
      this.registry.update(
        EVENT_RT,
        ns,
        existing.metadata.name!,
        { ...existing, count: (existing.count ?? 1) + 1, lastTimestamp: now },
        { force: true },
      );
      return;
    }
    if (!this.registry.tryGet(resourceOfKind("Namespace")!, undefined, ns)) return;
    // Named by time as kube does (<object>.<hex nanoseconds>), so listings come back in order.
    const clock = this.registry.clock;
    let nanos = BigInt(Math.floor(clock.toWall(clock.now()) * 1000)) * 1000n;
    if (nanos <= this.lastNanos) nanos = this.lastNanos + 1n;
    this.lastNanos = nanos;
    const name = `${obj.metadata.name}.${nanos.toString(16)}`;
    const rt = resourceOfKind(obj.kind);
    const created = this.tryCreate(ns, {
      apiVersion: "v1",
      kind: "Event",
      metadata: { name, namespace: ns },
      involvedObject: {
        kind: obj.kind,
        namespace: obj.metadata.namespace,
        name: obj.metadata.name,
        uid: obj.metadata.uid,
        apiVersion: rt ? apiVersionOf(rt) : obj.apiVersion,
        resourceVersion: obj.metadata.resourceVersion,
        ...(fieldPath ? { fieldPath } : {}),
      },
      reason,
      message,
      source,
      firstTimestamp: now,
      lastTimestamp: now,
      count: 1,
      type,
      eventTime: null,
      reportingComponent: source.component,
      reportingInstance: source.host ?? "",
    });
    if (created) this.seen.set(aggKey, name);
  }

  /** A namespace being deleted refuses new events, as the API server does; the recorder drops them. */
  private tryCreate(ns: string, ev: KObject): boolean {
    try {
      this.registry.create(EVENT_RT, ns, ev);
      return true;
    } catch (e) {
      if (e instanceof ApiError && (e.code === 403 || e.code === 404)) return false;
      throw e;
    }
  }
}
