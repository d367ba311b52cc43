// Reading command-line flags the way the programs we allow read them (getopt/pflag): `-abc`
// clusters, a value glued (`-n5`, `-oyaml`) or in the next word, `--long=value` or
// `--long value`, and `--` ending the flags. Each caller says which flags take a value, so that a
// value is never mistaken for a flag, or the other way round.

export interface Flag {
  /** "-x" or "--long". */
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
  /** Long flags without a value; "any" accepts every other long flag as one. */
  boolLong: string[] | "any";
}

export type Parsed = { flags: Flag[]; positionals: string[] } | { error: string };

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
      } else if (spec.boolLong === "any" || spec.boolLong.includes(name)) {
        flags.push({ name: `--${name}`, ...(eq >= 0 ? { value: a.slice(eq + 1) } : {}) });
      } else return { error: `unknown flag --${name}` };
      continue;
    }
    if (a.startsWith("-") && a.length > 1) {
      for (let k = 1; k < a.length; k++) {
        const c = a[k];
        if (spec.valueShort.includes(c)) {
          let value = a.slice(k + 1).replace(/^=/, "");
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

/** The last value given for any of the names, e.g. value(flags, "-n", "--lines"). */
export function lastValue(flags: Flag[], ...names: string[]): string | undefined {
  let v: string | undefined;
  for (const f of flags) if (names.includes(f.name)) v = f.value;
  return v;
}

export const has = (flags: Flag[], ...names: string[]) => flags.some((f) => names.includes(f.name));
