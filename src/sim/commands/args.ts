// Option parsing for the commands, getopt style: clustered short flags (-rf), flags that take a
// value (-n 5, -n5), long options (--all, --lines=5) and "--" to end the options.

export interface Parsed {
  flags: Set<string>;
  values: Map<string, string>;
  rest: string[];
}

/** `valued` lists the short and long options that take a value, e.g. ["n", "lines"]. */
export function parseArgs(args: string[], valued: string[] = []): Parsed {
  const flags = new Set<string>();
  const values = new Map<string, string>();
  const rest: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === "--") {
      rest.push(...args.slice(i + 1));
      break;
    }
    if (a.startsWith("--")) {
      const eq = a.indexOf("=");
      const name = eq > 0 ? a.slice(2, eq) : a.slice(2);
      if (eq > 0) values.set(name, a.slice(eq + 1));
      else if (valued.includes(name) && i + 1 < args.length) values.set(name, args[++i]);
      else flags.add(name);
    } else if (a.startsWith("-") && a.length > 1) {
      for (let j = 1; j < a.length; j++) {
        const c = a[j];
        if (valued.includes(c)) {
          const v = a.slice(j + 1) || args[++i];
          if (v !== undefined) values.set(c, v);
          break;
        }
        flags.add(c);
      }
    } else rest.push(a);
  }
  return { flags, values, rest };
}
