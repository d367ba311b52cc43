// kubectl scale (staging/src/k8s.io/kubectl/pkg/cmd/scale/scale.go, scale/scale.go): a merge
// patch of spec.replicas on the scale subresource (field manager kubectl-scale), with
// --current-replicas as a precondition; prints `deployment.apps/x scaled`.
import { KubectlError } from "../client.js";
import type { Run, Verb } from "../context.js";
import { errorText } from "../errors.js";
import { nameOf, pathOf, targets } from "../resources.js";
import { DRY_RUN_FLAG, dryRunOf, type J, sendPatch } from "./common.js";

async function run(r: Run): Promise<number> {
  const { f, p } = r;
  const raw = f.str("replicas");
  if (raw === undefined) throw new KubectlError('error: required flag(s) "replicas" not set');
  const replicas = Number(raw);
  if (!Number.isInteger(replicas))
    throw new KubectlError(
      `error: invalid argument "${raw}" for "--replicas" flag: strconv.ParseInt: parsing "${raw}": invalid syntax`,
    );
  if (replicas < 0)
    throw new KubectlError(
      "error: The --replicas=COUNT flag is required, and COUNT must be greater than or equal to 0",
    );
  const ns = r.namespace();
  const dry = dryRunOf(r);
  const current = f.str("current-replicas");
  let failed = false;
  for (const t of targets(f.args)) {
    try {
      if (!t.rt.subresources?.includes("scale"))
        throw new KubectlError(
          `error: cannot scale resource: no scaler has been implemented for {"${t.rt.group}" "${t.rt.kind}"}`,
        );
      if (current !== undefined && current !== "-1") {
        const s = await r.client().get(pathOf(t.rt, ns, t.name, "scale"));
        const have = Number((s.spec as J | undefined)?.replicas ?? 0);
        if (have !== Number(current))
          throw new KubectlError(`error: Expected replicas to be ${current}, was ${have}`);
      }
      if (dry === "client") {
        p.out(`${nameOf(t.rt, t.name)} scaled (dry run)\n`);
        continue;
      }
      await sendPatch(r, t.rt, ns, t.name!, "merge", { spec: { replicas } }, "kubectl-scale", {
        dry,
        sub: "scale",
      });
      p.out(`${nameOf(t.rt, t.name)} scaled${dry === "server" ? " (server dry run)" : ""}\n`);
    } catch (e) {
      p.stderr.write(`${errorText(e)}\n`);
      failed = true;
    }
  }
  return failed ? 1 : 0;
}

export const scale: Verb = {
  flags: {
    replicas: { type: "string" },
    "current-replicas": { type: "string" },
    "resource-version": { type: "string" },
    all: { type: "bool" },
    selector: { type: "string", short: "l" },
    timeout: { type: "string" },
    output: { type: "string", short: "o" },
    filename: { type: "strings", short: "f" },
    ...DRY_RUN_FLAG,
  },
  run,
};
