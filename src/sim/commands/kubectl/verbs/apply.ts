// kubectl apply -f, client-side (staging/src/k8s.io/kubectl/pkg/cmd/apply/apply.go, patcher.go):
// an object that does not exist is created with the kubectl.kubernetes.io/last-applied-configuration
// annotation (the object as given, JSON); one that exists gets the three-way strategic merge patch
// of last-applied, the new configuration and the live object (field manager
// kubectl-client-side-apply): `created`, `configured`, or `unchanged` when the patch is empty.
import { StatusError } from "../client.js";
import type { Run, Verb } from "../context.js";
import { threeWay } from "../diff.js";
import { errorText } from "../errors.js";
import { nameOf, pathOf } from "../resources.js";
import { clone, DRY_RUN_FLAG, dryRunOf, type J, query, sendPatch } from "./common.js";
import { readManifests } from "./manifests.js";

const LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration";

function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v && typeof v === "object")
    return Object.fromEntries(
      Object.keys(v as J)
        .sort()
        .map((k) => [k, sortKeys((v as J)[k])]),
    );
  return v;
}

/** The object with the annotation holding itself (without the annotation), as kubectl writes it. */
function withLastApplied(obj: J): J {
  const bare = clone(obj);
  const meta = (bare.metadata ?? {}) as J;
  const ann = { ...((meta.annotations as J | undefined) ?? {}) };
  delete ann[LAST_APPLIED];
  // kubectl's GetModifiedConfiguration leaves the (maybe empty) annotations map in
  meta.annotations = ann;
  bare.metadata = meta;
  const out = clone(bare);
  const m = out.metadata as J;
  m.annotations = {
    ...((m.annotations as J | undefined) ?? {}),
    [LAST_APPLIED]: `${JSON.stringify(sortKeys(bare))}\n`,
  };
  return out;
}

async function run(r: Run): Promise<number> {
  const { p } = r;
  const dry = dryRunOf(r);
  const suffix = dry === "client" ? " (dry run)" : dry === "server" ? " (server dry run)" : "";
  let failed = false;
  const ssa = r.f.bool("server-side");
  for (const m of await readManifests(r)) {
    const name = String((m.obj.metadata as J | undefined)?.name ?? "");
    try {
      if (ssa) {
        // server-side apply: the configuration as an apply patch, field manager kubectl
        if (dry !== "client") {
          const q = new URLSearchParams({ fieldManager: r.f.str("field-manager") ?? "kubectl" });
          if (r.f.bool("force-conflicts")) q.set("force", "true");
          if (dry === "server") q.set("dryRun", "All");
          await r.client().request("PATCH", `${pathOf(m.rt, m.ns, name)}?${q}`, {
            body: m.obj,
            contentType: "application/apply-patch+yaml",
          });
        }
        p.out(`${nameOf(m.rt, name)} serverside-applied${suffix}\n`);
        continue;
      }
      // the builder sets the namespace it sends to before the configuration is recorded
      const given = clone(m.obj);
      if (m.ns) given.metadata = { ...((given.metadata as J | undefined) ?? {}), namespace: m.ns };
      const modified = withLastApplied(given);
      let live: J | undefined;
      try {
        live = await r.client().get(pathOf(m.rt, m.ns, name));
      } catch (e) {
        if (!(e instanceof StatusError && e.http === 404)) throw e;
      }
      if (!live) {
        if (dry !== "client")
          await r
            .client()
            .request("POST", `${pathOf(m.rt, m.ns)}${query("kubectl-client-side-apply", dry)}`, {
              body: modified,
            });
        p.out(`${nameOf(m.rt, name)} created${suffix}\n`);
        continue;
      }
      const text =
        (((live.metadata as J).annotations as J | undefined)?.[LAST_APPLIED] as string | undefined) ?? "";
      let original: J = {};
      try {
        original = text ? (JSON.parse(text) as J) : {};
      } catch {
        original = {};
      }
      const patch = threeWay(original, modified, live, m.rt.kind);
      if (!Object.keys(patch).length) {
        p.out(`${nameOf(m.rt, name)} unchanged${suffix}\n`);
        continue;
      }
      if (!text)
        p.stderr.write(
          `Warning: resource ${m.rt.group ? `${m.rt.resource}.${m.rt.group}` : m.rt.resource}/${name} is missing the ${LAST_APPLIED} annotation which is required by kubectl apply. kubectl apply should only be used on resources created declaratively by either kubectl create --save-config or kubectl apply. The missing annotation will be patched automatically.\n`,
        );
      if (dry !== "client")
        await sendPatch(
          r,
          m.rt,
          m.ns ?? "",
          name,
          m.rt.custom ? "merge" : "strategic",
          patch,
          "kubectl-client-side-apply",
          { dry },
        );
      p.out(`${nameOf(m.rt, name)} configured${suffix}\n`);
    } catch (e) {
      p.stderr.write(`${errorText(e)}\n`);
      failed = true;
    }
  }
  return failed ? 1 : 0;
}

export const apply: Verb = {
  flags: {
    filename: { type: "strings", short: "f" },
    recursive: { type: "bool", short: "R" },
    output: { type: "string", short: "o" },
    validate: { type: "string" },
    force: { type: "bool" },
    "server-side": { type: "bool" },
    "field-manager": { type: "string" },
    "force-conflicts": { type: "bool" },
    prune: { type: "bool" },
    selector: { type: "string", short: "l" },
    overwrite: { type: "bool" },
    wait: { type: "bool" },
    ...DRY_RUN_FLAG,
  },
  run,
};
