// kubectl's flags, as kubectl v1.32 declares them (`kubectl options` and `kubectl <verb> --help`;
// sources: kubernetes/cli-runtime pkg/genericclioptions/config_flags.go AddFlags for the
// connection flags, kubectl pkg/cmd/profiling.go for --profile*, pkg/kuberc/kuberc.go for
// --kuberc, klog for the logging flags). A probe may use a command's own read-only flags and a few
// harmless global ones; a flag that reads or writes a file on this machine, or changes who
// kubectl is or which cluster it talks to, is refused by name with the reason. Any other flag is
// unknown to kubectl too, and refused.
import type { PflagDef } from "./flags.js";

const b = (long: string, short?: string): PflagDef => ({ long, bool: true, ...(short ? { short } : {}) });
const v = (long: string, short?: string): PflagDef => ({ long, ...(short ? { short } : {}) });

const IDENTITY = "changes who kubectl is or which cluster it talks to; the benchmark fixes the connection";
const LOCAL_FILE = "reads a file on this machine; name the resources instead (kubectl get <kind> <name>)";
const WRITES = "writes files on this machine; drop it";

/** Flags refused whatever the command, with why; declared so a value is read as kubectl reads it. */
export const REFUSED: [PflagDef, string][] = [
  ...["kubeconfig", "context", "cluster", "user", "token", "as", "as-group", "as-uid", "as-user-extra"].map(
    (n): [PflagDef, string] => [v(n), IDENTITY],
  ),
  [v("server", "s"), IDENTITY],
  ...[
    "username",
    "password",
    "tls-server-name",
    "certificate-authority",
    "client-certificate",
    "client-key",
  ].map((n): [PflagDef, string] => [v(n), IDENTITY]),
  [b("insecure-skip-tls-verify"), IDENTITY],
  [b("insecure-skip-tls-verify-backend"), "turns off checking the kubelet's certificate; drop it"],
  [v("kuberc"), "reads a preferences file (aliases, defaults) on this machine; drop it"],
  [v("cache-dir"), WRITES],
  [v("profile"), WRITES],
  [v("profile-output"), WRITES],
  // klog's flags: the file ones are gone from recent kubectl, refused for older ones
  [v("log-file"), WRITES],
  [v("log-dir"), WRITES],
  [v("log-file-max-size"), WRITES],
  [b("alsologtostderr"), WRITES],
  [b("logtostderr"), WRITES],
  [v("v", "v"), "verbose logging prints the connection's requests; drop it"],
  [v("vmodule"), "verbose logging prints the connection's requests; drop it"],
  [v("filename", "f"), LOCAL_FILE],
  [v("kustomize", "k"), LOCAL_FILE],
  [v("raw"), "raw API paths are not allowed; name resources instead (kubectl get <kind> <name>)"],
];

/** Global flags a probe may use. */
const GLOBAL: PflagDef[] = [
  v("namespace", "n"),
  v("request-timeout"),
  v("log-flush-frequency"),
  b("match-server-version"),
  b("warnings-as-errors"),
  b("disable-compression"),
  b("help", "h"),
];

const OUTPUT = [v("output", "o"), v("template"), b("allow-missing-template-keys"), b("show-managed-fields")];
const SELECT = [v("selector", "l"), v("field-selector"), b("all-namespaces", "A"), v("chunk-size")];

/** Each read-only command's own flags (from `kubectl <command> --help`). */
const COMMAND: Record<string, PflagDef[]> = {
  get: [
    ...OUTPUT,
    ...SELECT,
    ...[b("ignore-not-found"), v("label-columns", "L"), b("no-headers"), b("output-watch-events")],
    ...[b("recursive", "R"), b("server-print"), b("show-kind"), b("show-labels"), v("sort-by")],
    ...[v("subresource"), b("watch", "w"), b("watch-only")],
  ],
  describe: [...SELECT, b("show-events"), b("recursive", "R")],
  // -f is --follow here, not --filename
  logs: [
    ...[b("all-containers"), b("all-pods"), v("container", "c"), b("follow", "f"), b("ignore-errors")],
    ...[v("limit-bytes"), v("max-log-requests"), v("pod-running-timeout"), b("prefix")],
    ...[b("previous", "p"), v("selector", "l"), v("since"), v("since-time"), v("tail"), b("timestamps")],
  ],
  top: [
    ...SELECT,
    ...[
      b("containers"),
      b("no-headers"),
      v("sort-by"),
      b("sum"),
      b("use-protocol-buffers"),
      b("show-capacity"),
    ],
  ],
  events: [...OUTPUT, ...SELECT, v("for"), b("no-headers"), v("types"), b("watch", "w")],
  explain: [v("api-version"), v("output", "o"), b("recursive")],
  "api-resources": [
    ...[v("api-group"), b("cached"), v("categories"), b("namespaced"), b("no-headers"), v("output", "o")],
    ...[v("sort-by"), v("verbs")],
  ],
  "api-versions": [],
  version: [b("client"), v("output", "o")],
  rollout: [...OUTPUT, b("recursive", "R"), v("revision"), v("selector", "l"), v("timeout"), b("watch", "w")],
  exec: [v("container", "c"), v("pod-running-timeout"), b("quiet", "q"), b("stdin", "i"), b("tty", "t")],
  auth: [
    b("all-namespaces", "A"),
    b("list"),
    b("no-headers"),
    b("quiet", "q"),
    v("subresource"),
    v("output", "o"),
  ],
};

export const READ_COMMANDS = Object.keys(COMMAND);

/** The flags kubectl knows for a command: its own, the allowed global ones, the refused ones. */
export function flagsOf(verb: string): PflagDef[] {
  const own = COMMAND[verb] ?? [];
  // a command's own flag wins over a refused global one of the same letter (logs -f is --follow)
  const shorts = new Set(own.map((d) => d.short).filter(Boolean));
  const longs = new Set(own.map((d) => d.long));
  const refused = REFUSED.map(([d]) => d)
    .filter((d) => !longs.has(d.long))
    .map((d) => (d.short && shorts.has(d.short) ? { long: d.long, ...(d.bool ? { bool: true } : {}) } : d));
  return [...own, ...GLOBAL, ...refused];
}

export const refusedWhy = (long: string) => REFUSED.find(([d]) => `--${d.long}` === long)?.[1];

/**
 * Output formats kubectl prints without reading a file (cli-runtime printers: json/yaml, name,
 * jsonpath, go-template, custom-columns; `-file` variants and templatefile read the template
 * from a path, which is how `-o templatefile=/proc/self/environ` leaked the environment).
 */
export const OUTPUT_FORMATS = [
  ..."json yaml kyaml wide name jsonpath jsonpath-as-json go-template template custom-columns".split(" "),
  ..."plaintext plaintext-openapiv2".split(" "),
];
