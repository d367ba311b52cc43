// CustomResourceDefinitions, as apiextensions-apiserver runs them: a CRD's versions are served
// (discovery and the router) as soon as it is stored; the naming and establishing controllers
// report NamesAccepted and Established with the accepted names; deleting a CRD deletes every
// object of its kind (the finalizer controller's customresourcecleanup). Condition texts:
// apiextensions-apiserver pkg/controller/status/naming_controller.go and
// pkg/controller/establish/establishing_controller.go.
import { isDeepStrictEqual } from "node:util";
import { R } from "../api/resources.js";
import type { SimContext } from "../context/context.js";
import type {
  Condition,
  CrdNames,
  CrdStatus,
  CrdVersion,
  CustomResourceDefinition,
} from "../core/objects.js";

const NAME = "crd";

export function installCrdController(ctx: SimContext): void {
  const { store, registry, runtime } = ctx;
  runtime.register(NAME, (name) => {
    const crd = registry.tryGet(R("CustomResourceDefinition"), undefined, name) as
      | CustomResourceDefinition
      | undefined;
    if (!crd || crd.metadata.deletionTimestamp) return;
    const status = crdStatus(crd, registry.now());
    if (isDeepStrictEqual(status, crd.status)) return;
    registry.update(
      R("CustomResourceDefinition"),
      undefined,
      name,
      { ...crd, status },
      {
        subresource: "status",
        force: true,
      },
    );
  });

  store.subscribe((e) => {
    if (e.rt.kind !== "CustomResourceDefinition") return;
    const name = e.object.metadata.name!;
    if (e.type === "DELETED") {
      const rt = registry.custom.ofCrd(name);
      registry.custom.unregister(name);
      // its objects go with it (all versions share one table in the store)
      if (rt) for (const o of store.list(rt)) store.remove(rt, o.metadata.namespace, o.metadata.name!);
      return;
    }
    // served at once, so `kubectl apply` of a CRD and then of its objects works
    if (!isDeepStrictEqual(e.old?.spec, e.object.spec)) registry.custom.register(e.object);
    runtime.enqueue(NAME, name);
  });
}

function crdStatus(crd: CustomResourceDefinition, now: string): CrdStatus {
  const spec = crd.spec;
  const n = spec.names;
  const acceptedNames: CrdNames = {
    plural: n.plural,
    singular: n.singular,
    kind: n.kind,
    listKind: n.listKind,
  };
  if (n.shortNames?.length) acceptedNames.shortNames = n.shortNames;
  if (n.categories?.length) acceptedNames.categories = n.categories;
  const old: Condition[] = crd.status?.conditions ?? [];
  const cond = (type: string, reason: string, message: string) => {
    const prev = old.find((c) => c.type === type);
    const same = prev?.status === "True";
    return {
      type,
      status: "True",
      lastTransitionTime: same ? prev.lastTransitionTime : now,
      reason,
      message,
    };
  };
  const storage = (spec.versions ?? []).find((v: CrdVersion) => v.storage)?.name;
  const stored: string[] = [...(crd.status?.storedVersions ?? [])];
  if (storage && !stored.includes(storage)) stored.push(storage);
  return {
    acceptedNames,
    conditions: [
      cond("NamesAccepted", "NoConflicts", "no conflicts found"),
      cond("Established", "InitialNamesAccepted", "the initial names have been accepted"),
    ],
    storedVersions: stored,
  };
}
