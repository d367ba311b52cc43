// POST serviceaccounts/NAME/token, the TokenRequest API `kubectl create token` calls: a bound
// token for the ServiceAccount, valid until expirationTimestamp or until the ServiceAccount (or
// the object it is bound to) is deleted (kubernetes pkg/registry/core/serviceaccount/storage/token.go).

import type { Registry } from "../api/registry.js";
import { R } from "../api/resources.js";
import { invalid, notFound } from "../api/status.js";
import { API_AUDIENCES, type BoundRef, type TokenAuthority } from "./tokens.js";

type J = Record<string, unknown>;
const obj = (v: unknown): J => (v && typeof v === "object" && !Array.isArray(v) ? (v as J) : {});

const DEFAULT_SECONDS = 3600;
const MIN_SECONDS = 600;
const MAX_SECONDS = 2 ** 32;

export function tokenRequest(
  registry: Registry,
  tokens: TokenAuthority,
  ns: string,
  name: string,
  body: J,
): J {
  const spec = obj(body.spec);
  const given = spec.expirationSeconds;
  const seconds = given === undefined || given === null ? DEFAULT_SECONDS : Number(given);
  const problem = !Number.isInteger(seconds)
    ? "must be an integer"
    : seconds < MIN_SECONDS
      ? "may not specify a duration less than 10 minutes"
      : seconds > MAX_SECONDS
        ? "may not specify a duration larger than 2^32 seconds"
        : undefined;
  if (problem)
    throw invalid("TokenRequest.authentication.k8s.io", name, [
      {
        field: "spec.expirationSeconds",
        message: `Invalid value: ${JSON.stringify(spec.expirationSeconds)}: ${problem}`,
      },
    ]);
  const sa = registry.tryGet(R("ServiceAccount"), ns, name);
  if (!sa) throw notFound("serviceaccounts", "", name);
  const audiences =
    Array.isArray(spec.audiences) && spec.audiences.length ? spec.audiences.map(String) : API_AUDIENCES;
  let ref: BoundRef | undefined;
  const b = obj(spec.boundObjectRef);
  if (b.kind === "Pod" || b.kind === "Secret") {
    const live = registry.tryGet(R(b.kind), ns, String(b.name ?? ""));
    if (!live || (b.uid && b.uid !== live.metadata.uid))
      throw notFound(b.kind === "Pod" ? "pods" : "secrets", "", String(b.name ?? ""));
    ref = { kind: b.kind, name: live.metadata.name!, uid: live.metadata.uid };
  } else if (b.kind !== undefined)
    throw invalid("TokenRequest.authentication.k8s.io", name, [
      {
        field: "spec.boundObjectRef.kind",
        message: `Unsupported value: ${JSON.stringify(b.kind)}: supported values: "Pod", "Secret"`,
      },
    ]);
  const { token, exp } = tokens.bound(sa, audiences, seconds, ref);
  return {
    kind: "TokenRequest",
    apiVersion: "authentication.k8s.io/v1",
    metadata: { name, namespace: ns, creationTimestamp: null },
    spec: {
      audiences,
      expirationSeconds: seconds,
      boundObjectRef: ref ? { kind: ref.kind, apiVersion: "v1", name: ref.name, uid: ref.uid } : null,
    },
    status: { token, expirationTimestamp: new Date(exp * 1000).toISOString().replace(/\.\d{3}Z$/, "Z") },
  };
}
