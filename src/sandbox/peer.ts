// Who is on the other end of a loopback TCP connection? With --sandbox none the API proxy listens
// on 127.0.0.1, which every local user can reach, and it acts as the case's identity; so it
// serves only connections from our own uid, read from the kernel's socket table (Linux).
// Format of /proc/net/tcp: https://www.kernel.org/doc/Documentation/networking/proc_net_tcp.txt
import { readFileSync } from "node:fs";

/** The uid owning the socket whose local port is `port` and whose peer port is `peerPort`. */
export function loopbackOwner(port: number, peerPort: number): number | undefined {
  const hexPort = (p: number) => p.toString(16).toUpperCase().padStart(4, "0");
  for (const table of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    let text: string;
    try {
      text = readFileSync(table, "utf8");
    } catch {
      continue;
    }
    for (const line of text.split("\n").slice(1)) {
      const f = line.trim().split(/\s+/);
      if (f.length < 8) continue;
      if (f[1].endsWith(`:${hexPort(port)}`) && f[2].endsWith(`:${hexPort(peerPort)}`)) return Number(f[7]);
    }
  }
  return undefined;
}

/** True when the client of a connection to our `serverPort` from `clientPort` runs as our uid. */
export function sameUser(serverPort: number, clientPort: number): boolean {
  if (process.platform !== "linux" || typeof process.getuid !== "function") return true;
  return loopbackOwner(clientPort, serverPort) === process.getuid();
}
