// disk-io: in each target pod, writing 10 MiB with `dd ... oflag=direct` into /var/log/mysql
// reaches at least 10 MB/s. The file has a temporary name and is removed at once.

import { randomBytes } from "node:crypto";
import { execIn } from "../kube/exec.js";
import type { Pod } from "../kube/objects.js";
import { notReadyVerdict, pollMeasure, targetPods, waitTargetsReady } from "./pods.js";
import type { Verdict, Verifier, VerifyContext } from "./types.js";

export const IO_PATH = "/var/log/mysql";

/**
 * Parse dd's summary into MB/s (decimal), from GNU coreutils ("10485760 bytes (10 MB, 10 MiB)
 * copied, 0.5 s, 21.0 MB/s") or busybox ("10485760 bytes (10.0MB) copied, 0.5 seconds, 20.0MB/s").
 * Computed from bytes and seconds when both are there, so both formats agree.
 */
export function parseDd(out: string): number | undefined {
  const m = out.match(/(\d+) bytes[^\n]*copied,\s*([\d.]+)\s*s(?:econds)?,\s*([\d.]+)\s*([kKMGT]?i?B)\/s/);
  if (!m) return undefined;
  const bytes = Number(m[1]);
  const secs = Number(m[2]);
  if (secs > 0) return Math.round((bytes / secs / 1e6) * 100) / 100;
  const scale: Record<string, number> = {
    B: 1e-6,
    kB: 1e-3,
    KB: 1e-3,
    MB: 1,
    GB: 1e3,
    TB: 1e6,
    KiB: 1.024e-3,
    MiB: 1.048576,
    GiB: 1073.741824,
  };
  return Number(m[3]) * (scale[m[4]] ?? 1);
}

const ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

/** `tmp.` and ten random letters and digits, the name `mktemp` gives a file. */
export function tempName(): string {
  return `tmp.${[...randomBytes(10)].map((b) => ALNUM[b % ALNUM.length]).join("")}`;
}

function ioContainer(pod: Pod): string | undefined {
  const cs: { name: string; volumeMounts?: { mountPath: string }[] }[] = pod.spec?.containers ?? [];
  return cs.find((c) => c.volumeMounts?.some((v) => v.mountPath === IO_PATH))?.name;
}

async function measure(ctx: VerifyContext, pods: Pod[]): Promise<Verdict> {
  const rows: Record<string, unknown>[] = [];
  const problems: string[] = [];
  for (const pod of pods) {
    const container = ioContainer(pod);
    if (!container) {
      problems.push(`${pod.metadata.name} mounts nothing at ${IO_PATH}`);
      continue;
    }
    // a name as mktemp makes them, removed at once: as invisible as a monitoring probe's write
    const file = `${IO_PATH}/${tempName()}`;
    const run = (argv: string[]) =>
      execIn(ctx.client, ctx.namespace, pod.metadata.name!, container, argv, ctx.time.wall(120_000) + 10_000);
    let r: Awaited<ReturnType<typeof run>>;
    try {
      r = await run(["dd", "if=/dev/zero", `of=${file}`, "bs=1M", "count=10", "oflag=direct"]);
    } finally {
      await run(["rm", "-f", file]).catch(() => undefined);
    }
    const mbps = parseDd(`${r.stderr}\n${r.stdout}`);
    rows.push({ pod: pod.metadata.name, container, mbps, exitCode: r.exitCode });
    if (mbps === undefined)
      problems.push(
        `dd in ${pod.metadata.name} gave no result (exit ${r.exitCode}): ${(r.stderr || r.message || "").slice(-200)}`,
      );
    else if (mbps < 10) problems.push(`dd in ${pod.metadata.name} wrote at ${mbps} MB/s (< 10 MB/s)`);
  }
  if (pods.length === 0) problems.push(`no pods of ${ctx.service}`);
  const seen = problems.some((p) => p.includes("< 10 MB/s"));
  return {
    pass: problems.length === 0,
    reason: problems.join("; ") || `dd into ${IO_PATH} reaches ≥ 10 MB/s in every ${ctx.service} pod`,
    measurements: { dd: rows },
    inconclusive: problems.length > 0 && !seen,
  };
}

export const ioVerifier: Verifier = {
  id: "io",
  async verify(ctx) {
    if (ctx.mode === "confirm")
      return pollMeasure(ctx, ctx.windowMs, async () => measure(ctx, await targetPods(ctx)));
    const pods = await waitTargetsReady(ctx);
    if (!pods) return notReadyVerdict(ctx);
    return measure(ctx, pods);
  },
};
