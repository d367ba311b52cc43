// The scale subresource (autoscaling/v1 Scale) of workloads and of custom resources that declare
// one: read, replace or patch the replica count, checked before it is stored.
import type { KObject, ResourceType } from "../../core/types.js";
import { parseJson, readBody, sendJson } from "../http.js";
import { applyPatch, parsePatchBody, patchTypeOf } from "../patch/index.js";
import { type LabelSelectorSpec, selectorToString } from "../selectors.js";
import { ApiError } from "../status.js";
import { type Call, managerOf } from "./call.js";

/** What the scale subresource reads of its object: a workload, or a custom resource with scale. */
interface Scalable extends KObject {
  spec?: { replicas?: number; selector?: LabelSelectorSpec; [field: string]: unknown };
  status?: { replicas?: number; [field: string]: unknown };
}

const SCALE_RT: ResourceType = {
  group: "autoscaling",
  version: "v1",
  resource: "scale",
  kind: "Scale",
  singular: "scale",
  namespaced: true,
  verbs: [],
};

function toScale(rt: ResourceType, o: Scalable) {
  return {
    kind: "Scale",
    apiVersion: "autoscaling/v1",
    metadata: {
      name: o.metadata.name,
      namespace: o.metadata.namespace,
      uid: o.metadata.uid,
      resourceVersion: o.metadata.resourceVersion,
      creationTimestamp: o.metadata.creationTimestamp,
    },
    spec: { replicas: o.spec?.replicas ?? 0 },
    status: {
      replicas: o.status?.replicas ?? 0,
      // a ReplicationController's selector is a plain label map
      selector: selectorToString(
        rt.kind === "ReplicationController"
          ? { matchLabels: o.spec?.selector as Record<string, string> | undefined }
          : o.spec?.selector,
      ),
    },
  };
}

export async function scale(c: Call) {
  const { req, res, r, method } = c;
  const { registry } = c.deps;
  const live = registry.get(r.rt, r.namespace, r.name!) as Scalable;
  if (method === "GET") return sendJson(res, 200, toScale(r.rt, live));
  const body = await readBody(req);
  let asked: Scalable;
  if (method === "PUT") asked = parseJson(body) as Scalable;
  else if (method === "PATCH") {
    const type = patchTypeOf(req.headers["content-type"]) ?? "merge";
    asked = applyPatch(
      toScale(r.rt, live) as KObject,
      type === "apply" ? "merge" : type,
      parsePatchBody(type, body),
      SCALE_RT,
    ) as Scalable;
  } else throw new ApiError(405, "MethodNotAllowed", `method ${method} is not supported on scale`);
  const replicas: unknown = asked?.spec?.replicas;
  if (typeof replicas !== "number" || replicas < 0 || !Number.isInteger(replicas))
    throw new ApiError(
      422,
      "Invalid",
      `Scale.autoscaling "${r.name}" is invalid: spec.replicas: Invalid value: ${JSON.stringify(replicas)}: must be a non-negative integer`,
    );
  const rv = asked.metadata?.resourceVersion;
  const updated = registry.update(
    r.rt,
    r.namespace,
    r.name!,
    {
      ...live,
      metadata: { ...live.metadata, resourceVersion: rv || live.metadata.resourceVersion },
      spec: { ...live.spec, replicas },
    },
    { manager: managerOf(c) },
  );
  return sendJson(res, 200, toScale(r.rt, updated as Scalable));
}
