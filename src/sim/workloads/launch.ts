// Whether a container instance's command has started the application the topology describes.
// The topology models what a service does once its program runs; whether its program runs at all
// is its command's business. When the simulation runs the command itself (a shell, python: the
// kubelet's main process, kubelet/command.ts), the instance is `program` until the command
// becomes the application's server (`serving`, with the script it runs: commands/python.ts). A
// command that exits first (a bare `python3` with no input, a script path the image lacks)
// never serves, so the service never listens and its pod never becomes Ready. An instance with
// no entry runs a program the simulation does not run itself (a Go binary, java -jar): the
// image's own program, which the topology describes.

import { AsyncLocalStorage } from "node:async_hooks";
import type { SimContext } from "../context/context.js";
import type { KObject } from "../core/types.js";

interface Launch {
  serving: boolean;
  /** The source of the script the server runs (python -c, or the file it was given). */
  script?: string;
}

/** Instances remembered (oldest dropped first). */
const MAX = 20_000;
const books = new WeakMap<object, Map<string, Launch>>();

function book(ctx: SimContext): Map<string, Launch> {
  let b = books.get(ctx.faults);
  if (!b) {
    b = new Map();
    books.set(ctx.faults, b);
  }
  return b;
}

const keyOf = (pod: KObject, container: string, restartCount: number) =>
  `${pod.metadata.uid ?? ""}/${container}/${restartCount}`;

function put(ctx: SimContext, key: string, launch: Launch): void {
  const b = book(ctx);
  if (b.size >= MAX && !b.has(key)) b.delete(b.keys().next().value!);
  b.set(key, launch);
}

/** The simulation runs this instance's command (it has not started the application yet). */
export function launchProgram(ctx: SimContext, pod: KObject, container: string, restartCount: number): void {
  const key = keyOf(pod, container, restartCount);
  if (!book(ctx).get(key)?.serving) put(ctx, key, { serving: false });
}

/** The instance's command became the application's server, running `script`. */
export function launchServer(
  ctx: SimContext,
  pod: KObject,
  container: string,
  restartCount: number,
  script?: string,
): void {
  put(ctx, keyOf(pod, container, restartCount), { serving: true, script });
}

/** Which main process (and its children) the running code belongs to; none for kubectl exec. */
const mainScope = new AsyncLocalStorage<true>();

/** Run a container's main process: what it starts may become the application (launchServer). */
export function runAsMain<T>(fn: () => T): T {
  return mainScope.run(true, fn);
}

/** Whether the running command is the main process or its child (not a `kubectl exec`). */
export const inMainProcess = () => mainScope.getStore() === true;

/** Whether the instance runs the application: its own program, or a command that became it. */
export function appLaunched(ctx: SimContext, pod: KObject, container: string, restartCount: number): boolean {
  return book(ctx).get(keyOf(pod, container, restartCount))?.serving ?? true;
}

/** The script the instance's server runs, when its command gave one. */
export function appScript(
  ctx: SimContext,
  pod: KObject,
  container: string,
  restartCount: number,
): string | undefined {
  return book(ctx).get(keyOf(pod, container, restartCount))?.script;
}
