// The run's options as commander flags, for `run` and `run-all`: each one of runner/options.ts's
// RUN_OPTIONS (flag, help, parser, default), and commander's values read back into a RunConfig.
import { type Command, Option } from "commander";
import { type RunConfig, type RunKey, resolveConfig, withDefaults } from "../runner/config.js";
import { RUN_OPTIONS, type RunOption } from "../runner/options.js";

/** The option as commander declares it; its attributeName() is the key of commander's values. */
function commanderOption(key: RunKey): Option {
  const o: RunOption = RUN_OPTIONS[key];
  const opt = new Option(o.flags, o.help);
  if (o.parse) opt.argParser(o.parse);
  // a default --help does not print is applied with the others, by withDefaults
  if (o.default !== undefined && o.showDefault !== false) opt.default(o.default);
  return opt;
}

const KEYS = Object.keys(RUN_OPTIONS) as RunKey[];

export function addRunOptions(cmd: Command, skip: RunKey[] = []): Command {
  for (const key of KEYS) if (!skip.includes(key)) cmd.addOption(commanderOption(key));
  return cmd;
}

/** Commander's values (keyed by its camelCase names, --remediate-method as remediateMethod) → RunConfig. */
export function toRunConfig(values: Record<string, unknown>): RunConfig {
  const given = Object.fromEntries(KEYS.map((k) => [k, values[commanderOption(k).attributeName()]]));
  return resolveConfig(withDefaults(given));
}
