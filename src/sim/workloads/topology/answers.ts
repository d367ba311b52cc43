// What a service's handler answers when a request fails, in its own words per callee (topology
// `errors`): it makes its calls in order (checkoutservice's PlaceOrder: the cart, each product and
// its price, the shipping quote and its conversion, the card, the shipment, emptying the cart, the
// confirmation email), each drawn from the traffic model from this pod, and the first call whose
// failure it does not go on from ends the request with the status its `says` words, the call's
// own error ({err}) inside: the client's words for how the call failed (refused, no address, a
// deadline, a closed connection), or, when the callee answered an error, the callee's own answer,
// found the same way. Calls it goes on from write their `warn` lines (the email that was not
// sent); calls that succeed write their `ok` lines (the payment that went through).

import type { Edge, ServiceModel } from "../../context/catalog.js";
import { systemOf } from "../../context/catalog.js";
import type { SimContext } from "../../context/context.js";
import type { Pod } from "../../core/objects.js";
import { type CallOutcome, drawOutcome, type EdgeView, edgeView, outcomeMs } from "./calls.js";
import type { SvcState } from "./service-state.js";

type Fill = (lines: string[] | undefined, vars: Record<string, string | number>) => string[];

/** How the caller's templates are filled, and a fresh id for each call's own (a transaction's). */
export interface Writer {
  fill: Fill;
  newId: () => string;
}

export interface Walk {
  /** The status the handler answered; undefined: the request went through. */
  says?: string;
  /** The lines it wrote on the way. */
  lines: string[];
  /** What its calls took. */
  ms: number;
}

/** How deep a callee's answer is looked for (checkoutservice -> cartservice -> redis). */
const MAX_DEPTH = 3;

const OUTCOMES: CallOutcome[] = ["refused", "dns", "timeout", "reset", "error"];

function edgeOf(m: ServiceModel, to: string): Edge | undefined {
  return (systemOf(m).edges.get(m.key) ?? []).find((e) =>
    e.store ? e.store === to || e.to === to : e.to === to,
  );
}

/** The error of one failed call, as the caller's client words it or the callee answered it. */
function errOf(
  ctx: SimContext,
  services: Map<string, SvcState>,
  m: ServiceModel,
  e: Edge,
  v: EdgeView,
  o: CallOutcome,
  vars: Record<string, string | number>,
  rnd: () => number,
  w: Writer,
  depth: number,
): string {
  const callee = services.get(e.to);
  const at = { ...vars, dep: v.dep, depPort: v.depPort, depIp: v.depIp, rpc: callee?.model.rpc ?? "" };
  if (o === "error" && !e.store && callee?.model.errors && depth < MAX_DEPTH && callee.serving.length) {
    const there = callee.serving[Math.floor(rnd() * callee.serving.length)];
    const a = walk(ctx, services, callee.model, there, vars, rnd, w, true, depth + 1);
    if (a.says !== undefined) return a.says;
  }
  return w.fill([(o === "ok" ? undefined : m.errors?.client[o]) ?? ""], at)[0];
}

/**
 * One request through the handler's calls, from `pod`. `failed`: a caller saw it fail, so a walk
 * whose draws all succeeded blames the call likeliest to fail (with its likeliest failure).
 */
export function walk(
  ctx: SimContext,
  services: Map<string, SvcState>,
  m: ServiceModel,
  pod: Pod,
  vars: Record<string, string | number>,
  rnd: () => number,
  w: Writer,
  failed = false,
  depth = 0,
): Walk {
  const lines: string[] = [];
  let ms = 0;
  let worst: { e: Edge; v: EdgeView; says: string; p: number } | undefined;
  for (const step of m.errors?.steps ?? []) {
    const e = edgeOf(m, step.to);
    if (!e) continue;
    const v = edgeView(ctx, services, m, pod, e);
    if (v.none) continue;
    const o = drawOutcome(v, rnd);
    ms += outcomeMs(v, o);
    if (o === "ok") {
      lines.push(...w.fill(step.ok, { ...vars, id: w.newId() }));
      continue;
    }
    const err = errOf(ctx, services, m, e, v, o, vars, rnd, w, depth);
    if (step.says === undefined) {
      lines.push(...w.fill(step.warn, { ...vars, err }));
      continue;
    }
    return { says: w.fill([step.says], { ...vars, err })[0], lines, ms };
  }
  if (failed)
    for (const step of m.errors?.steps ?? []) {
      const e = edgeOf(m, step.to);
      if (!e || step.says === undefined) continue;
      const v = edgeView(ctx, services, m, pod, e);
      const p = v.none ? 0 : 1 - v.p.ok;
      if (p > (worst?.p ?? 0)) worst = { e, v, says: step.says, p };
    }
  if (worst) {
    const x = worst;
    const o = OUTCOMES.reduce((a, b) => (x.v.p[b] > x.v.p[a] ? b : a));
    const err = errOf(ctx, services, m, x.e, x.v, o, vars, rnd, w, depth);
    return { says: w.fill([x.says], { ...vars, err })[0], lines, ms };
  }
  return { lines, ms };
}
