// Start-up and ready lines that quote the container's environment as it is set: `{env:NAME}` is
// the variable's value in this instance, `{env:NAME:-default}` with the shell's default when it is
// unset or empty (Locust's entrypoint: -u "${USERS:-10}") (cartservice prints `Connecting to Redis: ` and its
// REDIS_ADDR, whatever that is). A line that quotes a variable the environment lacks is not
// written: the application takes its other branch (cartservice keeps carts in memory and says so
// in its missingEnv line).
import type { ContainerRef } from "../../context/behavior.js";
import type { Logs } from "../../context/catalog.js";
import type { SimContext } from "../../context/context.js";
import { containerEnv } from "../../userland/env.js";

const ENV = /\{env:([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

/** The templates with `{env:NAME}` filled from the instance's environment (startup and ready lines). */
export function withEnv(ctx: SimContext, ref: ContainerRef, logs: Logs): Logs {
  const quotes = (ls?: string[]) => ls?.some((l) => l.includes("{env:")) ?? false;
  if (!quotes(logs.startup) && !quotes(logs.ready)) return logs;
  const env = containerEnv(ctx, ref.pod, ref.container, ref.restartCount);
  const fill = (ls: string[] | undefined) =>
    (ls ?? []).flatMap((l) => {
      let unset = false;
      const text = l.replace(ENV, (_m, name: string, dflt?: string) => {
        const v = env.get(name);
        if (v !== undefined && v !== "") return v;
        if (dflt !== undefined) return dflt;
        unset = true;
        return "";
      });
      return unset ? [] : [text];
    });
  return { ...logs, startup: fill(logs.startup), ready: fill(logs.ready) };
}
