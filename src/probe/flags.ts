// Reading command-line flags the way the programs we allow read them, so that what we check is
// what runs. Two readers: getopt's (the tools in a container, and the filters after a pipe) and
// pflag's (kubectl). Each caller says which flags exist and which take a value, so that a value
// is never mistaken for a flag, or the other way round; a flag the caller did not declare is an
// error, never let through.

export interface Flag {
  /** "-x" or "--long" for getopt; always the canonical "--long" for pflag. */
  name: string;
  value?: string;
}

export interface FlagSpec {
  /** Short flags that take a value, e.g. "nolc". */
  valueShort: string;
  /** Short flags without a value. */
  boolShort: string;
  /** Long flags (without "--") that take a value. */
  valueLong: string[];
  /** Long flags without a value. */
  boolLong: string[];
}

export type Parsed = { flags: Flag[]; positionals: string[] } | { error: string };

/**
 * getopt(3)/getopt_long: `-abc` clusters, a short value glued (`-n5`, `-oyaml`, and `-o=x` is the
 * value "=x") or in the next word, `--long=value` or `--long value`, and `--` ending the flags.
 */
export function parseFlags(args: string[], spec: FlagSpec): Parsed {
  const flags: Flag[] = [];
  const positionals: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === "--") {
      positionals.push(...args.slice(i + 1));
      break;
    }
    if (a.startsWith("--")) {
      const eq = a.indexOf("=");
      const name = eq < 0 ? a.slice(2) : a.slice(2, eq);
      if (spec.valueLong.includes(name)) {
        if (eq >= 0) flags.push({ name: `--${name}`, value: a.slice(eq + 1) });
        else if (i + 1 < args.length) flags.push({ name: `--${name}`, value: args[++i] });
        else return { error: `--${name} needs a value` };
      } else if (spec.boolLong.includes(name)) {
        if (eq >= 0) return { error: `--${name} takes no value` };
        flags.push({ name: `--${name}` });
      } else return { error: `unknown flag --${name}` };
      continue;
    }
    if (a.startsWith("-") && a.length > 1) {
      for (let k = 1; k < a.length; k++) {
        const c = a[k];
        if (spec.valueShort.includes(c)) {
          let value = a.slice(k + 1);
          if (!value) {
            if (i + 1 >= args.length) return { error: `-${c} needs a value` };
            value = args[++i];
          }
          flags.push({ name: `-${c}`, value });
          break;
        }
        if (spec.boolShort.includes(c)) flags.push({ name: `-${c}` });
        else return { error: `unknown flag -${c}` };
      }
      continue;
    }
    positionals.push(a);
  }
  return { flags, positionals };
}

/** A flag as pflag declares it (github.com/spf13/pflag, flag.go). */
export interface PflagDef {
  long: string;
  short?: string;
  /** A bool flag (NoOptDefVal "true"): `--x` alone is true, `--x=false` sets it, never the next word. */
  bool?: boolean;
}

export type PflagParsed =
  | { flags: Flag[]; positionals: string[]; afterDash?: string[] }
  | { error: string; flag?: string };

/**
 * kubectl's names for a flag: cobra's global normalisation (cliflag.WordSepNormalizeFunc, set in
 * kubectl's pkg/cmd/cmd.go) turns every `_` into `-`, so `--all_namespaces` is `--all-namespaces`.
 */
export const wordSep = (name: string) => name.replaceAll("_", "-");

/**
 * pflag's parseArgs, parseLongArg and parseSingleShortArg (spf13/pflag flag.go), for kubectl:
 * exact names after normalisation (pflag has no abbreviations), `--x=v`, `--x v`, bool flags that
 * never take the next word, short clusters where a bool lets the next letter be a flag and any
 * other flag takes the rest (`-nfoo`) or `-n=foo`, flags anywhere between the arguments, and `--`
 * ending them (what follows it comes back as afterDash). Flags come back under their canonical
 * `--long` name.
 */
export function parsePflag(args: string[], defs: PflagDef[]): PflagParsed {
  const byLong = new Map(defs.map((d) => [d.long, d]));
  const byShort = new Map(defs.filter((d) => d.short).map((d) => [d.short as string, d]));
  const flags: Flag[] = [];
  const positionals: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a.length < 2 || a[0] !== "-") {
      positionals.push(a);
      continue;
    }
    if (a === "--") return { flags, positionals, afterDash: args.slice(i + 1) };
    if (a[1] === "-") {
      const body = a.slice(2);
      if (body[0] === "-" || body[0] === "=") return { error: `bad flag syntax: ${a}` };
      const eq = body.indexOf("=");
      const name = wordSep(eq < 0 ? body : body.slice(0, eq));
      const def = byLong.get(name);
      if (!def) return { error: `unknown flag: --${name}`, flag: `--${name}` };
      if (eq >= 0) flags.push({ name: `--${name}`, value: body.slice(eq + 1) });
      else if (def.bool) flags.push({ name: `--${name}`, value: "true" });
      else if (i + 1 < args.length) flags.push({ name: `--${name}`, value: args[++i] });
      else return { error: `flag needs an argument: --${name}`, flag: `--${name}` };
      continue;
    }
    let rest = a.slice(1);
    while (rest.length) {
      const c = rest[0];
      const def = byShort.get(c);
      if (!def) return { error: `unknown shorthand flag: '${c}' in ${a}`, flag: `-${c}` };
      const name = `--${def.long}`;
      if (rest.length > 2 && rest[1] === "=") {
        flags.push({ name, value: rest.slice(2) });
        rest = "";
      } else if (def.bool) {
        flags.push({ name, value: "true" });
        rest = rest.slice(1);
      } else if (rest.length > 1) {
        flags.push({ name, value: rest.slice(1) });
        rest = "";
      } else if (i + 1 < args.length) {
        flags.push({ name, value: args[++i] });
        rest = "";
      } else return { error: `flag needs an argument: '${c}' in ${a}`, flag: name };
    }
  }
  return { flags, positionals };
}

/** The last value given for any of the names, e.g. lastValue(flags, "-n", "--lines"). */
export function lastValue(flags: Flag[], ...names: string[]): string | undefined {
  let v: string | undefined;
  for (const f of flags) if (names.includes(f.name)) v = f.value;
  return v;
}

export const has = (flags: Flag[], ...names: string[]) => flags.some((f) => names.includes(f.name));

/** A pflag bool's value as strconv.ParseBool reads it (what kubectl will do with it). */
export const isTrue = (f: Flag | undefined) =>
  f !== undefined && ["1", "t", "T", "TRUE", "true", "True"].includes(f.value ?? "true");
