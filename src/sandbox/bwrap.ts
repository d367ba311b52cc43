// The bubblewrap command line: a read-only system, a private empty HOME and /tmp, the case's
// folder as the only writable path, its own PID, IPC, UTS and network namespaces, and a parent
// whose death ends it. The sandbox sees the host's files only where they are bound here, under
// neutral names: nothing inside tells a test from an incident.
import { existsSync, lstatSync, readdirSync, readlinkSync } from "node:fs";

export const INSIDE = {
  home: "/tmp/home",
  tmp: "/tmp",
  /** The runner's private folder for this sandbox (socket, kubeconfig), read-only. */
  io: "/run/ansible/io",
  /** The package's ansible/ folder (callback plugin, relay), read-only. */
  lib: "/run/ansible/lib",
  /** The case's folder, the only writable path: bound here, so its host path (a run's name, a
   * case's number) is nowhere inside. */
  work: "/run/ansible/work",
};

/** The fd bwrap reads its options from (--args), so that its command line, which `ps` inside
 * shows as PID 1's, holds no host path. */
export const ARGS_FD = 4;

// what Python, ansible and kubectl read from /etc; the rest of it (shadow, ssh keys, the user's
// configuration of other tools) stays out
const ETC = new Set([
  "alternatives",
  "ansible",
  "ca-certificates",
  "ca-certificates.conf",
  "group",
  "host.conf",
  "hosts",
  "ld.so.cache",
  "ld.so.conf",
  "ld.so.conf.d",
  "localtime",
  "mime.types",
  "nsswitch.conf",
  "os-release",
  "passwd",
  "resolv.conf",
  "ssl",
  "timezone",
]);

function rootArgs(): string[] {
  const args = ["--ro-bind", "/usr", "/usr"];
  for (const d of ["bin", "sbin", "lib", "lib32", "lib64", "libx32"]) {
    const p = `/${d}`;
    if (!existsSync(p)) continue;
    if (lstatSync(p).isSymbolicLink()) args.push("--symlink", readlinkSync(p), p);
    else args.push("--ro-bind", p, p);
  }
  for (const name of readdirSync("/etc")) {
    if (ETC.has(name) || /^python3/.test(name)) args.push("--ro-bind", `/etc/${name}`, `/etc/${name}`);
  }
  return args;
}

export interface BwrapSpec {
  /** The only writable folder, at the same path inside; none: nothing outside /tmp is writable. */
  workDir?: string;
  /** Host paths bound read-only: [host, inside]. */
  mounts: [string, string][];
  /** More host paths visible read-only at the same path (an inventory, a tool outside /usr). */
  readOnly: string[];
  /** Share the host's network (the probe's kubectl); default: none but loopback. */
  network?: boolean;
  /** Have bwrap write its PID 1 to INFO_FD (the caller then passes a pipe as fd 3). */
  info?: boolean;
  command: string[];
}

/** The fd bwrap writes {"child-pid": N} to: the sandbox's PID 1, as the host sees it. */
export const INFO_FD = 3;

export function bwrapArgs(s: BwrapSpec): string[] {
  const cwd = s.workDir ? INSIDE.work : INSIDE.home;
  return [
    ...(s.info ? ["--info-fd", String(INFO_FD)] : []),
    "--unshare-all",
    ...(s.network ? ["--share-net"] : []),
    "--die-with-parent",
    "--new-session",
    // run as root, bwrap keeps every capability in the sandbox's user namespace, enough to
    // remount a read-only bind read-write and write to the host's /usr
    "--cap-drop",
    "ALL",
    ...rootArgs(),
    "--proc",
    "/proc",
    "--dev",
    "/dev",
    "--tmpfs",
    "/tmp",
    "--dir",
    INSIDE.home,
    ...s.mounts.flatMap(([host, inside]) => ["--ro-bind", host, inside]),
    // read-only paths first, so a workDir below one of them stays writable
    ...[...new Set(s.readOnly)].filter(existsSync).flatMap((p) => ["--ro-bind", p, p]),
    ...(s.workDir ? ["--bind", s.workDir, INSIDE.work] : []),
    "--chdir",
    cwd,
    "--",
    ...s.command,
  ];
}
