// ansible's settings inside the sandbox: its home, temporary files and collections, our callback
// plugin for the task results, and quiet, colourless output. Added to the allowlisted environment.
import { existsSync } from "node:fs";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import type { Sandbox } from "../sandbox/session.js";

/**
 * Where the user's ansible finds collections (kubernetes.core installed with ansible-galaxy lives
 * in ~/.ansible/collections): shown read-only in the sandbox at the same paths, so a playbook is
 * not blamed for a module the sandbox hid. Collections shipped inside ansible's own Python
 * package are found without this.
 */
export function collectionPaths(): string[] {
  const configured = process.env.ANSIBLE_COLLECTIONS_PATH ?? process.env.ANSIBLE_COLLECTIONS_PATHS ?? "";
  const paths = [
    ...configured.split(":").filter(Boolean),
    join(homedir(), ".ansible", "collections"),
    "/usr/share/ansible/collections",
  ];
  return [...new Set(paths.map((p) => resolve(p)))].filter((p) => existsSync(p));
}

/** The ANSIBLE_* settings for one run whose task results go to `tasksFile`. */
export function ansibleEnv(sandbox: Sandbox, tasksFile: string): Record<string, string> {
  const collections = collectionPaths();
  return {
    ...(collections.length ? { ANSIBLE_COLLECTIONS_PATH: collections.join(":") } : {}),
    ANSIBLE_HOME: join(sandbox.home, ".ansible"),
    ANSIBLE_LOCAL_TEMP: join(sandbox.tmp, "ansible-local"),
    ANSIBLE_REMOTE_TEMP: join(sandbox.tmp, "ansible-remote"),
    ANSIBLE_CALLBACK_PLUGINS: join(sandbox.lib, "callback_plugins"),
    ANSIBLE_CALLBACKS_ENABLED: "task_results",
    TASK_RESULTS_FILE: tasksFile,
    ANSIBLE_NOCOLOR: "1",
    ANSIBLE_FORCE_COLOR: "0",
    ANSIBLE_RETRY_FILES_ENABLED: "0",
    ANSIBLE_HOST_KEY_CHECKING: "0",
    ANSIBLE_LOCALHOST_WARNING: "0",
    ANSIBLE_INVENTORY_UNPARSED_WARNING: "0",
    ANSIBLE_DEPRECATION_WARNINGS: "0",
  };
}
