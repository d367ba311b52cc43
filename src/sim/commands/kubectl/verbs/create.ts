// kubectl create (staging/src/k8s.io/kubectl/pkg/cmd/create/): configmap and secret generic from
// --from-literal, --from-file ([key=]path, a directory's files) and --from-env-file; namespace;
// -f for the objects of a file. --dry-run=client prints the object (-o yaml|json) without
// sending it, with `creationTimestamp: null` as kubectl 1.31's printer leaves it. Field manager
// kubectl-create.
import { KubectlError } from "../client.js";
import type { Run, Verb } from "../context.js";
import { errorText } from "../errors.js";
import { outputFormat, printObjects } from "../output.js";
import { mustResolve, nameOf, pathOf } from "../resources.js";
import { DRY_RUN_FLAG, dryRunOf, type J, query } from "./common.js";
import { readManifests } from "./manifests.js";

function fromSources(r: Run): Record<string, string> {
  const data: Record<string, string> = {};
  const put = (k: string, v: string) => {
    if (k in data)
      throw new KubectlError(
        `error: cannot add key ${k}, another key by that name already exists in Data for ConfigMap "${r.f.args[0]}"`,
      );
    data[k] = v;
  };
  for (const lit of r.f.all("from-literal")) {
    const i = lit.indexOf("=");
    if (i <= 0) throw new KubectlError(`error: invalid literal source ${lit}, expected key=value`);
    put(lit.slice(0, i), lit.slice(i + 1));
  }
  for (const spec of r.f.all("from-file")) {
    const i = spec.indexOf("=");
    const [key, path] = i > 0 ? [spec.slice(0, i), spec.slice(i + 1)] : [undefined, spec];
    const abs = r.p.path(path);
    const st = r.p.fs.stat(abs);
    if (!st) throw new KubectlError(`error: stat ${path}: no such file or directory`);
    if (st.dir) {
      for (const e of r.p.fs.list(abs)) if (!e.dir) put(e.name, r.p.fs.read(`${abs}/${e.name}`).toString());
    } else put(key ?? path.slice(path.lastIndexOf("/") + 1), r.p.fs.read(abs).toString());
  }
  for (const file of r.f.all("from-env-file")) {
    const abs = r.p.path(file);
    if (!r.p.fs.stat(abs)) throw new KubectlError(`error: open ${file}: no such file or directory`);
    for (const line of r.p.fs.read(abs).toString().split("\n")) {
      const l = line.trim();
      if (!l || l.startsWith("#")) continue;
      const i = l.indexOf("=");
      if (i < 0) put(l, r.p.env.get(l) ?? "");
      else put(l.slice(0, i), l.slice(i + 1));
    }
  }
  return data;
}

async function send(r: Run, obj: J, kindRes: string): Promise<number> {
  const rt = mustResolve(kindRes);
  const dry = dryRunOf(r);
  const ns = rt.namespaced ? r.namespace() : undefined;
  if (rt.namespaced) (obj.metadata as J).namespace = ns;
  const o = r.f.str("output");
  let out = obj;
  if (dry !== "client")
    out = (
      await r.client().request("POST", `${pathOf(rt, ns)}${query("kubectl-create", dry)}`, { body: obj })
    ).json();
  else if (!o) delete (obj.metadata as J).namespace;
  const suffix = dry === "client" ? " (dry run)" : dry === "server" ? " (server dry run)" : "";
  r.p.out(
    o
      ? printObjects([out], outputFormat(o), () => rt, true)
      : `${nameOf(rt, String((obj.metadata as J).name))} created${suffix}\n`,
  );
  return 0;
}

const COMMON = {
  output: { type: "string" as const, short: "o" },
  "save-config": { type: "bool" as const },
  validate: { type: "string" as const },
  "field-manager": { type: "string" as const },
  ...DRY_RUN_FLAG,
};

const configmap: Verb = {
  flags: {
    ...COMMON,
    "from-literal": { type: "array" },
    "from-file": { type: "strings" },
    "from-env-file": { type: "strings" },
    "append-hash": { type: "bool" },
  },
  run: async (r) => {
    const name = r.f.args[0];
    if (!name)
      throw new KubectlError(
        "error: exactly one NAME is required, got 0\nSee 'kubectl create configmap -h' for help and examples",
      );
    const data = fromSources(r);
    const obj: J = { apiVersion: "v1", kind: "ConfigMap", metadata: { name, creationTimestamp: null } };
    if (Object.keys(data).length) obj.data = data;
    return send(r, obj, "configmaps");
  },
};

const secret: Verb = {
  flags: {
    ...COMMON,
    "from-literal": { type: "array" },
    "from-file": { type: "strings" },
    "from-env-file": { type: "strings" },
    type: { type: "string" },
    "append-hash": { type: "bool" },
  },
  run: async (r) => {
    // kubectl create secret generic|docker-registry|tls: the generic kind only
    if (r.f.args[0] !== "generic")
      throw new KubectlError(`error: unknown command "${r.f.args[0] ?? ""}" for "kubectl create secret"`);
    const name = r.f.args[1];
    if (!name)
      throw new KubectlError(
        "error: exactly one NAME is required, got 0\nSee 'kubectl create secret generic -h' for help and examples",
      );
    const data = Object.fromEntries(
      Object.entries(fromSources(r)).map(([k, v]) => [k, Buffer.from(v).toString("base64")]),
    );
    const obj: J = { apiVersion: "v1", kind: "Secret", metadata: { name, creationTimestamp: null } };
    if (Object.keys(data).length) obj.data = data;
    if (r.f.str("type")) obj.type = r.f.str("type");
    return send(r, obj, "secrets");
  },
};

const namespace: Verb = {
  flags: COMMON,
  run: async (r) => {
    const name = r.f.args[0];
    if (!name)
      throw new KubectlError(
        "error: exactly one NAME is required, got 0\nSee 'kubectl create namespace -h' for help and examples",
      );
    return send(
      r,
      {
        apiVersion: "v1",
        kind: "Namespace",
        metadata: { name, creationTimestamp: null },
        spec: {},
        status: {},
      },
      "namespaces",
    );
  },
};

const fromFile: Verb = {
  flags: {
    ...COMMON,
    filename: { type: "strings", short: "f" },
    recursive: { type: "bool", short: "R" },
    selector: { type: "string", short: "l" },
  },
  run: async (r) => {
    let failed = false;
    for (const m of await readManifests(r)) {
      try {
        const dry = dryRunOf(r);
        if (dry !== "client")
          await r
            .client()
            .request("POST", `${pathOf(m.rt, m.ns)}${query("kubectl-create", dry)}`, { body: m.obj });
        r.p.out(
          `${nameOf(m.rt, String((m.obj.metadata as J | undefined)?.name ?? ""))} created${dry === "client" ? " (dry run)" : ""}\n`,
        );
      } catch (e) {
        r.p.stderr.write(`${errorText(e)}\n`);
        failed = true;
      }
    }
    return failed ? 1 : 0;
  },
};

export const create = { configmap, cm: configmap, secret, namespace, ns: namespace, file: fromFile };
