// Start-up lines that quote the container's environment as it is set: `{env:NAME}` is the
// variable's value in this instance (cartservice prints `Connecting to Redis: ` and its
// REDIS_ADDR, whatever that is). A line that quotes a variable the environment lacks is not
// written: the application takes its other branch (cartservice keeps carts in memory and says so
// in its missingEnv line).
import type { ContainerRef } from "../../context/behavior.js";
import type { Logs } from "../../context/catalog.js";
import type { SimContext } from "../../context/context.js";
import { containerEnv } from "../../userland/env.js";

const ENV = /\{env:([A-Za-z_][A-Za-z0-9_]*)\}/g;

/** The templates with `{env:NAME}` filled from the instance's environment (startup lines only). */
export function withEnv(ctx: SimContext, ref: ContainerRef, logs: Logs): Logs {
  if (!logs.startup?.some((l) => l.includes("{env:"))) return logs;
  const env = containerEnv(ctx, ref.pod, ref.container, ref.restartCount);
  const startup = (logs.startup ?? []).flatMap((l) => {
    let unset = false;
    const text = l.replace(ENV, (_m, name: string) => {
      const v = env.get(name);
      if (v === undefined || v === "") unset = true;
      return v ?? "";
    });
    return unset ? [] : [text];
  });
  return { ...logs, startup };
}
