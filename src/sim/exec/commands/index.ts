// The commands a container has. Issue-specific ones (ping, dd, ps, kill, wget, curl, nslookup,
// top) register here too, each a (args, proc) => exit code function in its own file.
import { CommandRegistry } from "../process.js";
import { registerBasic } from "./basic.js";
import { registerDf } from "./df.js";
import { registerFiles } from "./files.js";
import { registerShells } from "./sh.js";
import { registerTest } from "./test.js";
import { registerText } from "./text.js";

export function defaultCommands(): CommandRegistry {
  const r = new CommandRegistry();
  registerBasic(r);
  registerTest(r);
  registerFiles(r);
  registerText(r);
  registerDf(r);
  registerShells(r);
  return r;
}
