// What stops an application early in its start: a variable it must read is unset (Go's
// mustMapEnv panics, dial.ts), or a host it resolves while reading its configuration does not
// resolve (nginx's [emerg] host not found, start-names.ts).
import type { ContainerRef } from "../../context/behavior.js";
import { type ServiceModel, systemOf } from "../../context/catalog.js";
import type { SimContext } from "../../context/context.js";
import type { Pod } from "../../core/objects.js";
import { missingAtStart } from "./dial.js";
import { resolvedAtStart, startHost } from "./start-names.js";

/** The variables the application needs at start that this instance's environment lacks. */
export function missingVars(ctx: SimContext, ref: ContainerRef, m: ServiceModel): string[] {
  return missingAtStart(ctx, ref.pod as Pod, m, systemOf(m).edges.get(m.key) ?? [], ref.restartCount);
}

/** The addresses (host:port) the application resolves at start that did not resolve. */
export function unresolvedHosts(ctx: SimContext, ref: ContainerRef, m: ServiceModel): string[] {
  const out: string[] = [];
  for (const e of systemOf(m).edges.get(m.key) ?? []) {
    const host = startHost(e);
    if (!host) continue;
    const got = resolvedAtStart(ctx, ref.pod as Pod, ref.container.name, ref.restartCount, host);
    if ("failed" in got) out.push(e.dial.address ?? host);
  }
  return out;
}
