// The expert tier's `store` check (cache-auth): the store answers its clients' commands. With the
// redis-cli the redis images ship beside the server, run in the store's own pod, a PING to the
// store's Service with the credentials its client sends: the password of the connection string in
// the client's environment that names the store (StackExchange.Redis's `redis-cart:6379,
// password=x`, a `redis://:x@host` URL), none when it gives none. `PONG` passes; `NOAUTH
// Authentication required.` (the store requires a password the client does not send) or
// `WRONGPASS` (the client sends another) is the fault. So a fix that drops the store's password
// passes, and so does one that gives the client the store's password.
import { execIn } from "../kube/exec.js";
import type { Pod, Service } from "../kube/objects.js";
import { callersOf, passwordIn } from "./address.js";
import { guardedVerifier } from "./guarded.js";
import { isReady, targetPods } from "./pods.js";
import { appContainer, missingTool, readEnv } from "./requests.js";
import type { Verdict, Verifier, VerifyContext } from "./types.js";

/** What a redis-cli PING printed: the store answered, refused the credentials, or was not reached. */
export function pingAnswer(out: string, err: string): { ok: boolean; words: string; conclusive: boolean } {
  const words = (out.trim() || err.trim()).split("\n")[0] ?? "";
  if (out.trim() === "PONG") return { ok: true, words, conclusive: true };
  if (/NOAUTH|WRONGPASS|Could not connect|ERR/.test(`${out}\n${err}`))
    return { ok: false, words, conclusive: true };
  return { ok: false, words: words || "no answer", conclusive: false };
}

/** The password the store's clients send: from the first client pod whose environment names the store. */
async function clientPassword(
  ctx: VerifyContext,
  host: string,
): Promise<{ password?: string; from: string } | string> {
  const clients = callersOf(ctx.env.topology, ctx.service);
  if (!clients.length) return { from: "no client in the topology" };
  for (const app of clients) {
    const pods = await ctx.client.list<Pod>("v1", "Pod", ctx.namespace, `app=${app}`);
    for (const pod of pods.filter((p) => !p.metadata.deletionTimestamp && isReady(p))) {
      const container = appContainer(ctx.env, pod, app);
      const env = await readEnv(ctx, pod, container);
      if (typeof env === "string") continue;
      const from = `${pod.metadata.name}/${container}`;
      for (const value of env.values()) {
        const pw = passwordIn(value, host);
        if (pw !== undefined) return pw ? { password: pw, from } : { from };
      }
      return { from };
    }
  }
  return `no Ready pod of ${clients.join(", ")} whose environment could be read`;
}

/** The store's Service (the topology's first name) and port (the object's, else the topology's). */
async function storeAddress(ctx: VerifyContext): Promise<{ host: string; port: number }> {
  const t = ctx.env.topology.services[ctx.service];
  const host = t?.services?.[0] ?? ctx.service;
  const svc = await ctx.client.tryGet<Service>("v1", "Service", ctx.namespace, host);
  return { host, port: svc?.spec?.ports?.[0]?.port ?? t?.port ?? 6379 };
}

async function read(ctx: VerifyContext): Promise<Verdict> {
  const { host, port } = await storeAddress(ctx);
  const cred = await clientPassword(ctx, host);
  // without the client's credentials there is nothing to ask the store with
  if (typeof cred === "string")
    return { pass: false, reason: cred, measurements: { store: `${host}:${port}` }, inconclusive: true };
  const pods = (await targetPods(ctx)).filter(isReady);
  const rows: Record<string, unknown>[] = [];
  const problems: string[] = [];
  let refused = 0;
  if (!pods.length) problems.push(`no Ready pod of ${ctx.service}`);
  for (const pod of pods) {
    const container = appContainer(ctx.env, pod, ctx.service);
    const auth = cred.password ? ["-a", cred.password, "--no-auth-warning"] : [];
    const argv = ["redis-cli", "-h", host, "-p", String(port), ...auth, "ping"];
    const wall = ctx.time.wall(10_000) + 10_000;
    const r = await execIn(ctx.client, ctx.namespace, pod.metadata.name!, container, argv, wall);
    if (missingTool(r)) {
      problems.push(`${pod.metadata.name}/${container} has no redis-cli`);
      continue;
    }
    const a = pingAnswer(r.stdout, r.stderr || r.message || "");
    rows.push({ pod: pod.metadata.name, container, answer: a.words, ok: a.ok });
    if (a.ok) continue;
    if (a.conclusive) refused++;
    problems.push(`PING from ${pod.metadata.name} answered ${a.words}`);
  }
  const sends = cred.password
    ? `the password ${cred.from} sends`
    : `no password (as ${cred.from} sends none)`;
  const what = `${host}:${port} with ${sends}`;
  const pass = rows.length > 0 && problems.length === 0;
  return {
    pass,
    reason: pass
      ? `the store answers PING at ${what}: PONG`
      : `the store does not answer its client at ${what}: ${problems.join("; ")}`,
    measurements: {
      store: `${host}:${port}`,
      client: cred.from,
      ping: rows,
    },
    ...(!pass && refused === 0 ? { inconclusive: true } : {}),
  };
}

export const storeVerifier: Verifier = guardedVerifier("store", read);
