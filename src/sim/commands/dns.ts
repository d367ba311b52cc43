// nslookup (BusyBox or bind-tools output) and getent hosts, answering from the cluster's DNS
// (workloads/topology/names.ts: CoreDNS's records, the search list, the pod's egress to CoreDNS).

import type { CommandRegistry, Proc } from "../userland/process.js";
import { CLUSTER_DNS } from "../userland/system-files.js";
import { gated, toolImpl } from "../userland/toolbox.js";
import { lookup, resolveNow } from "../workloads/topology/names.js";
import { parseArgs } from "./args.js";

async function nslookup(args: string[], p: Proc): Promise<number> {
  const { rest } = parseArgs(args);
  const name = rest[0];
  const bind = toolImpl(p, "nslookup") === "bind";
  const sep = bind ? "#" : ":";
  if (!name) return p.fail("usage: nslookup HOST [DNS_SERVER]");
  const r = await lookup(p, name);
  if ("error" in r && r.error === "timeout") {
    p.out(
      bind
        ? ";; connection timed out; no servers could be reached\n\n"
        : `;; connection timed out; no servers could be reached\n\n`,
    );
    return 1;
  }
  p.out(`Server:\t\t${CLUSTER_DNS}\nAddress:\t${CLUSTER_DNS}${sep}53\n\n`);
  if ("error" in r) {
    p.out(`** server can't find ${name}: NXDOMAIN\n\n`);
    if (!bind) p.out(`** server can't find ${name}: NXDOMAIN\n\n`);
    return 1;
  }
  for (const ip of r.ips) p.out(`Name:\t${r.fqdn}\nAddress: ${ip}\n`);
  p.out("\n");
  return 0;
}

function getent(args: string[], p: Proc): number {
  const [db, ...keys] = args;
  if (db !== "hosts" && db !== "ahosts" && db !== "ahostsv4")
    return p.fail(`Unknown database: ${db ?? ""}`, 1);
  let code = 0;
  for (const k of keys) {
    const r = resolveNow(p, k);
    if ("error" in r) code = 2;
    else if (db === "hosts") p.out(`${r.ips[0].padEnd(15)} ${r.fqdn}\n`);
    else
      for (const t of ["STREAM", "DGRAM", "RAW"])
        p.out(`${r.ips[0].padEnd(15)} ${t}${t === "STREAM" ? ` ${r.fqdn}` : ""}\n`);
  }
  return keys.length ? code : 1;
}

export function registerDns(r: CommandRegistry): void {
  r.register("nslookup", gated("nslookup", nslookup)).register("getent", gated("getent", getent));
}
