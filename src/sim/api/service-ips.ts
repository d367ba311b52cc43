// ClusterIPs as kube-apiserver's allocator hands them out (pkg/registry/core/service/ipallocator
// over allocator's randomScanStrategyWithOffset): the service CIDR without its network and
// broadcast addresses, split at an offset of min(max(16, size/16), 256). A Service that asks for
// no particular address gets a random free one of the upper band, scanning forward from a random
// start and wrapping; the lower band (where k3s puts the kubernetes Service at .1 and DNS at .10)
// is used only once the upper one is full.
import type { Rng } from "../../util/rng.js";
import { ApiError } from "./status.js";

/** k3s's default service CIDR (--service-cidr). */
export const SERVICE_CIDR = "10.43.0.0/16";

function parseCidr(cidr: string): { network: number; size: number } {
  const m = /^(\d+)\.(\d+)\.(\d+)\.(\d+)\/(\d+)$/.exec(cidr);
  if (!m) throw new RangeError(`service CIDR ${cidr} is not an IPv4 CIDR such as 10.43.0.0/16`);
  const prefix = Number(m[5]);
  const ip = ((Number(m[1]) << 24) | (Number(m[2]) << 16) | (Number(m[3]) << 8) | Number(m[4])) >>> 0;
  if (prefix < 8 || prefix > 30) throw new RangeError(`service CIDR ${cidr}: the prefix must be 8 to 30`);
  const size = 2 ** (32 - prefix);
  return { network: ip - (ip % size), size };
}

const toIp = (n: number) => [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join(".");

export class ClusterIPAllocator {
  private readonly base: number;
  /** How many addresses can be handed out: the CIDR less its network and broadcast addresses. */
  private readonly max: number;
  /** Where the upper band, the one random allocation prefers, begins. */
  private readonly offset: number;

  constructor(
    private readonly rng: Rng,
    cidr = SERVICE_CIDR,
  ) {
    const { network, size } = parseCidr(cidr);
    this.base = network + 1;
    this.max = size - 2;
    this.offset = size <= 16 ? 0 : Math.min(Math.max(16, Math.floor(size / 16)), 256);
  }

  /** A free address, the used ones aside; a full range is the apiserver's internal error. */
  allocate(used: ReadonlySet<string | undefined>): string {
    const upper = this.scan(this.offset, this.max - this.offset, used);
    const ip = upper ?? (this.offset > 0 ? this.scan(0, this.offset, used) : undefined);
    if (ip === undefined)
      throw new ApiError(
        500,
        "InternalError",
        "Internal error occurred: failed to allocate a serviceIP: range is full",
      );
    return ip;
  }

  private scan(from: number, count: number, used: ReadonlySet<string | undefined>): string | undefined {
    const start = this.rng.int(count);
    for (let i = 0; i < count; i++) {
      const ip = toIp(this.base + from + ((start + i) % count));
      if (!used.has(ip)) return ip;
    }
    return undefined;
  }
}
