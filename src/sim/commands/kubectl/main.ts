// kubectl as a program in a container (bitnami/kubectl and the images whose toolbox lists it):
// the verbs a script runs against the cluster it lives in, printing what kubectl prints and
// exiting 1 on any error, worded as k8s.io/kubectl/pkg/cmd/util/helpers.go checkErr words it.
import type { CommandRegistry, Proc } from "../../userland/process.js";
import { gated } from "../../userland/toolbox.js";
import { ConfigError } from "./config.js";
import type { Verb } from "./context.js";
import { makeRun } from "./context.js";
import { errorText } from "./errors.js";
import { Flags, parseFlags, UsageError } from "./flags.js";
import { COMMANDS, GROUPS, VERBS } from "./verbs/index.js";

/** Find the verb (and sub-verb: `set env`, `rollout restart`, `create configmap`). */
function lookup(argv: string[]): { verb?: Verb; path: string; rest: string[] } {
  // the command words come first, among global flags that may precede them
  const words: number[] = [];
  for (let i = 0; i < argv.length && words.length < 2; i++) {
    const a = argv[i];
    if (a.startsWith("-")) {
      // a global flag with its value as the next word
      if (
        /^(-n|--namespace|--kubeconfig|--context|-s|--server|--token|--request-timeout|--as|--cluster|--user)$/.test(
          a,
        )
      )
        i++;
      continue;
    }
    words.push(i);
  }
  const first = words[0] === undefined ? undefined : argv[words[0]];
  if (first === undefined) return { path: "kubectl", rest: argv };
  const second = words[1] === undefined ? undefined : argv[words[1]];
  const two = second !== undefined ? VERBS[`${first} ${second}`] : undefined;
  if (two)
    return {
      verb: two,
      path: `kubectl ${first} ${second}`,
      rest: argv.filter((_, i) => i !== words[0] && i !== words[1]),
    };
  return { verb: VERBS[first], path: `kubectl ${first}`, rest: argv.filter((_, i) => i !== words[0]) };
}

async function kubectl(argv: string[], p: Proc): Promise<number> {
  const { verb, path, rest } = lookup(argv);
  if (!verb) {
    const words = argv.filter((a) => !a.startsWith("-"));
    if (!words.length) {
      p.out(
        "kubectl controls the Kubernetes cluster manager.\n\n Find more information at: https://kubernetes.io/docs/reference/kubectl/\n",
      );
      return 0;
    }
    // a group's unknown child is kubectl's own error; an unknown command is cobra's
    if (GROUPS.has(words[0]) && words[1] !== undefined)
      p.stderr.write(
        `error: unknown command "${words[1]}"\nSee 'kubectl ${words[0]} -h' for help and examples\n`,
      );
    else p.stderr.write(`Error: unknown command "${words[0]}" for "kubectl"${suggestions(words[0])}\n`);
    return 1;
  }
  let f: Flags;
  try {
    f = new Flags(parseFlags(rest, verb.flags));
  } catch (e) {
    if (e instanceof UsageError) {
      // kubectl's flag error function (cmd.go FlagErrorFunc)
      p.stderr.write(`error: ${e.message}\nSee '${path} --help' for usage.\n`);
      return 1;
    }
    throw e;
  }
  try {
    return await verb.run(makeRun(p, f, path));
  } catch (e) {
    if (e instanceof UsageError) {
      p.stderr.write(`error: ${e.message}\nSee '${path} -h' for help and examples\n`);
      return 1;
    }
    if (e instanceof ConfigError) {
      p.stderr.write(`error: ${e.message}\n`);
      return 1;
    }
    const text = errorText(e);
    p.stderr.write(text.endsWith("\n") ? text : `${text}\n`);
    return 1;
  }
}

export function registerKubectl(r: CommandRegistry): void {
  r.register("kubectl", gated("kubectl", kubectl));
}

/** Levenshtein distance, case-insensitive (cobra's ld). */
function distance(a: string, b: string): number {
  const s = a.toLowerCase();
  const t = b.toLowerCase();
  let prev = Array.from({ length: t.length + 1 }, (_, j) => j);
  for (let i = 1; i <= s.length; i++) {
    const cur = [i];
    for (let j = 1; j <= t.length; j++)
      cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (s[i - 1] === t[j - 1] ? 0 : 1));
    prev = cur;
  }
  return prev[t.length];
}

/** cobra's findSuggestions: commands within distance 2, or that the typed name begins. */
function suggestions(typed: string): string {
  const near = COMMANDS.filter(
    (c) => distance(typed, c) <= 2 || c.toLowerCase().startsWith(typed.toLowerCase()),
  );
  return near.length ? `\n\nDid you mean this?\n${near.map((c) => `\t${c}\n`).join("")}` : "";
}
