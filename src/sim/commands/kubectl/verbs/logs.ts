// kubectl logs (staging/src/k8s.io/kubectl/pkg/cmd/logs/logs.go): a pod's container log from
// pods/NAME/log (-c, --tail, --since, --previous, --timestamps); a pod of several containers
// needs -c, as kubectl says.

import type { ResourceType } from "../../../core/types.js";
import { KubectlError } from "../client.js";
import type { Run, Verb } from "../context.js";
import { pathOf, resolveResource } from "../resources.js";
import type { J } from "./common.js";

async function run(r: Run): Promise<number> {
  const { f } = r;
  const arg = f.args[0];
  if (!arg)
    throw new KubectlError(
      "error: expected 'logs [-f] [-p] (POD | TYPE/NAME) [-c CONTAINER]'.\nPOD or TYPE/NAME is a required argument for the logs command\nSee 'kubectl logs -h' for help and examples",
    );
  const ns = r.namespace();
  const podRt = resolveResource("pods")!;
  let name = arg;
  if (arg.includes("/")) {
    const type = resolveResource(arg.slice(0, arg.indexOf("/")));
    const n = arg.slice(arg.indexOf("/") + 1);
    if (!type)
      throw new KubectlError(
        `error: the server doesn't have a resource type "${arg.slice(0, arg.indexOf("/"))}"`,
      );
    name = type.kind === "Pod" ? n : await firstPod(r, type, ns, n);
  }
  const pod = await r.client().get(pathOf(podRt, ns, name));
  const spec = (pod.spec ?? {}) as J;
  const names = (k: string) => ((spec[k] as J[] | undefined) ?? []).map((c) => String(c.name));
  const containers = names("containers");
  let container = f.str("container") ?? f.args[1];
  if (!container) {
    if (containers.length !== 1)
      throw new KubectlError(
        `error: a container name must be specified for pod ${name}, choose one of: [${containers.join(" ")}]`,
      );
    container = containers[0];
  }
  // podutils.FindContainerByName, before any request for the log
  if (![...containers, ...names("initContainers"), ...names("ephemeralContainers")].includes(container))
    throw new KubectlError(`error: container ${container} is not valid for pod ${name}`);
  const q = new URLSearchParams({ container });
  if (f.str("tail") !== undefined && f.str("tail") !== "-1") q.set("tailLines", f.str("tail")!);
  if (f.bool("previous")) q.set("previous", "true");
  if (f.bool("timestamps")) q.set("timestamps", "true");
  const since = f.str("since");
  if (since) {
    const m = /^(\d+)(s|m|h)$/.exec(since);
    if (m)
      q.set(
        "sinceSeconds",
        String(Number(m[1]) * ({ s: 1, m: 60, h: 3600 } as Record<string, number>)[m[2]]),
      );
  }
  const a = await r.client().request("GET", `${pathOf(podRt, ns, name, "log")}?${q}`, { accept: "*/*" });
  r.p.out(a.body);
  return 0;
}

/**
 * polymorphichelpers.AttachablePodForObject: a workload's pods by its selector, the running ones
 * first (GetFirstPod's ActivePods order); several found are announced on stderr.
 */
async function firstPod(r: Run, rt: ResourceType, ns: string, name: string): Promise<string> {
  const o = await r.client().get(pathOf(rt, ns, name));
  const sel = (((o.spec as J | undefined)?.selector as J | undefined)?.matchLabels ?? {}) as Record<
    string,
    string
  >;
  const q = Object.entries(sel)
    .map(([k, v]) => `${k}=${v}`)
    .join(",");
  const list = await r
    .client()
    .get(`${pathOf(resolveResource("pods")!, ns)}?labelSelector=${encodeURIComponent(q)}`);
  const pods = ((list.items as J[] | undefined) ?? []).filter((p) => !(p.metadata as J).deletionTimestamp);
  if (!pods.length) throw new KubectlError(`error: timed out waiting for the condition`);
  const running = (p: J) => ((p.status as J | undefined)?.phase === "Running" ? 0 : 1);
  pods.sort((a, b) => running(a) - running(b));
  const pick = String((pods[0].metadata as J).name);
  if (pods.length > 1) r.p.stderr.write(`Found ${pods.length} pods, using pod/${pick}\n`);
  return pick;
}

export const logs: Verb = {
  flags: {
    container: { type: "string", short: "c" },
    tail: { type: "string" },
    previous: { type: "bool", short: "p" },
    timestamps: { type: "bool" },
    since: { type: "string" },
    follow: { type: "bool", short: "f" },
    "all-containers": { type: "bool" },
    selector: { type: "string", short: "l" },
  },
  run,
};
