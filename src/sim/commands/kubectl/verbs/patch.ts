// kubectl patch (staging/src/k8s.io/kubectl/pkg/cmd/patch/patch.go): -p or --patch-file, YAML or
// JSON (turned into JSON), --type strategic (default) | merge | json, sent as field manager
// kubectl-patch after the builder read the object; `patched`, or `patched (no change)` when the
// object came back as it was.

import { parse } from "yaml";
import { KubectlError } from "../client.js";
import type { Run, Verb } from "../context.js";
import { deepEqual } from "../diff.js";
import { errorText } from "../errors.js";
import { UsageError } from "../flags.js";
import { outputFormat, printObjects } from "../output.js";
import { nameOf, targets } from "../resources.js";
import { CONTENT, DRY_RUN_FLAG, dryRunOf, fetchObject, sendPatch } from "./common.js";

async function run(r: Run): Promise<number> {
  const { f, p } = r;
  const type = (f.str("type") ?? "strategic").toLowerCase();
  if (!(type in CONTENT))
    throw new KubectlError(`error: --type must be one of [json merge strategic], not "${f.str("type")}"`);
  const file = f.str("patch-file");
  const inline = f.str("patch");
  if (!file && inline === undefined)
    throw new UsageError("Must specify --patch or --patch-file containing the contents of the patch");
  if (file && inline !== undefined)
    throw new UsageError("Must specify --patch or --patch-file containing the contents of the patch");
  let raw: string;
  if (file) {
    const st = p.fs.stat(p.path(file));
    if (!st || st.dir)
      throw new KubectlError(`error: unable to read patch file: open ${file}: no such file or directory`);
    raw = p.fs.read(p.path(file)).toString();
  } else raw = inline ?? "";
  let body: unknown;
  try {
    body = parse(raw);
  } catch (e) {
    throw new KubectlError(`error: unable to parse "${raw}": ${(e as Error).message.split("\n")[0]}`);
  }
  const ns = r.namespace();
  const dry = dryRunOf(r);
  const fmt = f.str("output") ? outputFormat(f.str("output")) : undefined;
  let failed = false;
  let count = 0;
  for (const t of targets(f.args)) {
    count++;
    try {
      const before = await fetchObject(r, t.rt, ns, t.name!);
      if (dry === "client") {
        p.out(`${nameOf(t.rt, t.name)} patched (dry run)\n`);
        continue;
      }
      const after = await sendPatch(
        r,
        t.rt,
        ns,
        t.name!,
        type as keyof typeof CONTENT,
        body,
        "kubectl-patch",
        {
          dry,
          sub: f.str("subresource"),
        },
      );
      const op = deepEqual(before, after) ? "patched (no change)" : "patched";
      p.out(
        fmt
          ? printObjects([after], fmt, () => t.rt, true)
          : `${nameOf(t.rt, t.name)} ${op}${dry === "server" ? " (server dry run)" : ""}\n`,
      );
    } catch (e) {
      p.stderr.write(`${errorText(e)}\n`);
      failed = true;
    }
  }
  if (!count) throw new KubectlError("error: no objects passed to patch");
  return failed ? 1 : 0;
}

export const patch: Verb = {
  flags: {
    patch: { type: "string", short: "p" },
    "patch-file": { type: "string" },
    type: { type: "string" },
    output: { type: "string", short: "o" },
    filename: { type: "strings", short: "f" },
    local: { type: "bool" },
    subresource: { type: "string" },
    "field-manager": { type: "string" },
    ...DRY_RUN_FLAG,
  },
  run,
};
