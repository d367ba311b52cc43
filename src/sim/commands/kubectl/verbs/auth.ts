// kubectl auth can-i (staging/src/k8s.io/kubectl/pkg/cmd/auth/cani.go): a
// SelfSubjectAccessReview for VERB TYPE[/NAME] in the namespace; prints yes or no (exit 0 or 1),
// nothing with -q.
import { KubectlError } from "../client.js";
import type { Run, Verb } from "../context.js";
import { resolveResource } from "../resources.js";
import type { J } from "./common.js";

async function run(r: Run): Promise<number> {
  const [verb, what, maybeName] = r.f.args;
  if (!verb || !what)
    throw new KubectlError(
      "error: you must specify two arguments: verb resource or verb resource/resourceName.\nSee 'kubectl auth can-i -h' for help and examples",
    );
  const quiet = r.f.bool("quiet");
  let attrs: J;
  if (what.startsWith("/")) attrs = { nonResourceAttributes: { verb, path: what } };
  else {
    const [type, name] = what.includes("/")
      ? [what.slice(0, what.indexOf("/")), what.slice(what.indexOf("/") + 1)]
      : [what, maybeName];
    const rt = resolveResource(type);
    if (!rt && !quiet) r.p.stderr.write(`Warning: the server doesn't have a resource type '${type}'\n\n`);
    const ns = r.f.bool("all-namespaces") ? "" : r.namespace();
    attrs = {
      resourceAttributes: {
        namespace: ns,
        verb,
        group: rt?.group ?? "",
        resource: rt?.resource ?? type,
        ...(r.f.str("subresource") ? { subresource: r.f.str("subresource") } : {}),
        ...(name ? { name } : {}),
      },
    };
  }
  const review = await r
    .client()
    .request("POST", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", {
      body: {
        kind: "SelfSubjectAccessReview",
        apiVersion: "authorization.k8s.io/v1",
        metadata: { creationTimestamp: null },
        spec: attrs,
        status: { allowed: false },
      },
    })
    .then((a) => a.json());
  const st = (review.status ?? {}) as J;
  if (st.allowed === true) {
    if (!quiet) r.p.out("yes\n");
    return 0;
  }
  if (!quiet) r.p.out(st.reason ? `no - ${String(st.reason)}\n` : "no\n");
  return 1;
}

export const canI: Verb = {
  flags: {
    quiet: { type: "bool", short: "q" },
    "all-namespaces": { type: "bool", short: "A" },
    subresource: { type: "string" },
    list: { type: "bool" },
  },
  run,
};
