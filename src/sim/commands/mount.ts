// mount, in the images that ship it (util-linux in Debian, Ubuntu, CentOS and Oracle Linux;
// BusyBox's applet in busybox and Alpine). With no arguments it lists the mount table as the
// kernel gives it (util-linux reads /proc/self/mountinfo, BusyBox /proc/mounts): "<source> on
// <target> type <fstype> (<options>)", filtered by -t. Mounting needs CAP_SYS_ADMIN, which a
// container's root does not have: the kernel answers EPERM and each tool says so its own way.
import type { CommandRegistry, Proc } from "../userland/process.js";
import { gated, toolImpl } from "../userland/toolbox.js";

interface Line {
  source: string;
  target: string;
  fstype: string;
  options: string;
}

/** /proc/self/mounts, read through the process's own /proc. */
function table(p: Proc): Line[] {
  return p.fs
    .read("/proc/self/mounts")
    .toString()
    .split("\n")
    .filter(Boolean)
    .map((l) => {
      const [source, target, fstype, options] = l.split(" ");
      return { source, target, fstype, options };
    });
}

/** util-linux's -t list: "ext4,tmpfs", or "noext4,tmpfs" (every type negated). */
function typeFilter(spec: string | undefined, busybox: boolean): (t: string) => boolean {
  if (spec === undefined) return () => true;
  if (busybox) return (t) => t === spec;
  const neg = spec.startsWith("no");
  const types = spec.split(",").map((t) => (neg ? t.replace(/^no/, "") : t));
  return (t) => types.includes(t) !== neg;
}

function mount(args: string[], p: Proc): number {
  const busybox = toolImpl(p, "mount") === "busybox";
  let type: string | undefined;
  const rest: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === "-t" || a === "--types") type = args[++i];
    else if (a.startsWith("-t") && a.length > 2) type = a.slice(2);
    else if (a === "-o" || a === "--options") i++;
    else if (/^-[lnrvwf]+$/.test(a)) continue;
    else rest.push(a);
  }
  if (!rest.length) {
    const keep = typeFilter(type, busybox);
    for (const l of table(p))
      if (keep(l.fstype)) p.out(`${l.source} on ${l.target} type ${l.fstype} (${l.options})\n`);
    return 0;
  }
  if (busybox) {
    p.stderr.write("mount: permission denied (are you root?)\n");
    return 1;
  }
  if (rest.length === 1) {
    p.stderr.write(`mount: ${p.path(rest[0])}: can't find in /etc/fstab.\n`);
    return 1;
  }
  p.stderr.write(`mount: ${p.path(rest[rest.length - 1])}: permission denied.\n`);
  return 32;
}

export function registerMount(r: CommandRegistry): void {
  r.register("mount", gated("mount", mount));
}
