// A request stops at its first failing call, and a request's log line says the status it really
// got: Online-Boutique on a pinned clock, read with the real kubectl. Sources (microservices-demo
// at v0.3.8, github:GoogleCloudPlatform/microservices-demo):
// - src/checkoutservice/main.go PlaceOrder (lines 218-267) and its helpers (276-428): GetCart,
//   each product and its price, the shipping quote and its conversion, then chargeCard, returning
//   "failed to charge card" when it fails, before shipOrder (ShipOrder), emptyUserCart (its error
//   dropped: `_ = cs.emptyUserCart`) and sendOrderConfirmation (its error only logged, Warnf);
// - src/emailservice/email_server.py DummyEmailService.SendOrderConfirmation: "A request to send
//   order confirmation email to %s has been received.";
// - src/shippingservice/main.go: GetQuote logs "[GetQuote] received request", ShipOrder
//   "[ShipOrder] received request" and "[ShipOrder] completed request";
// - src/frontend/middleware.go logHandler: "request started", then "request complete" with the
//   status the handler wrote (http.resp.status); src/frontend/handlers.go addToCartHandler:
//   renderHTTPError(errors.Wrap(err, "failed to add to cart"), 500), which logs "request error";
// - src/cartservice/src/cartstore/RedisCartStore.cs AddItemAsync: any store exception answered
//   FailedPrecondition "Can't access cart storage. {ex}"; redis 7.2.4 server.c processCommand
//   refuses a CMD_DENYOOM command over maxmemory ("OOM command not allowed when used memory >
//   'maxmemory'.").
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type LoadSim, loadSim, readyPods } from "./load-helpers.js";

let s: LoadSim;
beforeAll(async () => {
  s = await loadSim("online-boutique", "first-failure");
}, 180_000);
afterAll(() => s?.stop());

type Line = Record<string, string | number>;
const jsonLines = (out: string): Line[] =>
  out
    .split("\n")
    .filter((l) => l.startsWith("{"))
    .map((l) => JSON.parse(l) as Line);

async function logsOf(app: string, since: string): Promise<string> {
  const pod = readyPods(s, app)[0] ?? s.pod(app);
  const r = await s.kubectl([
    "logs",
    pod.metadata.name!,
    "-c",
    pod.spec!.containers[0].name,
    "--since",
    since,
  ]);
  expect(r.exitCode, r.stderr).toBe(0);
  return r.stdout;
}

const CONFIRM = /A request to send order confirmation email to someone@example\.com has been received\./;

describe("a checkout stops at its first failing call", () => {
  it("paymentservice gone: every checkout fails at the card; no email, no shipment, no emptied cart, until payment is back", async () => {
    s.advance(300_000);
    // healthy: the emails and the shipments go out
    expect(await logsOf("emailservice", "300s")).toMatch(CONFIRM);
    expect(await logsOf("shippingservice", "300s")).toContain("[ShipOrder] received request");
    const ship = s.svc("shippingservice").rps;
    const email = s.svc("emailservice").rps;
    expect(email).toBeGreaterThan(0);

    s.scale("paymentservice", 0);
    s.advance(600_000);
    // the card is never charged: checkoutservice returns before ShipOrder, EmptyCart and the email
    expect(s.svc("checkoutservice").failRate).toBe(1);
    expect(s.svc("emailservice").rps).toBe(0);
    // the shipping quote is still asked for (it comes before the card), the shipment is not
    expect(s.svc("shippingservice").rps).toBeGreaterThan(0);
    expect(s.svc("shippingservice").rps).toBeLessThan(ship);
    const emails = await logsOf("emailservice", "540s");
    expect(emails).not.toMatch(CONFIRM);
    const shipping = await logsOf("shippingservice", "540s");
    expect(shipping).toContain("[GetQuote] received request");
    expect(shipping).not.toContain("[ShipOrder]");
    // checkoutservice says what it did: no payment went through, no confirmation sent
    const own = jsonLines(await logsOf("checkoutservice", "540s")).map((l) => String(l.message));
    expect(own.some((m) => m.startsWith("[PlaceOrder]"))).toBe(true);
    expect(own.filter((m) => /payment went through|order confirmation email sent/.test(m))).toEqual([]);

    s.scale("paymentservice", 1);
    s.advance(300_000);
    expect(s.svc("checkoutservice").failRate).toBe(0);
    expect(s.svc("emailservice").rps).toBeCloseTo(email, 6);
    expect(s.svc("shippingservice").rps).toBeCloseTo(ship, 6);
    expect(await logsOf("emailservice", "240s")).toMatch(CONFIRM);
    expect(await logsOf("shippingservice", "240s")).toContain("[ShipOrder] received request");
  }, 300_000);

  it("emailservice gone: the order still goes through (its failure is only logged), shipments go on", async () => {
    const ship = s.svc("shippingservice").rps;
    s.scale("emailservice", 0);
    s.advance(300_000);
    expect(s.svc("checkoutservice").failRate).toBe(0);
    expect(s.svc("shippingservice").rps).toBeCloseTo(ship, 6);
    expect(await logsOf("shippingservice", "240s")).toContain("[ShipOrder] received request");
    s.scale("emailservice", 1);
    s.advance(120_000);
  }, 300_000);
});

describe("a request's log line says the status it got", () => {
  it("redis-cart over its maxmemory: the frontend logs the failing add-to-cart with its 500, and its error", async () => {
    const redis = s.pod("redis-cart");
    const set = await s.exec(redis, ["redis-cli", "config", "set", "maxmemory", "512kb"], "redis");
    expect(set.out).toBe("OK\n");
    s.advance(1_200_000);
    const lines = jsonLines(await logsOf("frontend", "1200s"));
    const errs = lines.filter((l) => l.message === "request error" && l["http.req.path"] === "/cart");
    expect(errs.length).toBeGreaterThan(0);
    expect(String(errs[0].error)).toBe(
      "failed to add to cart: rpc error: code = FailedPrecondition desc = Can't access cart storage. StackExchange.Redis.RedisServerException: OOM command not allowed when used memory > 'maxmemory'. script: f_241ff9be272d2cc7ea3ff7a9c556b75e143d4c26, on @user_script:2.",
    );
    expect(errs[0]["http.req.method"]).toBe("POST");
    // the same request, started and completed with its status, the error in between
    const id = errs[0]["http.req.id"];
    const same = lines.filter((l) => l["http.req.id"] === id).map((l) => [l.message, l["http.resp.status"]]);
    expect(same).toEqual([
      ["request started", undefined],
      ["request error", undefined],
      ["request complete", 500],
    ]);
    // the successful requests still say 200
    expect(lines.some((l) => l.message === "request complete" && l["http.resp.status"] === 200)).toBe(true);
    await s.exec(redis, ["redis-cli", "config", "set", "maxmemory", "0"], "redis");
  }, 300_000);
});
