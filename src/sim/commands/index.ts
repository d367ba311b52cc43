// The commands a container has. Issue-specific ones (ping, dd, ps, kill, wget, curl, nslookup,
// top, mount, tc) register here too, each a (args, proc) => exit code function in its own file. The probe
// commands exist only in the images whose toolbox lists them (src/sim/stages/toolboxes.yaml);
// the shells are wrapped so a command they run knows it runs in a shell (its "not found" text).

import { CommandRegistry } from "../userland/process.js";
import { asShell } from "../userland/toolbox.js";
import { registerBasic } from "./basic.js";
import { registerDd } from "./dd.js";
import { registerDf } from "./df.js";
import { registerDns } from "./dns.js";
import { registerFiles } from "./files.js";
import { registerHttp } from "./http.js";
import { registerKill } from "./kill.js";
import { registerKubectl } from "./kubectl/main.js";
import { registerMount } from "./mount.js";
import { registerNc } from "./nc.js";
import { registerNet } from "./net.js";
import { registerPing } from "./ping.js";
import { registerPs } from "./ps.js";
import { registerPython } from "./python.js";
import { registerRedisCli } from "./redis-cli.js";
import { registerShells } from "./sh.js";
import { registerTc } from "./tc.js";
import { registerTest } from "./test.js";
import { registerText } from "./text.js";
import { registerTime } from "./time.js";
import { registerTop } from "./top.js";
import { registerTr } from "./tr.js";

export function defaultCommands(): CommandRegistry {
  const r = new CommandRegistry();
  registerBasic(r);
  registerTest(r);
  registerFiles(r);
  registerText(r);
  registerTr(r);
  registerDf(r);
  registerShells(r);
  for (const sh of ["sh", "dash", "ash", "bash"]) {
    const fn = r.get(sh);
    if (fn) r.register(sh, asShell(fn));
  }
  registerPing(r);
  registerDd(r);
  registerPs(r);
  registerKill(r);
  registerTop(r);
  registerHttp(r);
  registerDns(r);
  registerNet(r);
  registerTime(r);
  registerMount(r);
  registerTc(r);
  registerNc(r);
  registerRedisCli(r);
  registerPython(r);
  registerKubectl(r);
  return r;
}
