// HTTPChaos: chaos-daemon starts chaos-tproxy in the pod's network namespace and points new TCP
// connections to `port` at it (iptables TPROXY); the proxy applies the rule's actions to the
// HTTP/1 requests or responses it selects by port, path (wildcards), method and, for responses,
// status code: abort (the connection is closed without a response), delay, replace.code. Here
// that is a FaultBook `http` record on each selected pod; the request path (resolve.ts
// httpFaults) reads it for connections opened after the record's `since`. The status keeps an
// `instances` entry per pod, the PodHttpChaos generation, as the other kinds do.
// Chaos Mesh's webhook (api/v1alpha1/httpchaos_webhook.go) refuses a port <= 0, a target other
// than Request or Response, an unknown method and a bad delay; here the record fails with that.

import { parseGoDuration } from "../../util/duration.js";
import type { HttpFault } from "../context/faults.js";
import { type Applier, fail, notFound, ok } from "./applier.js";
import type { HTTPSpec } from "./spec.js";

const METHODS = ["GET", "POST", "PUT", "DELETE", "PATCH", "HEAD", "OPTIONS", "TRACE", "CONNECT"];

/** The rule of a spec as a fault, or why the webhook would refuse it. */
export function httpFault(spec: HTTPSpec | undefined): HttpFault | string {
  const s = spec ?? {};
  if (s.target !== "Request" && s.target !== "Response") return `target ${s.target ?? ""} is not supported`;
  const port = Number(s.port ?? 0);
  if (!(port > 0)) return `port ${port} is not supported`;
  const f: HttpFault = { kind: "http", target: s.target, port };
  if (s.path !== undefined) f.path = String(s.path);
  if (s.method !== undefined) {
    if (s.target === "Request" && !METHODS.includes(String(s.method)))
      return `method ${s.method} is not supported`;
    f.method = String(s.method);
  }
  if (s.code !== undefined) f.code = Number(s.code);
  if (s.abort) f.abort = true;
  if (s.delay !== undefined) {
    const ms = parseGoDuration(s.delay);
    if (ms === undefined) return `invalid duration ${s.delay}`;
    f.delayMs = ms;
  }
  if (s.replace?.code !== undefined) f.replaceCode = Number(s.replace.code);
  return f;
}

export function httpApplier(): Applier {
  return {
    apply({ ctx, chaos, source, now, status }, t) {
      if (!t.pod) return fail(notFound(t));
      if (t.pod.status?.phase !== "Running" || !t.pod.status?.podIP)
        return fail(`pod ${t.ns}/${t.podName} has no network namespace to inject into`);
      const f = httpFault(chaos.spec as HTTPSpec);
      if (typeof f === "string") return fail(f);
      ctx.faults.add({ source, podUid: t.pod.metadata.uid!, fault: f, since: now });
      status.instances = { ...(status.instances ?? {}), [t.id]: Number(status.instances?.[t.id] ?? 0) + 1 };
      return ok({ podUid: t.pod.metadata.uid! });
    },
    recover({ ctx, source, status }, t, inj) {
      // the tproxy goes with the pod's network namespace
      if (inj) ctx.faults.remove(source, inj.podUid);
      if (status.instances) {
        const { [t.id]: _gone, ...rest } = status.instances;
        status.instances = rest;
      }
      return ok();
    },
  };
}
