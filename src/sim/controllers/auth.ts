// The controllers of authentication and RBAC: the bootstrap policy, ClusterRole aggregation
// (kubernetes pkg/controller/clusterroleaggregation) and the tokens controller that fills
// Secrets of type kubernetes.io/service-account-token (pkg/controller/serviceaccount/tokens_controller.go).
import { isDeepStrictEqual } from "node:util";
import { R } from "../api/resources.js";
import { selectorMatches } from "../api/selectors.js";
import { DEFAULT_CLUSTER_ROLE_BINDINGS, DEFAULT_CLUSTER_ROLES } from "../auth/default-roles.js";
import { requester } from "../auth/escalation.js";
import type { TokenAuthority } from "../auth/tokens.js";
import type { SimContext } from "../context/context.js";
import { keyOf, splitKey } from "../core/meta.js";
import type { Role } from "../core/objects.js";
import type { KObject } from "../core/types.js";

const AGGREGATION = "clusterrole-aggregation";
const TOKENS = "serviceaccount-tokens";
export const SA_TOKEN_TYPE = "kubernetes.io/service-account-token";
const SA_NAME = "kubernetes.io/service-account.name";
const SA_UID = "kubernetes.io/service-account.uid";

const BOOTSTRAP_META = {
  labels: { "kubernetes.io/bootstrapping": "rbac-defaults" },
  annotations: { "rbac.authorization.kubernetes.io/autoupdate": "true" },
};

function bootstrap(ctx: SimContext) {
  const { registry } = ctx;
  const rbac = "rbac.authorization.k8s.io/v1";
  for (const r of DEFAULT_CLUSTER_ROLES)
    registry.create(R("ClusterRole"), undefined, {
      apiVersion: rbac,
      kind: "ClusterRole",
      metadata: {
        name: r.name,
        labels: { ...BOOTSTRAP_META.labels, ...r.labels },
        annotations: BOOTSTRAP_META.annotations,
      },
      ...(r.aggregateFrom
        ? {
            aggregationRule: {
              clusterRoleSelectors: r.aggregateFrom.map((l) => ({ matchLabels: { [l]: "true" } })),
            },
          }
        : {}),
      rules: r.rules ?? [],
    });
  for (const b of DEFAULT_CLUSTER_ROLE_BINDINGS)
    registry.create(R("ClusterRoleBinding"), undefined, {
      apiVersion: rbac,
      kind: "ClusterRoleBinding",
      metadata: { name: b.name, ...BOOTSTRAP_META },
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: b.role },
      subjects: b.groups.map((g) => ({ apiGroup: "rbac.authorization.k8s.io", kind: "Group", name: g })),
    });
}

/** The union of the rules of the ClusterRoles an aggregated role selects, in name order. */
function aggregate(ctx: SimContext, name: string): boolean {
  const role = ctx.registry.tryGet(R("ClusterRole"), undefined, name) as Role | undefined;
  const selectors = role?.aggregationRule?.clusterRoleSelectors;
  if (!role || !Array.isArray(selectors)) return false;
  const rules: unknown[] = [];
  for (const other of ctx.registry.list(R("ClusterRole"), undefined) as Role[]) {
    if (other.metadata.name === name) continue;
    if (!selectors.some((s) => selectorMatches(s, other.metadata.labels))) continue;
    for (const r of other.rules ?? []) if (!rules.some((x) => isDeepStrictEqual(x, r))) rules.push(r);
  }
  if (isDeepStrictEqual(role.rules ?? [], rules)) return false;
  ctx.registry.update(R("ClusterRole"), undefined, name, { ...role, rules }, { force: true });
  return true;
}

function syncTokenSecret(ctx: SimContext, tokens: TokenAuthority, caPem: string, ns: string, name: string) {
  const { registry } = ctx;
  const secret = registry.tryGet(R("Secret"), ns, name);
  if (!secret || secret.type !== SA_TOKEN_TYPE || secret.metadata.deletionTimestamp) return;
  const saName = secret.metadata.annotations?.[SA_NAME];
  if (!saName) return;
  const sa = registry.tryGet(R("ServiceAccount"), ns, saName);
  const wantUid = secret.metadata.annotations?.[SA_UID];
  if (!sa || (wantUid && wantUid !== sa.metadata.uid)) {
    // a token for a ServiceAccount that is gone is deleted, as the tokens controller does
    registry.delete(R("Secret"), ns, name);
    return;
  }
  const data = { ...(secret.data ?? {}) } as Record<string, string>;
  const b64 = (s: string) => Buffer.from(s).toString("base64");
  const ca = b64(caPem);
  if (data.token && data["ca.crt"] === ca && data.namespace === b64(ns) && wantUid) return;
  if (!data.token) data.token = b64(tokens.legacy(sa, name));
  data["ca.crt"] = ca;
  data.namespace = b64(ns);
  const annotations = { ...secret.metadata.annotations, [SA_UID]: sa.metadata.uid! };
  registry.update(
    R("Secret"),
    ns,
    name,
    { ...secret, metadata: { ...secret.metadata, annotations }, data },
    { force: true },
  );
}

function deleteTokensOf(ctx: SimContext, sa: KObject) {
  for (const s of ctx.registry.list(R("Secret"), sa.metadata.namespace)) {
    const a = s.metadata.annotations ?? {};
    if (
      s.type === SA_TOKEN_TYPE &&
      a[SA_NAME] === sa.metadata.name &&
      (!a[SA_UID] || a[SA_UID] === sa.metadata.uid)
    )
      ctx.registry.delete(R("Secret"), s.metadata.namespace, s.metadata.name!);
  }
}

export function installAuthControllers(ctx: SimContext, tokens: TokenAuthority, caPem: string): void {
  const { runtime, store } = ctx;
  bootstrap(ctx);
  const aggregated = () =>
    ctx.registry
      .list(R("ClusterRole"), undefined)
      .filter((r) => r.aggregationRule)
      .map((r) => r.metadata.name!);
  // settle the chain view → edit → admin before the first request
  for (let pass = 0, changed = true; changed && pass < 10; pass++) {
    changed = false;
    for (const n of aggregated()) if (aggregate(ctx, n)) changed = true;
  }
  // a drain may start inside some user's request; the aggregator writes as the cluster, not as them
  runtime.register(AGGREGATION, (name) => requester.exit(() => void aggregate(ctx, name)));
  runtime.register(TOKENS, (key) => {
    const [ns, name] = splitKey(key);
    if (ns) syncTokenSecret(ctx, tokens, caPem, ns, name);
  });
  store.subscribe((e) => {
    const kind = e.rt.kind;
    if (kind === "ClusterRole") for (const n of aggregated()) runtime.enqueue(AGGREGATION, n);
    else if (kind === "Secret" && e.type !== "DELETED" && e.object.type === SA_TOKEN_TYPE)
      runtime.enqueue(TOKENS, keyOf(e.object));
    else if (kind === "ServiceAccount") {
      if (e.type === "DELETED") deleteTokensOf(ctx, e.object);
      else
        for (const s of store.list(R("Secret"), e.object.metadata.namespace))
          if (s.type === SA_TOKEN_TYPE && s.metadata.annotations?.[SA_NAME] === e.object.metadata.name)
            runtime.enqueue(TOKENS, keyOf(s));
    }
  });
}
