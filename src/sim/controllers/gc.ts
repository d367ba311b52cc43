// Owner-reference garbage collection: dependents whose owners are all gone are deleted
// (background); an owner deleted in the foreground waits for its dependents; an orphaning
// delete strips the owner reference from them.
import { storedResources } from "../api/resources.js";
import type { SimContext } from "../context/context.js";
import type { KObject, ResourceType } from "../core/types.js";

const NAME = "garbage-collector";

export function installGarbageCollector(ctx: SimContext) {
  const { store, registry, runtime } = ctx;
  const builtIn = storedResources();
  // custom resources own and are owned like any other object
  const stored = () => [...builtIn, ...registry.custom.preferred()];

  const dependentsOf = (uid: string): [ResourceType, KObject][] => {
    const out: [ResourceType, KObject][] = [];
    for (const rt of stored())
      for (const o of store.list(rt))
        if (o.metadata.ownerReferences?.some((r) => r.uid === uid)) out.push([rt, o]);
    return out;
  };
  const ownerExists = (ns: string | undefined, uid: string, kind: string) => {
    const rt = stored().find((r) => r.kind === kind);
    if (!rt) return false;
    return store.list(rt, rt.namespaced ? ns : undefined).some((o) => o.metadata.uid === uid);
  };

  runtime.register(NAME, (key) => {
    const [kind, uid] = key.split("|");
    // 1. an owner that was removed: collect dependents whose owners are all gone
    if (kind === "gone") {
      for (const [rt, d] of dependentsOf(uid)) {
        if (d.metadata.deletionTimestamp) continue;
        const alive = (d.metadata.ownerReferences ?? []).some(
          (r) => r.uid !== uid && ownerExists(d.metadata.namespace, r.uid, r.kind),
        );
        if (!alive)
          registry.delete(rt, d.metadata.namespace, d.metadata.name!, { propagationPolicy: "Background" });
      }
      return;
    }
    // 2. an owner being deleted with a foreground or orphan finalizer
    const rt = stored().find((r) => r.kind === kind);
    if (!rt) return;
    const owner = store.list(rt).find((o) => o.metadata.uid === uid);
    if (!owner?.metadata.deletionTimestamp) return;
    const fins = owner.metadata.finalizers ?? [];
    const deps = dependentsOf(uid);
    if (fins.includes("orphan")) {
      for (const [drt, d] of deps)
        registry.update(
          drt,
          d.metadata.namespace,
          d.metadata.name!,
          {
            ...d,
            metadata: {
              ...d.metadata,
              ownerReferences: d.metadata.ownerReferences!.filter((r) => r.uid !== uid),
            },
          },
          { force: true },
        );
      registry.update(
        rt,
        owner.metadata.namespace,
        owner.metadata.name!,
        { ...owner, metadata: { ...owner.metadata, finalizers: fins.filter((f) => f !== "orphan") } },
        { force: true },
      );
    } else if (fins.includes("foregroundDeletion")) {
      const blocking = deps.filter(([, d]) =>
        d.metadata.ownerReferences?.some((r) => r.uid === uid && r.blockOwnerDeletion),
      );
      for (const [drt, d] of deps)
        if (!d.metadata.deletionTimestamp)
          registry.delete(drt, d.metadata.namespace, d.metadata.name!, { propagationPolicy: "Foreground" });
      if (blocking.length === 0)
        registry.update(
          rt,
          owner.metadata.namespace,
          owner.metadata.name!,
          {
            ...owner,
            metadata: { ...owner.metadata, finalizers: fins.filter((f) => f !== "foregroundDeletion") },
          },
          { force: true },
        );
      else runtime.enqueueAfter(NAME, key, 500);
    }
  });

  store.subscribe((e) => {
    const m = e.object.metadata;
    if (e.type === "DELETED") {
      runtime.enqueue(NAME, `gone|${m.uid}`);
      // a dependent leaving may unblock a foreground owner
      for (const r of m.ownerReferences ?? []) runtime.enqueue(NAME, `${r.kind}|${r.uid}`);
    } else if (
      m.deletionTimestamp &&
      (m.finalizers ?? []).some((f) => f === "orphan" || f === "foregroundDeletion")
    ) {
      runtime.enqueue(NAME, `${e.object.kind}|${m.uid}`);
    }
  });
}
