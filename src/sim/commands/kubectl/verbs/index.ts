// kubectl's commands by path: `get`, and the two-word ones (`set env`, `rollout restart`,
// `create configmap`, `auth can-i`). GROUPS are the parents whose unknown child fails as cobra
// says it (`unknown command "x" for "kubectl set"`).
import type { Verb } from "../context.js";
import { apply } from "./apply.js";
import { canI } from "./auth.js";
import { create } from "./create.js";
import { del } from "./delete.js";
import { get } from "./get.js";
import { logs } from "./logs.js";
import { annotate, label } from "./meta.js";
import { patch } from "./patch.js";
import { rollout } from "./rollout.js";
import { scale } from "./scale.js";
import { setEnv } from "./set-env.js";
import { version } from "./version.js";
import { wait } from "./wait.js";

export const VERBS: Record<string, Verb> = {
  get,
  logs,
  patch,
  apply,
  scale,
  label,
  annotate,
  delete: del,
  version,
  wait,
  create: create.file,
  "create configmap": create.configmap,
  "create cm": create.cm,
  "create secret": create.secret,
  "create namespace": create.namespace,
  "create ns": create.ns,
  "set env": setEnv,
  "rollout restart": rollout.restart,
  "rollout status": rollout.status,
  "rollout undo": rollout.undo,
  "rollout pause": rollout.pause,
  "rollout resume": rollout.resume,
  "auth can-i": canI,
};

export const GROUPS = new Set(["set", "rollout", "auth"]);

/** kubectl's commands in the order its root command adds them (for cobra's suggestions). */
export const COMMANDS = [
  "create",
  "expose",
  "run",
  "set",
  "explain",
  "get",
  "edit",
  "delete",
  "rollout",
  "scale",
  "autoscale",
  "certificate",
  "cluster-info",
  "top",
  "cordon",
  "uncordon",
  "drain",
  "taint",
  "describe",
  "logs",
  "attach",
  "exec",
  "port-forward",
  "proxy",
  "cp",
  "auth",
  "debug",
  "events",
  "diff",
  "apply",
  "patch",
  "replace",
  "wait",
  "kustomize",
  "label",
  "annotate",
  "completion",
  "alpha",
  "api-resources",
  "api-versions",
  "config",
  "plugin",
  "version",
  "options",
];
