// nslookup (BusyBox or bind-tools output) and getent hosts, answering from the cluster's DNS
// (workloads/topology/names.ts: CoreDNS's records, the search list, the pod's egress to CoreDNS).
//
// BusyBox 1.35's nslookup (networking/nslookup.c, FEATURE_NSLOOKUP_BIG) is no resolver: for a
// name without a dot it sends an A query for the name under each `search` domain of
// /etc/resolv.conf, then an AAAA query for each (add_query_with_search), never the bare name and
// whatever ndots says; a dotted name is sent as it is. Each reply is printed as it comes: an
// answer's records, nothing for an empty answer (an AAAA for an IPv4 Service), "** server can't
// find <name>: NXDOMAIN" for an error, each followed by an empty line; "Non-authoritative
// answer:" heads a reply CoreDNS forwarded. Any error reply makes the exit status 1, so in a pod
// a short name fails even when it resolves: the other search domains answer NXDOMAIN.

import type { CommandRegistry, Proc } from "../userland/process.js";
import { CLUSTER_DNS, CLUSTER_DOMAIN } from "../userland/system-files.js";
import { gated, toolImpl } from "../userland/toolbox.js";
import { lookup, resolveFqdn, resolveNow } from "../workloads/topology/names.js";
import { parseArgs } from "./args.js";

async function nslookup(args: string[], p: Proc): Promise<number> {
  const { rest } = parseArgs(args);
  const name = rest[0];
  const bind = toolImpl(p, "nslookup") === "bind";
  if (!name) return p.fail("usage: nslookup HOST [DNS_SERVER]");
  const r = await lookup(p, name);
  if ("error" in r && r.error === "timeout") {
    p.out(";; connection timed out; no servers could be reached\n\n");
    return 1;
  }
  if (!bind) return busyboxReplies(p, name);
  p.out(`Server:\t\t${CLUSTER_DNS}\nAddress:\t${CLUSTER_DNS}#53\n\n`);
  if ("error" in r) {
    p.out(`** server can't find ${name}: NXDOMAIN\n\n`);
    return 1;
  }
  for (const ip of r.ips) p.out(`Name:\t${r.fqdn}\nAddress: ${ip}\n`);
  p.out("\n");
  return 0;
}

/** The `search` domains of the container's /etc/resolv.conf, as BusyBox's parse_resolvconf reads them. */
function searchDomains(p: Proc): string[] {
  let conf = "";
  try {
    conf = String(p.fs.read("/etc/resolv.conf"));
  } catch {
    return [];
  }
  const line = conf.split("\n").find((l) => /^(search|domain)\s/.test(l));
  return line ? line.trim().split(/\s+/).slice(1) : [];
}

/** BusyBox's queries (A under each search domain, then AAAA) and the replies it prints. */
function busyboxReplies(p: Proc, name: string): number {
  const search = name.includes(".") ? [] : searchDomains(p);
  const names = search.length ? search.map((d) => `${name}.${d}`) : [name];
  p.out(`Server:\t\t${CLUSTER_DNS}\nAddress:\t${CLUSTER_DNS}:53\n\n`);
  let code = 0;
  for (const type of ["A", "AAAA"])
    for (const q of names) {
      const ips = resolveFqdn(p, q);
      if (!ips) {
        p.out(`** server can't find ${q}: NXDOMAIN\n\n`);
        code = 1;
        continue;
      }
      // CoreDNS answers the cluster's zone itself; anything else it forwarded
      const local = q.replace(/\.$/, "").endsWith(CLUSTER_DOMAIN);
      if (!local) p.out("Non-authoritative answer:\n");
      // the cluster has no IPv6: an AAAA query gets an empty answer
      if (type === "A") for (const ip of ips) p.out(`Name:\t${q}\nAddress: ${ip}\n`);
      p.out("\n");
    }
  return code;
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
