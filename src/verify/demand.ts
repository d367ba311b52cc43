// An incident's demand check (load-surge): the load the story's users raised is still what the
// load source makes. Its running process's environment is read, as the calls check reads the
// address an application dials (/proc/1/environ, the last duplicate winning): a "fix" that turns
// the users away (their count lowered, the load source scaled to none) cures the saturation by
// serving fewer users, which is no repair. A load source whose pods restart reads its setting
// anew, so what is read is what runs.
import type { Pod } from "../kube/objects.js";
import { isReady, pollMeasure, targetPods } from "./pods.js";
import { appContainer, readEnv } from "./requests.js";
import type { Verdict, Verifier, VerifyContext } from "./types.js";

export interface Demand {
  /** The load source's setting (Locust's USERS) and the least value the story's users make. */
  variable: string;
  atLeast: number;
}

/** The demand named by a scenario's check values. */
export function demandOf(vars: Record<string, unknown>): Demand {
  const variable = String(vars.variable ?? "");
  const atLeast = Number(vars.atLeast);
  if (!variable || !Number.isFinite(atLeast))
    throw new Error(
      `a demand check needs vars.variable and a numeric vars.atLeast, got ${JSON.stringify(vars)}`,
    );
  return { variable, atLeast };
}

async function read(ctx: VerifyContext, d: Demand): Promise<Verdict> {
  const pods = (await targetPods(ctx)).filter((p: Pod) => p.status?.phase === "Running" && isReady(p));
  if (!pods.length)
    return {
      pass: false,
      reason: `no Ready pod of ${ctx.service}: its users make no load`,
      measurements: {},
    };
  const seen: Record<string, string> = {};
  for (const pod of pods) {
    const env = await readEnv(ctx, pod, appContainer(ctx.env, pod, ctx.service));
    if (typeof env === "string") return { pass: false, reason: env, measurements: seen, inconclusive: true };
    const value = env.get(d.variable) ?? "";
    seen[pod.metadata.name ?? "?"] = value;
    if (!(Number(value) >= d.atLeast))
      return {
        pass: false,
        reason: `${ctx.service} runs ${d.variable}=${value || "(unset)"}: the users' load (${d.atLeast}) was turned away, not served`,
        measurements: seen,
      };
  }
  return {
    pass: true,
    reason: `${ctx.service} still makes its users' load (${d.variable} ≥ ${d.atLeast})`,
    measurements: seen,
  };
}

/** The check of one load source's demand; in either mode it is read until it passes (or fails) in its window. */
export function demandVerifier(d: Demand): Verifier {
  return {
    id: "demand",
    verify: (ctx) =>
      pollMeasure(ctx, ctx.mode === "confirm" ? ctx.windowMs : ctx.timeouts.readyMs, () => read(ctx, d)),
  };
}
