// The log subresource of pods: a container's lines (init containers' too), tailed, since a time,
// from the previous run, or followed as a chunked stream until the client goes away.
import type { Pod } from "../../core/objects.js";
import { sendText } from "../http.js";
import { badRequest } from "../status.js";
import type { Call } from "./call.js";

export function log(c: Call) {
  const { req, res, r, q } = c;
  const pod = c.deps.registry.get(r.rt, r.namespace, r.name!) as Pod;
  const containers: string[] = (pod.spec?.containers ?? []).map((k: { name: string }) => k.name);
  const container =
    q.get("container") ??
    (containers.length === 1
      ? containers[0]
      : (pod.metadata.annotations?.["kubectl.kubernetes.io/default-container"] ?? ""));
  if (!container)
    throw badRequest(
      `a container name must be specified for pod ${r.name}, choose one of: [${containers.join(" ")}]`,
    );
  const inits: string[] = (pod.spec?.initContainers ?? []).map((k: { name: string }) => k.name);
  if (!containers.includes(container) && !inits.includes(container))
    throw badRequest(`container ${container} is not valid for pod ${r.name}`);
  const src = c.deps.logs;
  if (!src) return sendText(res, 200, "");
  const tail = q.get("tailLines");
  const { lines, follow } = src.logs({
    pod,
    container,
    tailLines: tail === null ? undefined : Number(tail),
    sinceSeconds: q.get("sinceSeconds") ? Number(q.get("sinceSeconds")) : undefined,
    sinceTime: q.get("sinceTime") ?? undefined,
    previous: q.get("previous") === "true",
    timestamps: q.get("timestamps") === "true",
  });
  if (q.get("follow") !== "true" || !follow) return sendText(res, 200, lines.map((l) => `${l}\n`).join(""));
  res.writeHead(200, { "Content-Type": "text/plain", "Transfer-Encoding": "chunked" });
  for (const l of lines) res.write(`${l}\n`);
  const stop = follow((l) => res.write(`${l}\n`));
  req.on("close", stop);
}
