// The kubectl allowlist: which commands a probe may run, checked on argv read as kubectl reads it
// (pflag, see flags.ts). Only read-only commands, nothing that never ends (watch, follow), and no
// flag that reads or writes files on this machine or changes kubectl's identity or cluster.
// Which namespaces the probe may read is the cluster's business (the probe's kubeconfig holds
// the case's ServiceAccount, bound by RBAC); the probe only defaults -n to the case's namespace.
// Every refusal says why and what is allowed instead, in one line: it goes back to the model.
import { checkExec, EXEC_ALLOWED } from "./exec-rules.js";
import { type Flag, isTrue, parsePflag } from "./flags.js";
import { flagsOf, OUTPUT_FORMATS, READ_COMMANDS, refusedWhy } from "./kubectl-flags.js";

export type Checked = { argv: string[] } | { refusal: string };

export const READ_VERBS = [
  ..."get describe logs".split(" "),
  "top pods|nodes",
  ..."events explain api-resources api-versions version".split(" "),
  "rollout status|history",
  "auth can-i|whoami",
  "exec <pod> -- <read-only command>",
];
export const ALLOWED = `allowed: kubectl ${READ_VERBS.join(", ")}`;

const WRITE = new Set(
  `delete apply patch scale edit set annotate label create replace run expose autoscale cordon uncordon
    drain taint cp debug attach port-forward proxy certificate wait kustomize diff plugin`
    .split(/\s+/)
    .filter(Boolean),
);

/** The subcommands a command may run; each must follow its command directly. */
const SUBCOMMANDS: Record<string, string[]> = {
  rollout: ["status", "history"],
  top: ["pod", "pods", "po", "node", "nodes", "no"],
  auth: ["can-i", "whoami"],
};

/**
 * Whether argv (after `kubectl`) is a read command of the allowlist, whatever its flags: a command
 * of READ_COMMANDS with a read subcommand where it takes one. A flag before the command counts as a
 * read too: the probe refuses it and says where flags go.
 */
export function isReadCommand(args: string[]): boolean {
  const i = verbIndex(args);
  const verb = args[i];
  if (verb === undefined || verb.startsWith("-")) return true;
  if (!READ_COMMANDS.includes(verb)) return false;
  return !SUBCOMMANDS[verb] || SUBCOMMANDS[verb].includes(args[i + 1] ?? "");
}

/** Why a flag is refused, or undefined when it is fine. */
function flagRefusal(f: Flag, verb: string, sub: string | undefined): string | undefined {
  const why = refusedWhy(f.name);
  if (why) return `${f.name} ${why}`;
  if (f.name === "--follow" && isTrue(f)) return "following logs never ends; use --tail=100 or --since=10m";
  if (
    (f.name === "--watch" || f.name === "--watch-only") &&
    isTrue(f) &&
    !(verb === "rollout" && sub === "status")
  )
    return "watching never ends; run the command without -w/--watch";
  if (f.name === "--watch" && isTrue(f))
    return "a probe reads the rollout's state now; wait for rollouts in the playbook (drop -w)";
  if (f.name === "--output") {
    const format = (f.value ?? "").split("=")[0];
    const use = `use -o ${OUTPUT_FORMATS.slice(0, 10).join("|")}, with templates inline (-o jsonpath='{...}')`;
    if (/-file$|^templatefile$/.test(format))
      return `-o ${format} is not allowed: templates from files read this machine's files; ${use}`;
    if (!OUTPUT_FORMATS.includes(format))
      return `-o ${format} is not an output format a probe may use; ${use}`;
  }
  return undefined;
}

/** Where the command word is: kubectl allows only -n/--namespace (and its value) before it here. */
function verbIndex(args: string[]): number {
  let i = 0;
  while (i < args.length) {
    const a = args[i];
    if (a === "-n" || a === "--namespace") i += 2;
    else if (/^-n./.test(a) || a.startsWith("--namespace=")) i += 1;
    else break;
  }
  return i;
}

export function checkKubectl(args: string[], ns: string): Checked {
  const i = verbIndex(args);
  const verb = args[i];
  if (verb === undefined) return { refusal: `no kubectl command given; ${ALLOWED}` };
  if (verb.startsWith("-")) {
    // a flag where the command should be: say precisely why when kubectl would take it
    const p = parsePflag(args.slice(i), flagsOf(""));
    const bad =
      "flags" in p ? p.flags.map((f) => refusedWhy(f.name) && `${f.name} ${refusedWhy(f.name)}`) : [];
    const why = bad.find(Boolean);
    return {
      refusal: why || "put flags after the command (kubectl get pods -o wide); only -n may come before it",
    };
  }
  if (verb === "config")
    return {
      refusal:
        "kubectl config reads and changes this machine's kubeconfig; the connection is the benchmark's",
    };
  if (WRITE.has(verb))
    return {
      refusal: `kubectl ${verb} is not read-only; probes only look (${ALLOWED}); write changes into the playbook`,
    };
  if (!READ_COMMANDS.includes(verb)) return { refusal: `kubectl ${verb} is not allowed; ${ALLOWED}` };
  // cobra finds a subcommand among the words after its command; a flag between them could make
  // it find another one than we read, so the subcommand must come right after the command
  const sub = SUBCOMMANDS[verb] ? args[i + 1] : undefined;
  if (SUBCOMMANDS[verb] && !SUBCOMMANDS[verb].includes(sub ?? ""))
    return {
      refusal:
        verb === "rollout"
          ? `kubectl rollout ${sub ?? ""} is not read-only; only rollout status and rollout history are allowed`
          : verb === "top"
            ? "use kubectl top pods or kubectl top nodes"
            : "use kubectl auth can-i <verb> <resource> or kubectl auth whoami",
    };
  const rest = [...args.slice(0, i), ...args.slice(i + (sub === undefined ? 1 : 2))];
  const parsed = parsePflag(rest, flagsOf(verb));
  if ("error" in parsed) {
    const why = parsed.flag && refusedWhy(parsed.flag);
    return {
      refusal: why ? `${parsed.flag} ${why}` : `${parsed.error} (not a flag of kubectl ${verb}; ${ALLOWED})`,
    };
  }
  for (const f of parsed.flags) {
    const why = flagRefusal(f, verb, sub);
    if (why) return { refusal: why };
  }
  const out = [...args];
  if (verb === "rollout" && sub === "status" && !parsed.flags.some((f) => f.name === "--watch"))
    // a probe reads the state now; waiting for a rollout belongs in the playbook
    out.push("--watch=false");
  if (verb === "exec") {
    const command = parsed.afterDash ?? [];
    if (command.length === 0)
      return {
        refusal: `write exec as: kubectl exec <pod> -- <command> (read-only commands: ${EXEC_ALLOWED})`,
      };
    if (parsed.positionals.length !== 1)
      return {
        refusal: `kubectl exec takes one pod (pod name, or deploy/<name>) before --, got ${parsed.positionals.length}`,
      };
    const why = checkExec(command, ns);
    if (why) return { refusal: why };
  } else if (parsed.afterDash) return { refusal: "`--` is only used with kubectl exec <pod> -- <command>" };
  const pinned = parsed.flags.some((f) => f.name === "--namespace");
  return { argv: pinned ? out : ["-n", ns, ...out] };
}
