// The objects `-f` names, read as kubectl's resource builder reads them: a file in the container
// or `-` for stdin, YAML documents (a List's items flattened) or JSON; the resource of each from
// its apiVersion and kind; the namespace from the object, else -n, a mismatch refused.
import { parseAllDocuments } from "yaml";
import { RESOURCES } from "../../../api/resources.js";
import type { ResourceType } from "../../../core/types.js";
import { readAll } from "../../../userland/stream.js";
import { KubectlError } from "../client.js";
import type { Run } from "../context.js";
import type { J } from "./common.js";

export interface Manifest {
  obj: J;
  rt: ResourceType;
  ns: string | undefined;
  source: string;
}

export async function readManifests(r: Run): Promise<Manifest[]> {
  const files = r.f.all("filename");
  if (!files.length) throw new KubectlError("error: must specify one of -f and -k");
  const out: Manifest[] = [];
  for (const file of files) {
    let text: string;
    if (file === "-") text = (await readAll(r.p.stdin)).toString();
    else {
      const st = r.p.fs.stat(r.p.path(file));
      if (!st) throw new KubectlError(`error: the path "${file}" does not exist`);
      if (st.dir) {
        text = r.p.fs
          .list(r.p.path(file))
          .filter((e) => !e.dir && /\.(ya?ml|json)$/.test(e.name))
          .map((e) => `${r.p.fs.read(`${r.p.path(file)}/${e.name}`).toString()}\n---\n`)
          .join("");
      } else text = r.p.fs.read(r.p.path(file)).toString();
    }
    const docs = parseAllDocuments(text);
    for (const d of Array.isArray(docs) ? docs : [docs]) {
      if (d.errors.length)
        throw new KubectlError(
          `error: error parsing ${file}: error converting YAML to JSON: yaml: ${d.errors[0].message.split("\n")[0]}`,
        );
      const v = d.toJSON() as J | null;
      if (!v) continue;
      const items =
        v.kind === "List" || String(v.kind ?? "").endsWith("List") ? ((v.items as J[]) ?? []) : [v];
      for (const obj of items) out.push(resolve(r, obj, file));
    }
  }
  if (!out.length) throw new KubectlError("error: no objects passed to apply");
  return out;
}

function resolve(r: Run, obj: J, source: string): Manifest {
  const apiVersion = String(obj.apiVersion ?? "");
  const kind = String(obj.kind ?? "");
  if (!apiVersion || !kind)
    throw new KubectlError(
      `error: error validating data: [${!apiVersion ? "apiVersion not set" : ""}${!apiVersion && !kind ? ", " : ""}${!kind ? "kind not set" : ""}]; if you choose to ignore these errors, turn validation off with --validate=false`,
    );
  const [group, version] = apiVersion.includes("/") ? apiVersion.split("/") : ["", apiVersion];
  const rt = RESOURCES.find((x) => x.kind === kind && x.group === group && x.version === version);
  if (!rt)
    throw new KubectlError(
      `error: resource mapping not found for name: "${String((obj.metadata as J | undefined)?.name ?? "")}" namespace: "" from "${source}": no matches for kind "${kind}" in version "${apiVersion}"\nensure CRDs are installed first`,
    );
  const own = (obj.metadata as J | undefined)?.namespace as string | undefined;
  const flag = r.f.str("namespace");
  if (rt.namespaced && own && flag && own !== flag)
    throw new KubectlError(
      `error: the namespace from the provided object "${own}" does not match the namespace "${flag}". You must pass '--namespace=${own}' to perform this operation.`,
    );
  return { obj, rt, ns: rt.namespaced ? (own ?? r.namespace()) : undefined, source };
}
