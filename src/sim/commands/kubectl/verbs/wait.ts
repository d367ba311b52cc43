// kubectl wait (staging/src/k8s.io/kubectl/pkg/cmd/wait/): --for=condition=X[=value],
// --for=delete or --for=jsonpath='{...}'=value on each object, polled on the cluster clock until
// it holds (`deployment.apps/x condition met`) or --timeout (default 30s) passes (`error: timed
// out waiting for the condition on deployments/x`).
import { KubectlError, StatusError } from "../client.js";
import type { Run, Verb } from "../context.js";
import { jsonpath } from "../jsonpath.js";
import { nameOf, pathOf, targets } from "../resources.js";
import type { J } from "./common.js";

type Check = (o: J | undefined) => boolean;

function checkOf(spec: string): Check {
  if (spec === "delete") return (o) => o === undefined;
  const cond = /^condition=([^=]+)(?:=(.*))?$/i.exec(spec);
  if (cond) {
    const want = (cond[2] ?? "true").toLowerCase();
    return (o) =>
      ((o?.status as J | undefined)?.conditions as J[] | undefined)?.some(
        (c) =>
          String(c.type).toLowerCase() === cond[1].toLowerCase() && String(c.status).toLowerCase() === want,
      ) ?? false;
  }
  const jp = /^jsonpath=(\{.*\})(?:=(.*))?$/s.exec(spec);
  if (jp)
    return (o) =>
      o !== undefined && (jp[2] === undefined ? jsonpath(jp[1], o) !== "" : jsonpath(jp[1], o) === jp[2]);
  throw new KubectlError(`error: unrecognized condition: "${spec}"`);
}

function seconds(v: string | undefined): number {
  if (v === undefined) return 30;
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(v);
  if (!m)
    throw new KubectlError(
      `error: invalid argument "${v}" for "--timeout" flag: time: invalid duration "${v}"`,
    );
  return Number(m[1]) * ({ ms: 0.001, s: 1, m: 60, h: 3600 } as Record<string, number>)[m[2] ?? "s"];
}

async function run(r: Run): Promise<number> {
  const spec = r.f.str("for");
  if (!spec) throw new KubectlError("error: --for must be specified");
  const check = checkOf(spec);
  const limit = seconds(r.f.str("timeout")) * 1000;
  const ns = r.namespace();
  const start = r.p.clock.now();
  for (const t of targets(r.f.args)) {
    for (;;) {
      let o: J | undefined;
      try {
        o = await r.client().get(pathOf(t.rt, ns, t.name));
      } catch (e) {
        if (!(e instanceof StatusError && e.http === 404)) throw e;
        if (spec !== "delete") throw e;
      }
      if (check(o)) {
        r.p.out(`${nameOf(t.rt, t.name)} condition met\n`);
        break;
      }
      if (r.p.clock.now() - start >= limit)
        throw new KubectlError(`error: timed out waiting for the condition on ${t.rt.resource}/${t.name}`);
      if (!(await r.p.sleep(1000))) return 1;
    }
  }
  return 0;
}

export const wait: Verb = {
  flags: {
    for: { type: "string" },
    timeout: { type: "string" },
    selector: { type: "string", short: "l" },
    all: { type: "bool" },
    filename: { type: "strings", short: "f" },
    "all-namespaces": { type: "bool", short: "A" },
    output: { type: "string", short: "o" },
  },
  run,
};
