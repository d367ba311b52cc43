// Binding a pod to a node (POST .../bindings or .../pods/NAME/binding), as the scheduler does it:
// pkg/registry/core/pod/storage/storage.go (BindingREST.Create, assignPod) sets spec.nodeName and
// the PodScheduled condition once, and answers a Status "Success" with code 201.
import type { Pod, PodCondition } from "../core/objects.js";
import type { KObject } from "../core/types.js";
import type { Registry } from "./registry.js";
import { R } from "./resources.js";
import { ApiError, badRequest } from "./status.js";

interface Binding extends KObject {
  target?: { kind?: string; name?: string };
}

export function bind(registry: Registry, ns: string, urlName: string | undefined, body: unknown) {
  if (!body || typeof body !== "object" || Array.isArray(body))
    throw badRequest("the object provided is not a JSON object");
  const b = body as Binding;
  const name = b.metadata?.name ?? "";
  if (urlName !== undefined && urlName !== name)
    throw badRequest("name in URL does not match name in Binding object");
  const target = b.target?.name ?? "";
  if (b.target?.kind && b.target.kind !== "Node")
    throw new ApiError(500, "InternalError", `only Node kind is supported: ${b.target.kind}`);
  const pod = registry.get(R("Pod"), ns, name) as Pod;
  if (pod.metadata.deletionTimestamp)
    throw new ApiError(409, "Conflict", `pod ${name} is being deleted, cannot be assigned to a host`);
  if (pod.spec?.nodeName)
    throw new ApiError(
      409,
      "Conflict",
      `Operation cannot be fulfilled on pods/binding "${name}": pod ${name} is already assigned to node "${pod.spec.nodeName}"`,
      { name, kind: "pods/binding" },
    );
  const now = registry.now();
  const scheduled = { type: "PodScheduled", status: "True", lastProbeTime: null, lastTransitionTime: now };
  registry.update(
    R("Pod"),
    ns,
    name,
    {
      ...pod,
      spec: { ...pod.spec, nodeName: target },
      status: {
        ...(pod.status ?? {}),
        conditions: [
          ...(pod.status?.conditions ?? []).filter((c: PodCondition) => c.type !== "PodScheduled"),
          scheduled,
        ],
      },
    },
    { force: true },
  );
  return { kind: "Status", apiVersion: "v1", metadata: {}, status: "Success", code: 201 };
}
