// Watch: newline-delimited {"type","object"} events, resuming from a resourceVersion when asked
// (410 Expired in an ERROR event when the history no longer reaches back), with selectors applied
// to transitions (an object that stops matching is DELETED for this watcher).
import type { IncomingMessage, ServerResponse } from "node:http";
import { KEY, type KObject, type ResourceType, type StoreEvent } from "../core/types.js";
import type { Store } from "../store/store.js";
import { fieldMatches, matches, parseFieldSelector, parseLabelSelector } from "./selectors.js";
import { ApiError } from "./status.js";

export interface WatchOptions {
  rt: ResourceType;
  namespace?: string;
  name?: string;
  labelSelector?: string | null;
  fieldSelector?: string | null;
  resourceVersion?: string | null;
  timeoutSeconds?: number;
  allowBookmarks?: boolean;
  /** Turn each event's object into what the client asked for (e.g. a Table). */
  render?: (o: KObject, first: boolean) => unknown;
}

export function serveWatch(store: Store, req: IncomingMessage, res: ServerResponse, o: WatchOptions) {
  const labels = parseLabelSelector(o.labelSelector);
  const fields = parseFieldSelector(o.fieldSelector);
  const inScope = (obj: KObject) =>
    (!o.rt.namespaced || !o.namespace || obj.metadata.namespace === o.namespace) &&
    (!o.name || obj.metadata.name === o.name);
  const selected = (obj: KObject | undefined) =>
    !!obj && inScope(obj) && matches(labels, obj.metadata.labels) && fieldMatches(fields, obj);

  let first = true;
  const write = (type: string, object: unknown) => {
    const body =
      o.render && type !== "ERROR" && type !== "BOOKMARK" ? o.render(object as KObject, first) : object;
    first = false;
    res.write(`${JSON.stringify({ type, object: body })}\n`);
  };
  const forward = (e: StoreEvent) => {
    // every version of a resource (and a resource sharing its storage) sees the same objects
    if (KEY(e.rt) !== KEY(o.rt)) return;
    const now = selected(e.object);
    const before = e.type === "MODIFIED" ? selected(e.old) : false;
    if (e.type === "ADDED" && now) write("ADDED", e.object);
    else if (e.type === "DELETED" && (now || selected(e.old))) write("DELETED", e.object);
    else if (e.type === "MODIFIED") {
      if (now && before) write("MODIFIED", e.object);
      else if (now) write("ADDED", e.object);
      else if (before) write("DELETED", e.object);
    }
  };

  res.writeHead(200, {
    "Content-Type": "application/json",
    "Transfer-Encoding": "chunked",
    "Cache-Control": "no-cache, private",
  });
  res.flushHeaders();

  const rvParam = o.resourceVersion;
  if (!rvParam || rvParam === "0") {
    for (const obj of store.list(o.rt, o.rt.namespaced ? o.namespace : undefined))
      if (selected(obj)) write("ADDED", obj);
  } else {
    const rv = Number(rvParam);
    const events = Number.isFinite(rv) ? store.eventsSince(rv) : undefined;
    if (!events) {
      const err = new ApiError(
        410,
        "Expired",
        `too old resource version: ${rvParam} (${store.oldestResumable})`,
      );
      write("ERROR", err.toStatus());
      res.end();
      return;
    }
    for (const e of events) forward(e);
  }

  const unsubscribe = store.subscribe(forward);
  const timers: NodeJS.Timeout[] = [];
  const stop = () => {
    unsubscribe();
    for (const t of timers) clearTimeout(t);
    if (!res.writableEnded) res.end();
  };
  if (o.timeoutSeconds && o.timeoutSeconds > 0) timers.push(setTimeout(stop, o.timeoutSeconds * 1000));
  if (o.allowBookmarks) {
    const bm = setInterval(() => {
      write("BOOKMARK", {
        kind: o.rt.kind,
        apiVersion: o.rt.group ? `${o.rt.group}/${o.rt.version}` : o.rt.version,
        metadata: { resourceVersion: String(store.resourceVersion) },
      });
    }, 30_000);
    bm.unref();
    timers.push(bm);
  }
  req.on("close", stop);
  res.on("error", stop);
}
