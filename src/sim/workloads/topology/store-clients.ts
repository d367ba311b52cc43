// What a store's runtime state does to the applications that use it. A pooled client connects
// once (StackExchange.Redis' multiplexer, when cartservice first reaches its cache) and keeps its
// connections: a maxclients lowered later leaves them be, but an instance that connects after it
// (a restarted or new cartservice pod) is answered `-ERR max number of clients reached` and every
// call it makes fails. A server over its maxmemory refuses the commands that may grow memory
// (server.c processCommand, CMD_DENYOOM): cartservice's AddItem and EmptyCart, which write the
// cart through the cache's SetScript, fail with StackExchange.Redis' RedisServerException, and
// GetCart, a read, works. Which of a client's calls write is data (WRITES below).

import type { Edge, ServiceModel } from "../../context/catalog.js";
import type { SimContext } from "../../context/context.js";
import type { Pod } from "../../core/objects.js";
import { type Denial, storeDenial } from "./store-auth.js";
import { connectPooled, OOM_TEXT, redisProc, writeRefused } from "./store-runtime.js";

export type Refusal = Denial | "MAXCLIENTS";

/**
 * Per client application, the share of its calls to the store that write, and the routes of its
 * callers whose call to it writes. cartservice (microservices-demo v0.3.8 RedisCartStore.cs):
 * AddItemAsync and EmptyCartAsync end in _cache.SetAsync, GetCartAsync only reads. The share is
 * Locust's (loadgenerator/locustfile.py, tasks index 1, setCurrency 2, browseProduct 10,
 * viewCart 3, addToCart 2, checkout 1): of 27 cart calls per 19 tasks, 4 write (each addToCart's
 * AddItem, checkout's EmptyCart). The frontend's POST /cart (addToCartHandler) and POST
 * /cart/empty (emptyCartHandler) write; checkout's EmptyCart is checkoutservice's, whose error
 * PlaceOrder ignores (`_ = cs.emptyUserCart(...)`), so a checkout still succeeds.
 */
export const WRITES: Record<string, { share: number; routes: Record<string, string[]> }> = {
  cartservice: { share: 4 / 27, routes: { frontend: ["POST /cart", "POST /cart/empty"] } },
};

/**
 * What the caller's handler says failed when such a write fails ({what}): the frontend v0.3.8
 * (src/frontend/handlers.go) addToCartHandler's errors.Wrap(err, "failed to add to cart") and
 * emptyCartHandler's "failed to empty cart", each given to renderHTTPError with a 500.
 */
export const WRITE_WORDS: Record<string, Record<string, string>> = {
  frontend: { "POST /cart": "failed to add to cart", "POST /cart/empty": "failed to empty cart" },
};

/**
 * The exception a refused write raises in the client (StackExchange.Redis 2.2's
 * RedisServerException with the server's shared.oomerr, inside the cache's SetScript: script.c's
 * scriptVerifyOOM and script_lua.c add the script's name and line; toolboxes.yaml storeFailures).
 */
export const OOM_ERR = `StackExchange.Redis.RedisServerException: ${OOM_TEXT} script: f_241ff9be272d2cc7ea3ff7a9c556b75e143d4c26, on @user_script:2.`;

/** How a store pod answers a caller: not at all (maxclients), refused (auth), or served. */
export function storeRefusal(
  ctx: SimContext,
  callerPod: Pod | undefined,
  caller: ServiceModel,
  e: Edge,
  storePod: Pod,
  store: ServiceModel,
  host: string = e.dep,
): Refusal | undefined {
  if (e.store !== "redis") return undefined;
  if (callerPod && e.dial.conn === "pooled") {
    const proc = redisProc(ctx, storePod, store.container);
    // the connection is opened when the instance first reaches the store
    if (!connectPooled(ctx, proc, callerPod, caller.container, callerPod.metadata.name ?? ""))
      return "MAXCLIENTS";
  }
  return storeDenial(ctx, callerPod, caller, e, storePod, store, host);
}

/** Whether the store pod refuses writes now (over maxmemory, nothing left to evict). */
export function storeFull(ctx: SimContext, e: Edge, storePod: Pod, store: ServiceModel): boolean {
  if (e.store !== "redis") return false;
  return writeRefused(ctx, storePod, redisProc(ctx, storePod, store.container));
}

/** The share of a client's calls to its store that write (0 for a client WRITES does not know). */
export function writeShare(m: ServiceModel): number {
  return WRITES[m.key]?.share ?? 0;
}

/** The pages of `caller` that write through `callee` ("POST /cart"). */
export function writeRoutes(caller: ServiceModel, callee: string): string[] {
  return WRITES[callee]?.routes[caller.key] ?? [];
}

/** Whether a page of `caller` (method and route path) writes through `callee`. */
export function routeWrites(caller: ServiceModel, callee: string, method: string, path: string): boolean {
  return writeRoutes(caller, callee).includes(`${method} ${path}`);
}

interface FailureRule {
  app: string;
  store: string;
  refusal: string;
  lines: string[];
}

/** What a client application logs when its store refuses it so (toolboxes.yaml storeFailures). */
export function refusalLines(
  ctx: SimContext,
  m: ServiceModel,
  e: Edge,
  refusal: string,
): string[] | undefined {
  const rules = (ctx.stages.toolboxes.storeFailures ?? []) as FailureRule[];
  return rules.find((r) => r.app === m.key && r.store === e.store && r.refusal === refusal)?.lines;
}
