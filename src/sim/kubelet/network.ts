// Pod IPs from each node's pod CIDR (10.42.<node>.0/24, as k3s's host-local IPAM hands them
// out): sequential, skipping addresses in use, wrapping around at the end of the range.

import type { Node } from "../core/objects.js";

interface Range {
  prefix: string;
  next: number;
  used: Set<number>;
}

const FIRST = 2; // .1 is the node's cni0 bridge
const LAST = 254;

export class PodNetwork {
  private readonly ranges = new Map<string, Range>();

  private range(node: Node): Range {
    const name = node.metadata.name!;
    let r = this.ranges.get(name);
    if (!r) {
      const cidr = node.spec?.podCIDR ?? `10.42.${this.ranges.size}.0/24`;
      r = { prefix: cidr.replace(/\.\d+\/\d+$/, "."), next: FIRST, used: new Set() };
      this.ranges.set(name, r);
    }
    return r;
  }

  allocate(node: Node): string {
    const r = this.range(node);
    for (let i = 0; i <= LAST - FIRST; i++) {
      const n = r.next;
      r.next = n >= LAST ? FIRST : n + 1;
      if (!r.used.has(n)) {
        r.used.add(n);
        return r.prefix + n;
      }
    }
    throw new Error(`no free pod IP left on node ${node.metadata.name}`);
  }

  release(nodeName: string, ip: string | undefined): void {
    const r = this.ranges.get(nodeName);
    if (r && ip?.startsWith(r.prefix)) r.used.delete(Number(ip.slice(r.prefix.length)));
  }
}
