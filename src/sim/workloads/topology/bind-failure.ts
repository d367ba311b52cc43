// An application of the topology that finds its port already bound when it opens it (a sidecar
// took it first, binds.ts): it writes its runtime's error and exits, as the rules of
// toolboxes.yaml `bindFailures` say for its app or language (Go's `listen tcp :3550: bind: address
// already in use` under logrus' Fatal, Python's `OSError: [Errno 98] Address already in use`, ...).
// The kubelet then restarts it, and it fails again for as long as the other process holds the port.

import type { ContainerRef } from "../../context/behavior.js";
import type { ServiceModel } from "../../context/catalog.js";
import type { SimContext } from "../../context/context.js";
import { appPorts, portTakenAtOpen } from "./listeners.js";

interface Rule {
  app?: string;
  lang?: string;
  exitCode: number;
  lines: string[];
}

export interface BindFailure {
  /** The port found taken. */
  port: number;
  /** Cluster ms when the application tried to open it (its start-up end) and exited. */
  at: number;
  exitCode: number;
  /** What it writes, with {port} and {line} filled (the log vars are the caller's). */
  lines: string[];
}

const rulesOf = (ctx: SimContext) => (ctx.stages.toolboxes.bindFailures ?? []) as Rule[];

/** The line of a `python -c` script that builds its server (the traceback's `<string>` frame). */
function scriptLine(ref: ContainerRef): number {
  const script = (ref.container.command ?? []).map(String).find((a) => a.includes("\n")) ?? "";
  const at = script.split("\n").findIndex((l) => /HTTPServer\(/.test(l));
  return at + 1 || 1;
}

/** How this instance fails to open its ports, if one of them was taken when it tried. */
export function bindFailure(ctx: SimContext, ref: ContainerRef, m: ServiceModel): BindFailure | undefined {
  const port = portTakenAtOpen(ctx, ref, appPorts(ref.container, m));
  if (port === undefined) return undefined;
  const rule = rulesOf(ctx).find(
    (r) => (r.app ? r.app === m.key : true) && (r.lang ? new RegExp(r.lang).test(m.lang) : !!r.app),
  );
  const line = String(scriptLine(ref));
  return {
    port,
    at: ref.startedAt + ctx.behavior.startupMs(ref),
    exitCode: rule?.exitCode ?? 1,
    lines: (rule?.lines ?? []).map((l) => l.replaceAll("{line}", line)),
  };
}
