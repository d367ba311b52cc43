// kubectl set env (staging/src/k8s.io/kubectl/pkg/cmd/set/set_env.go): resources first, then
// NAME=value and NAME- arguments (and -e); --from=configmap/x or secret/x adds a valueFrom
// reference per key (the key upper-cased, other characters as _), --keys limiting them, --prefix
// before each name; -c picks containers by glob. updateEnv keeps the existing order, replacing a
// variable in place and appending new ones. The change goes as a two-way strategic merge patch
// (field manager kubectl-set); nothing to change prints nothing. Prints `deployment.apps/x env
// updated`.
import { KubectlError } from "../client.js";
import type { Run, Verb } from "../context.js";
import { twoWay } from "../diff.js";
import { errorText } from "../errors.js";
import { outputFormat, printObjects } from "../output.js";
import { mustResolve, nameOf, resolveResource, targets } from "../resources.js";
import { clone, DRY_RUN_FLAG, dryRunOf, fetchObject, isObj, type J, podSpecOf, sendPatch } from "./common.js";

interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: J;
}

const ENV_NAME = /^[-._a-zA-Z][-._a-zA-Z0-9]*$/;

function parseEnv(specs: string[]): { env: EnvVar[]; remove: string[] } {
  const env: EnvVar[] = [];
  const remove: string[] = [];
  for (const s of specs) {
    if (s.includes("=")) {
      const i = s.indexOf("=");
      const name = s.slice(0, i);
      if (!ENV_NAME.test(name))
        throw new KubectlError(
          `error: "${name}" is not a valid key name: a valid environment variable name must consist of alphabetic characters, digits, '_', '-', or '.', and must not start with a digit (e.g. 'my.env-name',  or 'MY_ENV.NAME',  or 'MyEnvName1', regex used for validation is '[-._a-zA-Z][-._a-zA-Z0-9]*')`,
        );
      env.push({ name, value: s.slice(i + 1) });
    } else if (s.endsWith("-")) remove.push(s.slice(0, -1));
    else throw new KubectlError(`error: unknown environment variable: ${s}`);
  }
  return { env, remove };
}

const keyToEnvName = (k: string) => k.replace(/[^A-Za-z0-9_]/g, "_").toUpperCase();

function updateEnv(existing: EnvVar[], env: EnvVar[], remove: string[]): EnvVar[] {
  const out: EnvVar[] = [];
  const covered = new Set(remove);
  for (const e of existing) {
    if (covered.has(e.name)) continue;
    const newer = env.find((x) => x.name === e.name);
    if (newer) {
      covered.add(e.name);
      out.push(newer);
    } else out.push(e);
  }
  for (const e of env) {
    if (covered.has(e.name)) continue;
    covered.add(e.name);
    out.push(e);
  }
  return out;
}

const glob = (pattern: string) =>
  new RegExp(
    `^${pattern
      .replace(/[.+^${}()|[\]\\]/g, "\\$&")
      .replace(/\*/g, ".*")
      .replace(/\?/g, ".")}$`,
  );

async function run(r: Run): Promise<number> {
  const { f, p } = r;
  const split = f.args.findIndex((a) => a.includes("=") || (a.endsWith("-") && !a.includes("/")));
  const resources = split < 0 ? f.args : f.args.slice(0, split);
  const envArgs = split < 0 ? [] : f.args.slice(split);
  if (envArgs.some((a) => !(a.includes("=") || a.endsWith("-"))))
    throw new KubectlError(
      `error: all resources must be specified before environment changes: ${envArgs.join(" ")}`,
    );
  if (!resources.length && !f.all("filename").length)
    throw new KubectlError(
      "error: one or more resources must be specified as <resource> <name> or <resource>/<name>",
    );
  if (f.all("keys").length && !f.str("from"))
    throw new KubectlError(
      "error: when specifying --keys, a configmap or secret must be provided with --from",
    );
  const ns = r.namespace();
  const dry = dryRunOf(r);
  const { env, remove } = parseEnv([...f.all("env"), ...envArgs]);
  const from = f.str("from");
  if (from) {
    const [t] = targets([from]);
    const src = await fetchObject(r, t.rt, ns, t.name!);
    const keys = f.all("keys");
    if (src.kind !== "ConfigMap" && src.kind !== "Secret")
      throw new KubectlError("error: unsupported resource specified in --from");
    const ref = src.kind === "Secret" ? "secretKeyRef" : "configMapKeyRef";
    for (const key of Object.keys((src.data as J | undefined) ?? {}).sort())
      if (!keys.length || keys.includes(key)) {
        const name = keyToEnvName(key);
        env.push({ name, valueFrom: { [ref]: { key, name: String((src.metadata as J).name) } } });
        // Go ranges over the map in no set order; sorted here
        if (name !== key) p.stderr.write(`Warning: key ${key} transferred to ${name}\n`);
      }
  }
  const prefix = f.str("prefix");
  if (prefix) for (const e of env) e.name = `${prefix}${e.name}`;
  const selector = glob(f.str("containers") ?? "*");
  const overwrite = f.bool("overwrite", true);
  const fmt = f.str("output") ? outputFormat(f.str("output")) : undefined;
  let failed = false;
  for (const t of targets(resources)) {
    try {
      const live = await fetchObject(r, t.rt, ns, t.name!);
      const modified = clone(live);
      const spec = podSpecOf(modified);
      // info.ObjectName(): the plural resource and the name, as CalculatePatches errors name it
      const objName = `${t.rt.resource}/${t.name}`;
      if (!spec)
        throw new KubectlError(
          `error: ${objName} the object is not a pod or does not have a pod template: *v1.${String(live.kind)}`,
        );
      const containers = [
        ...((spec.containers as J[] | undefined) ?? []).filter((c) => selector.test(String(c.name))),
        ...((spec.initContainers as J[] | undefined) ?? []).filter((c) => selector.test(String(c.name))),
      ];
      if (!containers.length) {
        p.stderr.write(
          `warning: ${String(live.kind)}/${t.name} does not have any containers matching "${f.str("containers") ?? "*"}"\n`,
        );
        continue;
      }
      for (const c of containers) {
        const existing = ((c.env as EnvVar[] | undefined) ?? []).filter(isObj) as EnvVar[];
        if (!overwrite)
          for (const e of env) {
            const had = existing.find((x) => x.name === e.name);
            if (
              had &&
              (had.value !== e.value || JSON.stringify(had.valueFrom) !== JSON.stringify(e.valueFrom))
            )
              throw new KubectlError(
                `error: ${objName} '${e.name}' already has a value (${had.value ?? ""}), and --overwrite is false`,
              );
          }
        const next = updateEnv(existing, env, remove);
        if (next.length) c.env = next;
        else delete c.env;
      }
      const patch = twoWay(live, modified, String(live.kind));
      if (!Object.keys(patch).length) continue;
      if (dry === "client") {
        p.out(
          fmt
            ? printObjects([modified], fmt, () => t.rt, true)
            : `${nameOf(t.rt, t.name)} env updated (dry run)\n`,
        );
        continue;
      }
      let actual: J;
      try {
        actual = await sendPatch(r, t.rt, ns, t.name!, "strategic", patch, "kubectl-set", { dry });
      } catch (e) {
        throw new KubectlError(
          `error: failed to patch env update to pod template: ${errorText(e).replace(/^Error from server \([^)]*\): |^error: /, "")}`,
        );
      }
      if (!env.length && !envArgs.length)
        throw new KubectlError("error: at least one environment variable must be provided");
      const rt = resolveResource(String(actual.kind)) ?? mustResolve(t.rt.resource);
      p.out(
        fmt
          ? printObjects([actual], fmt, () => rt, true)
          : `${nameOf(rt, t.name)} env updated${dry === "server" ? " (server dry run)" : ""}\n`,
      );
    } catch (e) {
      p.stderr.write(`${errorText(e)}\n`);
      failed = true;
    }
  }
  return failed ? 1 : 0;
}

export const setEnv: Verb = {
  flags: {
    env: { type: "array", short: "e" },
    from: { type: "string" },
    prefix: { type: "string" },
    containers: { type: "string", short: "c" },
    overwrite: { type: "bool" },
    keys: { type: "strings" },
    list: { type: "bool" },
    resolve: { type: "bool" },
    all: { type: "bool" },
    selector: { type: "string", short: "l" },
    local: { type: "bool" },
    output: { type: "string", short: "o" },
    filename: { type: "strings", short: "f" },
    "field-manager": { type: "string" },
    ...DRY_RUN_FLAG,
  },
  run,
};
