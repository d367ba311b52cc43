// kubectl's command line as cobra and pflag read it: flags anywhere among the arguments,
// `--name=value`, `--name value`, `-n value`, `-nvalue`, a bool flag taking `--x=false`, `--`
// ending the flags. An unknown flag fails as cobra words it (`error: unknown flag: --x`,
// `error: unknown shorthand flag: 'x' in -x`), followed by `See 'kubectl VERB --help' for usage.`
// (k8s.io/kubectl/pkg/cmd/util/helpers.go, spf13/pflag flag.go).

/** strings: a StringSlice (comma-separated, repeatable); array: a StringArray (repeatable, no split). */
export type FlagType = "bool" | "string" | "strings" | "array";

export interface FlagSpec {
  type: FlagType;
  short?: string;
}

export type FlagTable = Record<string, FlagSpec>;

/** Flags every kubectl command takes (kubectl's persistent flags, those a script uses). */
export const GLOBAL: FlagTable = {
  namespace: { type: "string", short: "n" },
  kubeconfig: { type: "string" },
  context: { type: "string" },
  cluster: { type: "string" },
  user: { type: "string" },
  server: { type: "string", short: "s" },
  token: { type: "string" },
  "request-timeout": { type: "string" },
  "insecure-skip-tls-verify": { type: "bool" },
  "certificate-authority": { type: "string" },
  v: { type: "string", short: "v" },
  "log-flush-frequency": { type: "string" },
  as: { type: "string" },
  "as-group": { type: "strings" },
  "cache-dir": { type: "string" },
  "match-server-version": { type: "bool" },
  warnings: { type: "bool" },
  "disable-compression": { type: "bool" },
};

export class UsageError extends Error {
  readonly code = "KUBECTL_USAGE";
}

export interface ParsedFlags {
  values: Map<string, string[]>;
  args: string[];
  /** Arguments after `--` (kubectl exec, create job -- cmd). */
  dashed?: string[];
}

/** Parse `argv` against the verb's flags and the global ones. */
export function parseFlags(argv: string[], own: FlagTable): ParsedFlags {
  const table: FlagTable = { ...GLOBAL, ...own };
  const shorts = new Map<string, string>();
  for (const [name, s] of Object.entries(table)) if (s.short) shorts.set(s.short, name);
  const values = new Map<string, string[]>();
  const args: string[] = [];
  const put = (name: string, v: string) => {
    const spec = table[name];
    const many = spec.type === "strings" || spec.type === "array";
    const list = many ? (values.get(name) ?? []) : [];
    if (spec.type === "strings") list.push(...(v === "" ? [""] : v.split(",")));
    else list.push(v);
    values.set(name, list);
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--") return { values, args, dashed: argv.slice(i + 1) };
    if (a.startsWith("--")) {
      const eq = a.indexOf("=");
      const name = eq > 0 ? a.slice(2, eq) : a.slice(2);
      const spec = table[name];
      if (!spec) throw new UsageError(`unknown flag: --${name}`);
      if (eq > 0) put(name, a.slice(eq + 1));
      else if (spec.type === "bool") put(name, "true");
      else if (i + 1 < argv.length) put(name, argv[++i]);
      else throw new UsageError(`flag needs an argument: --${name}`);
    } else if (a.startsWith("-") && a.length > 1) {
      for (let j = 1; j < a.length; j++) {
        const c = a[j];
        const name = shorts.get(c);
        if (!name) throw new UsageError(`unknown shorthand flag: '${c}' in ${a}`);
        const spec = table[name];
        if (spec.type === "bool") {
          if (a[j + 1] === "=") {
            put(name, a.slice(j + 2));
            break;
          }
          put(name, "true");
          continue;
        }
        const rest = a.slice(j + 1).replace(/^=/, "");
        if (rest) put(name, rest);
        else if (i + 1 < argv.length) put(name, argv[++i]);
        else throw new UsageError(`flag needs an argument: '${c}' in ${a}`);
        break;
      }
    } else args.push(a);
  }
  return { values, args };
}

/** Typed reads of parsed flags. */
export class Flags {
  constructor(readonly parsed: ParsedFlags) {}
  get args() {
    return this.parsed.args;
  }
  str(name: string): string | undefined {
    const v = this.parsed.values.get(name);
    return v?.[v.length - 1];
  }
  all(name: string): string[] {
    return this.parsed.values.get(name) ?? [];
  }
  bool(name: string, dflt = false): boolean {
    const v = this.str(name);
    if (v === undefined) return dflt;
    if (["1", "t", "T", "true", "TRUE", "True"].includes(v)) return true;
    if (["0", "f", "F", "false", "FALSE", "False"].includes(v)) return false;
    throw new UsageError(
      `invalid argument "${v}" for "--${name}" flag: strconv.ParseBool: parsing "${v}": invalid syntax`,
    );
  }
  has(name: string): boolean {
    return this.parsed.values.has(name);
  }
}
