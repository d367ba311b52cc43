// kubectl label and kubectl annotate (staging/src/k8s.io/kubectl/pkg/cmd/label/label.go,
// annotate/annotate.go): resources, then KEY=VALUE and KEY- pairs; an existing key needs
// --overwrite; the change goes as a JSON merge patch of metadata (field managers kubectl-label,
// kubectl-annotate). label says `not labeled` when nothing changed.
import { KubectlError } from "../client.js";
import type { Run, Verb } from "../context.js";
import { errorText } from "../errors.js";
import { outputFormat, printObjects } from "../output.js";
import { nameOf, targets } from "../resources.js";
import { DRY_RUN_FLAG, dryRunOf, fetchObject, type J, sendPatch } from "./common.js";

function split(
  args: string[],
  what: string,
): { resources: string[]; set: Map<string, string>; remove: string[] } {
  const resources: string[] = [];
  const set = new Map<string, string>();
  const remove: string[] = [];
  let pairs = false;
  for (const a of args) {
    if (a.includes("=")) {
      pairs = true;
      const i = a.indexOf("=");
      set.set(a.slice(0, i), a.slice(i + 1));
    } else if (a.endsWith("-")) {
      pairs = true;
      remove.push(a.slice(0, -1));
    } else {
      if (pairs)
        throw new KubectlError(`error: all resources must be specified before ${what} changes: ${a}`);
      resources.push(a);
    }
  }
  if (!set.size && !remove.length) throw new KubectlError(`error: at least one ${what} update is required`);
  return { resources, set, remove };
}

function verb(kind: "label" | "annotate"): Verb {
  const field = kind === "label" ? "labels" : "annotations";
  const what = kind === "label" ? "label" : "annotation";
  return {
    flags: {
      overwrite: { type: "bool" },
      all: { type: "bool" },
      selector: { type: "string", short: "l" },
      "field-selector": { type: "string" },
      output: { type: "string", short: "o" },
      filename: { type: "strings", short: "f" },
      list: { type: "bool" },
      local: { type: "bool" },
      "resource-version": { type: "string" },
      "field-manager": { type: "string" },
      "all-namespaces": { type: "bool", short: "A" },
      ...DRY_RUN_FLAG,
    },
    async run(r: Run) {
      const { f, p } = r;
      const { resources, set, remove } = split(f.args, what);
      const ns = r.namespace();
      const dry = dryRunOf(r);
      const overwrite = f.bool("overwrite");
      const fmt = f.str("output") ? outputFormat(f.str("output")) : undefined;
      let failed = false;
      for (const t of targets(resources)) {
        try {
          const live = await fetchObject(r, t.rt, ns, t.name!);
          const had = (((live.metadata as J)[field] as Record<string, string> | undefined) ?? {}) as Record<
            string,
            string
          >;
          if (!overwrite)
            for (const [k, v] of set)
              if (k in had && had[k] !== v)
                throw new KubectlError(
                  kind === "label"
                    ? `error: '${k}' already has a value (${had[k]}), and --overwrite is false`
                    : `error: --overwrite is false but found the following declared annotation(s): '${k}' already has a value (${had[k]})`,
                );
          const change: Record<string, string | null> = {};
          for (const [k, v] of set) if (had[k] !== v) change[k] = v;
          for (const k of remove) if (k in had) change[k] = null;
          const changed = Object.keys(change).length > 0;
          let out = live;
          if (changed && dry !== "client")
            out = await sendPatch(
              r,
              t.rt,
              ns,
              t.name!,
              "merge",
              { metadata: { [field]: change } },
              `kubectl-${kind}`,
              { dry },
            );
          // label.go updateDataChangeMsg: a smaller object without --overwrite is "unlabeled"
          const after = {
            ...had,
            ...Object.fromEntries(Object.entries(change).filter(([, v]) => v !== null)),
          };
          for (const [k, v] of Object.entries(change)) if (v === null) delete after[k];
          const shorter = JSON.stringify(after).length < JSON.stringify(had).length;
          const op =
            kind === "label"
              ? changed
                ? !overwrite && shorter
                  ? "unlabeled"
                  : "labeled"
                : "not labeled"
              : "annotated";
          const suffix = dry === "client" ? " (dry run)" : dry === "server" ? " (server dry run)" : "";
          p.out(
            fmt ? printObjects([out], fmt, () => t.rt, true) : `${nameOf(t.rt, t.name)} ${op}${suffix}\n`,
          );
        } catch (e) {
          p.stderr.write(`${errorText(e)}\n`);
          failed = true;
        }
      }
      return failed ? 1 : 0;
    },
  };
}

export const label = verb("label");
export const annotate = verb("annotate");
