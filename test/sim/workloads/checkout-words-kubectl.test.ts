// Online-Boutique's checkoutservice words each callee's failure in its own way, read with real
// kubectl. src/checkoutservice/main.go at v0.3.8 (the images the env deploys):
//   - PlaceOrder (lines 218-267) calls, in order: prepareOrderItemsAndShippingQuoteFromCart
//     (lines 276-295: the cart, "cart failure: %+v" of getUserCart's "failed to get user cart
//     during checkout: %+v"; each product and its price, "failed to prepare order: %+v" of
//     prepOrderItems' words, which drop the callee's error; the shipping quote, "shipping quote
//     failure: %+v"; its conversion), then chargeCard (line 240: status Internal, "failed to charge
//     card: %+v" of line 399's "could not charge the card: %+v"), shipOrder (line 248: status
//     Unavailable, "shipping error: %+v"), emptyUserCart (its error dropped), and
//     sendOrderConfirmation, whose failure is only logged (line 262, Warnf "failed to send order
//     confirmation to %q: %+v") while the order goes through;
//   - it logs no failure of its own: the status goes back to the frontend, whose placeOrderHandler
//     (src/frontend/handlers.go) wraps it in "failed to complete the order" and renderHTTPError
//     logs it as "request error" with that error;
//   - cartservice's RedisCartStore (src/cartservice/src/cartstore/RedisCartStore.cs line 64)
//     answers a store it cannot reach with FailedPrecondition "Can't access cart storage. {ex}".
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestCluster, type TestCluster } from "../../helpers/cluster.js";
import { deploySystem, eventually, type Kn, kubectlIn } from "../helpers/failures.js";

let t: TestCluster;
let kn: Kn;
const NS = "checkout-words";

beforeAll(async () => {
  t = await startTestCluster(60, 29);
  kn = kubectlIn(t, NS);
  await deploySystem(t, "online-boutique", NS);
}, 300_000);
afterAll(() => t?.stop());

type Line = Record<string, string | number>;
const jsonLines = (out: string): Line[] =>
  out
    .split("\n")
    .filter((l) => l.startsWith("{"))
    .map((l) => JSON.parse(l) as Line);
/** The errors the frontend logged for checkouts. */
const checkoutErrors = (out: string) =>
  jsonLines(out)
    .filter((l) => l.message === "request error" && l["http.req.path"] === "/cart/checkout")
    .map((l) => String(l.error));

async function scale(deploy: string, n: number) {
  const r = await kn(["scale", `deployment/${deploy}`, `--replicas=${n}`]);
  expect(r.exitCode, r.stderr).toBe(0);
  if (n > 0)
    await eventually(kn, ["rollout", "status", `deployment/${deploy}`, "--timeout=20s"], (o) =>
      o.includes("successfully rolled out"),
    );
}

describe("checkoutservice's words per callee", () => {
  it("no paymentservice: the card could not be charged, and checkoutservice logs only the order it began", async () => {
    await scale("paymentservice", 0);
    const want =
      /^failed to complete the order: rpc error: code = Internal desc = failed to charge card: could not charge the card: rpc error: code = Unavailable desc = connection error: desc = "transport: Error while dialing dial tcp 10\.43\.\d+\.\d+:50051: connect: connection refused"$/;
    const out = await eventually(
      kn,
      ["logs", "deployment/frontend", "-c", "server", "--tail=400"],
      (o) => checkoutErrors(o).some((e) => want.test(e)),
      120_000,
    );
    // from then on every checkout fails there, and nothing before it said anything
    const errs = checkoutErrors(out);
    for (const e of errs.slice(errs.findIndex((x) => want.test(x)))) expect(e).toMatch(want);
    const own = await kn(["logs", "deployment/checkoutservice", "-c", "server", "--tail=30"]);
    const mine = jsonLines(own.stdout);
    expect(mine.some((l) => String(l.message).startsWith("[PlaceOrder] user_id="))).toBe(true);
    expect(mine.filter((l) => l.severity === "error")).toEqual([]);
    await scale("paymentservice", 1);
  }, 300_000);

  it("no emailservice: the order goes through and the confirmation's failure is a warning", async () => {
    await scale("emailservice", 0);
    const out = await eventually(
      kn,
      ["logs", "deployment/checkoutservice", "-c", "server", "--tail=60"],
      (o) => jsonLines(o).some((l) => l.severity === "warning"),
      120_000,
    );
    const lines = jsonLines(out);
    const warn = lines.find((l) => l.severity === "warning")!;
    expect(String(warn.message)).toMatch(
      /^failed to send order confirmation to "someone@example\.com": rpc error: code = Unavailable desc = connection error: desc = "transport: Error while dialing dial tcp 10\.43\.\d+\.\d+:5000: connect: connection refused"$/,
    );
    // the payment went through before it, with its own transaction id
    const i = lines.indexOf(warn);
    expect(String(lines[i - 1]?.message)).toMatch(/^payment went through \(transaction_id: [0-9a-f-]{36}\)$/);
    expect(String(lines[i - 2]?.message)).toMatch(/^\[PlaceOrder\] user_id="[0-9a-f-]{36}"/);
    expect(String(lines[i - 1].message)).not.toContain(String(lines[i - 2].message).slice(22, 58));
    await scale("emailservice", 1);
  }, 300_000);

  it("no redis-cart: the cart failure carries cartservice's own words", async () => {
    await scale("redis-cart", 0);
    const out = await eventually(
      kn,
      ["logs", "deployment/frontend", "-c", "server", "--tail=400"],
      (o) => checkoutErrors(o).some((e) => e.includes("FailedPrecondition")),
      120_000,
    );
    expect(checkoutErrors(out).find((e) => e.includes("FailedPrecondition"))).toBe(
      "failed to complete the order: rpc error: code = Internal desc = cart failure: failed to get user cart during checkout: rpc error: code = FailedPrecondition desc = Can't access cart storage. StackExchange.Redis.RedisConnectionException: It was not possible to connect to the redis server(s). UnableToConnect on redis-cart:6379/Interactive",
    );
    await scale("redis-cart", 1);
  }, 300_000);
});
