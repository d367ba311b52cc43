// The settings an application reads from its container's environment (the topology's
// `settings:`), as the application parses them: Spring Boot binds SERVER_TOMCAT_THREADS_MAX to
// server.tomcat.threads.max by its relaxed binding of environment variables (upper case, dots
// and dashes dropped to underscores), and a Duration from "5s", "500ms" or a bare number of
// milliseconds (DurationStyle.detectAndParse); the JVM reads -Xmx from JAVA_OPTS through its
// start script, with k, m or g suffixes; Locust's entrypoint passes USERS to -u. A variable the
// application reads that is unset gives the setting's default; no default: no such limit.
// A setting read from the command line too (`commandLine`: Train-Ticket's images run
// `java -Xmx200m -jar /app/<svc>-1.0.jar` as their CMD) takes the command line's last match over
// every variable: the JVM parses JAVA_TOOL_OPTIONS before its command line (JDK docs, "The
// JAVA_TOOL_OPTIONS Environment Variable": the options are prepended) and a later -Xmx replaces
// an earlier one. The command line is the container's command and args with the kubelet's
// $(VAR) expanded (kubecontainer.ExpandContainerCommandAndArgs), else the image's CMD.

import { MiB } from "../../../util/quantity.js";
import type { ServiceModel, Setting, SettingKind } from "../../context/catalog.js";
import type { SimContext } from "../../context/context.js";
import type { Container, Pod } from "../../core/objects.js";
import { expandRefs, keptEnv } from "../../userland/env.js";
import { commandLine } from "../../userland/toolbox.js";

const DURATION_MS: Record<string, number> = {
  ns: 1e-6,
  us: 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
};
const BYTES: Record<string, number> = { "": 1, k: 1024, m: MiB, g: 1024 * MiB, t: 1024 * 1024 * MiB };

/** A value in the setting's unit (ms for a duration, bytes for a size), or undefined if unreadable. */
export function parseSetting(s: Setting, raw: string | number): number | undefined {
  const text = String(raw).trim();
  if (s.unit === "count") return /^\d+$/.test(text) ? Number(text) : undefined;
  if (s.unit === "duration") {
    // Spring's DurationStyle: a bare number is milliseconds; ISO-8601 (PT5S) too
    const simple = text.match(/^(\d+(?:\.\d+)?)(ns|us|ms|s|m|h|d)?$/i);
    if (simple) return Number(simple[1]) * DURATION_MS[(simple[2] ?? "ms").toLowerCase()];
    const iso = text.match(/^PT(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:\.\d+)?)S)?$/i);
    if (iso) return (Number(iso[1] ?? 0) * 3600 + Number(iso[2] ?? 0) * 60 + Number(iso[3] ?? 0)) * 1000;
    return undefined;
  }
  // the JVM's -Xmx: digits and an optional k, m, g, t (either case)
  const size = text.match(/^(\d+)([kmgt]?)$/i);
  return size ? Number(size[1]) * BYTES[size[2].toLowerCase()] : undefined;
}

/**
 * What the process's command line says of the setting (its last match), for a setting read there:
 * each word split at blanks, so a shell's `-c "exec java -Xmx1g ..."` is read as the JVM gets it.
 */
function fromCommandLine(s: Setting, spec: Container | undefined, env?: ReadonlyMap<string, string>) {
  if (!s.commandLine || !s.pattern || !spec) return undefined;
  const line = commandLine(spec)
    .flatMap((a) => (env ? expandRefs(a, env as Map<string, string>) : a).split(/\s+/))
    .filter(Boolean)
    .join(" ");
  return line.match(new RegExp(s.pattern))?.[1];
}

/** The setting's value in one pod of the service: its command line, its environment, else the default. */
export function settingOf(ctx: SimContext, pod: Pod, m: ServiceModel, kind: SettingKind): number | undefined {
  const s = m.settings[kind];
  if (!s) return undefined;
  const spec = (pod.spec?.containers ?? []).find((c) => c.name === m.container);
  const env = spec ? keptEnv(ctx, pod, spec) : undefined;
  const argv = fromCommandLine(s, spec, env);
  const onLine = argv === undefined ? undefined : parseSetting(s, argv);
  if (onLine !== undefined) return onLine;
  for (const name of s.env) {
    const raw = env?.get(name);
    if (raw === undefined) continue;
    const value = s.pattern ? raw.match(new RegExp(s.pattern))?.[1] : raw;
    if (value === undefined) continue;
    const v = parseSetting(s, value);
    if (v !== undefined) return v;
  }
  return s.default === undefined ? undefined : parseSetting(s, s.default);
}

/** Whether the container's command line or environment sets it (not only its default). */
export function settingSet(ctx: SimContext, pod: Pod, m: ServiceModel, kind: SettingKind): boolean {
  const s = m.settings[kind];
  if (!s) return false;
  const spec = (pod.spec?.containers ?? []).find((c) => c.name === m.container);
  const env = spec ? keptEnv(ctx, pod, spec) : undefined;
  if (fromCommandLine(s, spec, env) !== undefined) return true;
  return s.env.some((n) => {
    const raw = env?.get(n);
    return raw !== undefined && (!s.pattern || new RegExp(s.pattern).test(raw));
  });
}

/** A duration as java.time.Duration prints it (PT5S, PT0.5S, PT1M30S). */
export function javaDuration(ms: number): string {
  if (ms === 0) return "PT0S";
  const h = Math.floor(ms / 3_600_000);
  const m = Math.floor((ms % 3_600_000) / 60_000);
  const s = (ms % 60_000) / 1000;
  return `PT${h ? `${h}H` : ""}${m ? `${m}M` : ""}${s ? `${Number(s.toFixed(3))}S` : ""}`;
}
