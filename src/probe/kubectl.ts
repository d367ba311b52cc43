// The kubectl allowlist: which commands a probe may run, checked on argv. Only read-only verbs,
// only the target namespace (pinned with -n when absent), no connection overrides, nothing that
// never ends (watch, follow) or reads and writes local files. Every refusal says why and what is
// allowed instead, in one line, because it goes back to the model as an observation.
import { checkExec, EXEC_ALLOWED } from "./exec-rules.js";
import { type Flag, parseFlags } from "./flags.js";

export type Checked = { argv: string[] } | { refusal: string };

export const READ_VERBS = [
  ..."get describe logs top events explain api-resources api-versions version".split(" "),
  "rollout status|history",
  "exec <pod> -- <read-only command>",
];
export const ALLOWED = `allowed: kubectl ${READ_VERBS.join(", ")}`;

const words = (s: string) => s.split(/\s+/).filter(Boolean);
const READ = new Set(
  words("get describe logs top events explain api-resources api-versions version rollout exec"),
);
const WRITE = new Set(
  words(`delete apply patch scale edit set annotate label create replace run expose autoscale cordon uncordon
    drain taint cp debug attach port-forward proxy certificate wait kustomize diff`),
);

const SPEC = {
  valueShort: "nolcLsfkv",
  boolShort: "AwitqpRh",
  valueLong: words(`namespace output selector field-selector container tail since since-time sort-by template
    label-columns request-timeout revision kubeconfig context server token cluster user as as-group as-uid
    certificate-authority client-certificate client-key username password tls-server-name filename kustomize
    chunk-size limit-bytes max-log-requests pod-running-timeout v vmodule log-file log-dir profile
    profile-output cache-dir raw subresource api-group verbs for types api-version timeout`),
  boolLong: "any" as const,
};

const CONNECTION = words(
  "--kubeconfig --context --server -s --token --cluster --user --as --as-group --as-uid",
);
const CREDENTIALS = words(`--certificate-authority --client-certificate --client-key --username --password
  --tls-server-name --insecure-skip-tls-verify`);
const WRITES_FILES = words(
  "--profile --profile-output --log-file --log-dir --cache-dir --log_file --log_dir",
);
const isTrue = (f: Flag) => f.value === undefined || f.value !== "false";

/** Why a flag is refused, or undefined when it is fine. */
function flagRefusal(f: Flag, verb: string, ns: string): string | undefined {
  const n = f.name;
  if ((n === "-n" || n === "--namespace") && f.value !== ns)
    return `other namespaces are out of reach: this probe is pinned to namespace ${ns} (drop -n, or use -n ${ns})`;
  if ((n === "-A" || n === "--all-namespaces") && isTrue(f))
    return `-A/--all-namespaces is out of reach: this probe is pinned to namespace ${ns}`;
  if (CONNECTION.includes(n) || CREDENTIALS.includes(n))
    return `${n} is not allowed: the cluster connection is fixed by the benchmark`;
  if (n === "--raw")
    return "--raw API paths are not allowed; name resources instead (kubectl get <kind> <name>)";
  if (verb === "logs" && (n === "-f" || n === "--follow") && isTrue(f))
    return "following logs never ends; use --tail=100 or --since=10m";
  if (n === "-f" || n === "--filename" || n === "-k" || n === "--kustomize")
    return `${n} reads local files; name the resources instead (kubectl ${verb} <kind> <name>)`;
  if ((n === "-w" || n === "--watch" || n === "--watch-only") && isTrue(f))
    return "watching never ends; run the command without -w/--watch";
  if (WRITES_FILES.includes(n)) return `${n} writes files on this machine; drop it`;
  if ((n === "-o" || n === "--output") && /-file\b/.test(f.value ?? ""))
    return "output templates from files are not allowed; give the template inline (-o jsonpath='{...}')";
  return undefined;
}

export function checkKubectl(args: string[], ns: string): Checked {
  const dash = args.indexOf("--");
  const head = dash < 0 ? args : args.slice(0, dash);
  const command = dash < 0 ? [] : args.slice(dash + 1);
  // Only -n may come before the verb: then the verb is the first word that is not -n or its
  // value, exactly as kubectl finds it (an unknown flag there could swallow the real verb).
  let i = 0;
  while (i < head.length && head[i].startsWith("-")) {
    const a = head[i];
    if (a === "-n" || a === "--namespace") i += 2;
    else if (/^(-n=?.+|--namespace=.*)$/.test(a)) i += 1;
    else break;
  }
  // a flag where the verb should be: check every word as a flag, for the precise refusal
  const verb = head[i]?.startsWith("-") ? undefined : head[i];
  // logs -f is --follow (no value); elsewhere -f is --filename
  const spec =
    verb === "logs"
      ? { ...SPEC, valueShort: SPEC.valueShort.replace("f", ""), boolShort: `${SPEC.boolShort}f` }
      : SPEC;
  const parsed = parseFlags(verb === undefined ? head : [...head.slice(0, i), ...head.slice(i + 1)], spec);
  if ("error" in parsed)
    return { refusal: `${parsed.error} (the probe knows kubectl's usual flags; ${ALLOWED})` };
  for (const f of parsed.flags) {
    const why = flagRefusal(f, verb ?? "", ns);
    if (why) return { refusal: why };
  }
  if (verb === undefined && i < head.length)
    return { refusal: `put flags after the command (kubectl get pods -o wide); only -n may come before it` };
  if (verb === undefined) return { refusal: `no kubectl command given; ${ALLOWED}` };
  if (WRITE.has(verb))
    return {
      refusal: `kubectl ${verb} is not read-only; probes only look (${ALLOWED}); write changes into the playbook`,
    };
  if (!READ.has(verb)) return { refusal: `kubectl ${verb} is not allowed; ${ALLOWED}` };
  const rest = head.slice(i + 1);
  const out = [...args];
  if (verb === "rollout") {
    // the subcommand must follow the verb directly, so no flag can change which one kubectl runs
    if (rest[0] !== "status" && rest[0] !== "history")
      return {
        refusal: `kubectl rollout ${rest[0] ?? ""} is not read-only; only rollout status and rollout history are allowed`,
      };
    // a probe reads the state now; waiting for a rollout belongs in the playbook
    if (rest[0] === "status" && !parsed.flags.some((f) => f.name === "-w" || f.name === "--watch"))
      out.push("--watch=false");
  }
  if (verb === "top" && !["pod", "pods", "po", "node", "nodes", "no"].includes(rest[0] ?? ""))
    return { refusal: "use kubectl top pods or kubectl top nodes" };
  if (verb === "exec") {
    if (dash < 0 || command.length === 0)
      return {
        refusal: `write exec as: kubectl exec <pod> -- <command> (read-only commands: ${EXEC_ALLOWED})`,
      };
    if (parsed.positionals.length !== 1)
      return {
        refusal: `kubectl exec takes one pod (pod name, or deploy/<name>) before --, got ${parsed.positionals.length}`,
      };
    const why = checkExec(command, ns);
    if (why) return { refusal: why };
  } else if (dash >= 0) return { refusal: "`--` is only used with kubectl exec <pod> -- <command>" };
  const pinned = parsed.flags.some((f) => f.name === "-n" || f.name === "--namespace");
  return { argv: pinned ? out : ["-n", ns, ...out] };
}
