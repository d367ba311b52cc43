// The calls a request gets to. A handler that makes its calls in order (topology `errors.steps`)
// returns at the first one whose failure it does not go on from (a step with `says`), so a later
// call is made only for the requests whose earlier stopping calls all succeeded: checkoutservice's
// PlaceOrder (microservices-demo v0.3.8 src/checkoutservice/main.go, lines 218-267) gets the
// cart, the products and their prices, the shipping quote and its conversion, charges the card,
// ships the order, empties the cart (its error dropped) and sends the confirmation (its error
// only logged): with the card refused, no order is shipped, no cart emptied, no email sent.
// A callee the handler calls at several steps (the cart: GetCart and EmptyCart) receives the
// edge's calls split evenly over those steps, each at the share of requests that get that far;
// a healthy system's rates are what they were without the steps.
//
// Some of those calls are methods the callee logs in words of its own (RPCS below): the traffic
// model counts their rate apart (SvcState.rpcRps), and the callee's log writes their lines for
// that share of its requests (logs.ts).

import type { Edge, ServiceModel } from "../../context/catalog.js";

/** Per edge (gateKey), the share of its calls that fail for good, its retries spent. */
export type Gates = Map<string, number>;

export const gateKey = (caller: string, e: Edge) => `${caller}>${e.to}|${e.store ?? ""}`;

/** The edge a step calls: a callee's key, or a store kind. */
export function stepEdge(edges: Edge[], to: string): Edge | undefined {
  return edges.find((e) => (e.store ? e.store === to || e.to === to : e.to === to));
}

/**
 * A method of a callee that one step of a caller's handler calls, and the callee's own lines for
 * it (`nth`: the step is the caller's nth call to that callee). shippingservice v0.3.8
 * (src/shippingservice/main.go, lines 119-151): GetQuote logs "[GetQuote] received request" and
 * "[GetQuote] completed request" (its topology `request` lines), ShipOrder "[ShipOrder] received
 * request" and "[ShipOrder] completed request", both with log.Info; PlaceOrder's second call to
 * it is ShipOrder.
 */
export const RPCS: Record<string, { to: string; nth: number; rpc: string; lines: string[] }[]> = {
  checkoutservice: [
    {
      to: "shippingservice",
      nth: 2,
      rpc: "ShipOrder",
      lines: [
        '{"message":"[ShipOrder] received request","severity":"info","timestamp":"{time}"}',
        '{"message":"[ShipOrder] completed request","severity":"info","timestamp":"{time}"}',
      ],
    },
  ],
};

/** The callee's own lines for a method some caller's step calls. */
export function rpcLines(callee: ServiceModel, rpc: string): string[] | undefined {
  for (const list of Object.values(RPCS))
    for (const r of list) if (r.to === callee.key && r.rpc === rpc) return r.lines;
  return undefined;
}

export interface StepRate {
  /** Calls along the edge per request the caller receives (its perReq, less the requests that stopped before). */
  perReq: number;
  /** Of them, the calls of methods the callee logs in its own words. */
  rpcs: { rpc: string; perReq: number }[];
}

/**
 * The calls along each edge of a handler with ordered steps, per request it receives, given the
 * share of each edge's calls that fail for good (`gates`). Edges its steps do not name are absent
 * (every request makes their calls).
 */
export function stepRates(m: ServiceModel, edges: Edge[], gates: Gates): Map<Edge, StepRate> {
  const out = new Map<Edge, StepRate>();
  const steps = m.errors?.steps ?? [];
  if (!steps.length) return out;
  const reach = new Map<Edge, number[]>();
  let alive = 1;
  for (const step of steps) {
    const e = stepEdge(edges, step.to);
    if (!e) continue;
    reach.set(e, [...(reach.get(e) ?? []), alive]);
    // the handler returns when this call fails: the later calls see only the requests it passed
    if (step.says !== undefined) alive *= 1 - (gates.get(gateKey(m.key, e)) ?? 0);
  }
  for (const [e, shares] of reach) {
    const each = e.perReq / shares.length;
    const rpcs = (RPCS[m.key] ?? [])
      .filter((r) => r.to === e.to && !e.store && r.nth <= shares.length)
      .map((r) => ({ rpc: r.rpc, perReq: each * shares[r.nth - 1] }));
    out.set(e, { perReq: shares.reduce((a, b) => a + b * each, 0), rpcs });
  }
  return out;
}
