// kubectl delete (staging/src/k8s.io/kubectl/pkg/cmd/delete/delete.go): by name, by -l or --all
// of a type, or the objects of -f; prints `deployment.apps "x" deleted` and, with --wait (the
// default), waits on the cluster clock until each object is gone. --ignore-not-found makes a
// missing object no error.
import { KubectlError, StatusError } from "../client.js";
import type { Run, Verb } from "../context.js";
import { errorText } from "../errors.js";
import { nameOf, pathOf, type Target, targets } from "../resources.js";
import { DRY_RUN_FLAG, dryRunOf, type J } from "./common.js";
import { readManifests } from "./manifests.js";

async function run(r: Run): Promise<number> {
  const { f, p } = r;
  const ns = r.namespace();
  const dry = dryRunOf(r);
  const client = r.client();
  const list: { t: Target; ns: string | undefined }[] = [];
  if (f.all("filename").length)
    for (const m of await readManifests(r))
      list.push({ t: { rt: m.rt, name: String((m.obj.metadata as J | undefined)?.name ?? "") }, ns: m.ns });
  else {
    const sel = f.str("selector");
    const all = f.bool("all");
    for (const t of targets(f.args, !!sel || all)) {
      if (t.name) list.push({ t, ns });
      else {
        const q = sel ? `?labelSelector=${encodeURIComponent(sel)}` : "";
        const items = ((await client.get(`${pathOf(t.rt, ns)}${q}`)).items as J[] | undefined) ?? [];
        if (!items.length) p.out(t.rt.namespaced ? `No resources found\n` : "No resources found\n");
        for (const o of items) list.push({ t: { rt: t.rt, name: String((o.metadata as J).name) }, ns });
      }
    }
    if (!list.length && !sel && !all)
      throw new KubectlError("error: resource(s) were provided, but no name was specified");
  }
  const grace = f.str("grace-period");
  const body: J = { kind: "DeleteOptions", apiVersion: "v1" };
  if (f.bool("now")) body.gracePeriodSeconds = 1;
  if (grace !== undefined && Number(grace) >= 0) body.gracePeriodSeconds = Number(grace);
  if (f.bool("force") && body.gracePeriodSeconds === undefined) body.gracePeriodSeconds = 0;
  const cascade = f.str("cascade");
  body.propagationPolicy =
    cascade === "orphan" || cascade === "false"
      ? "Orphan"
      : cascade === "foreground"
        ? "Foreground"
        : "Background";
  let failed = false;
  const deleted: { t: Target; ns: string | undefined }[] = [];
  if (body.gracePeriodSeconds === 0)
    p.stderr.write(
      "Warning: Immediate deletion does not wait for confirmation that the running resource has been terminated. The resource may continue to run on the cluster indefinitely.\n",
    );
  for (const d of list) {
    try {
      if (dry !== "client") {
        const q = dry === "server" ? "?dryRun=All" : "";
        await client.request("DELETE", `${pathOf(d.t.rt, d.ns, d.t.name)}${q}`, { body });
      }
      const suffix = dry === "client" ? " (dry run)" : dry === "server" ? " (server dry run)" : "";
      p.out(`${nameOf(d.t.rt, "").slice(0, -1)} "${d.t.name}" deleted${suffix}\n`);
      deleted.push(d);
    } catch (e) {
      if (e instanceof StatusError && e.http === 404 && f.bool("ignore-not-found")) continue;
      p.stderr.write(`${errorText(e)}\n`);
      failed = true;
    }
  }
  if (dry === "none" && f.bool("wait", true))
    for (const d of deleted)
      for (;;) {
        try {
          await client.get(pathOf(d.t.rt, d.ns, d.t.name));
        } catch (e) {
          if (e instanceof StatusError && e.http === 404) break;
          throw e;
        }
        if (!(await p.sleep(1000))) break;
      }
  return failed ? 1 : 0;
}

export const del: Verb = {
  flags: {
    filename: { type: "strings", short: "f" },
    selector: { type: "string", short: "l" },
    all: { type: "bool" },
    "ignore-not-found": { type: "bool" },
    now: { type: "bool" },
    force: { type: "bool" },
    "grace-period": { type: "string" },
    wait: { type: "bool" },
    cascade: { type: "string" },
    output: { type: "string", short: "o" },
    timeout: { type: "string" },
    recursive: { type: "bool", short: "R" },
    "all-namespaces": { type: "bool", short: "A" },
    ...DRY_RUN_FLAG,
  },
  run,
};
