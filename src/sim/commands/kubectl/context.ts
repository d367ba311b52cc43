// What a verb is given: its parsed flags, the process it runs in, and a client and namespace built
// from the config only when it first asks (kubectl version --client needs no server).
import type { Proc } from "../../userland/process.js";
import { Client } from "./client.js";
import { loadConfig } from "./config.js";
import type { Flags, FlagTable } from "./flags.js";

export interface Run {
  p: Proc;
  f: Flags;
  /** The command path for messages ("kubectl set env"). */
  path: string;
  client(): Client;
  /** -n, else the config's namespace. */
  namespace(): string;
}

export type Verb = { flags: FlagTable; run: (r: Run) => Promise<number> };

export function makeRun(p: Proc, f: Flags, path: string): Run {
  let client: Client | undefined;
  const get = () => {
    client ??= new Client(
      p,
      loadConfig(p, {
        kubeconfig: f.str("kubeconfig"),
        context: f.str("context"),
        server: f.str("server"),
        token: f.str("token"),
      }),
    );
    return client;
  };
  return {
    p,
    f,
    path,
    client: get,
    namespace: () => f.str("namespace") || get().config.namespace,
  };
}
