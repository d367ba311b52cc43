// BusyBox's `time` applet (miscutils/time.c): runs a program and prints, on stderr, the time it
// took: "real\t0m 0.12s\nuser\t0m 0.00s\nsys\t0m 0.00s" by default, "real 0.12\nuser 0.00\nsys 0.00"
// with -p (its posix_format). Elapsed time is the cluster time the program waited (its sleeps,
// its requests' round trips: Proc.waited); the CPU a request costs a client is too small to show
// at this precision, as on a real pod.
import type { CommandRegistry, Proc } from "../userland/process.js";
import { gated } from "../userland/toolbox.js";

/** Seconds as BusyBox prints them: whole seconds and hundredths ("%u.%02u"). */
const secs = (ms: number) =>
  `${Math.floor(ms / 1000)}.${String(Math.floor((ms % 1000) / 10)).padStart(2, "0")}`;
/** "%um %u.%02us" for the default format. */
const minsSecs = (ms: number) => `${Math.floor(ms / 60_000)}m ${secs(ms % 60_000)}s`;

async function time(args: string[], p: Proc): Promise<number> {
  let posix = false;
  let i = 0;
  for (; i < args.length && args[i].startsWith("-") && args[i] !== "-"; i++) {
    if (args[i] === "--") {
      i++;
      break;
    }
    if (args[i] === "-p") posix = true;
    else if (args[i] !== "-v" && args[i] !== "-a") return p.fail(`unrecognized option '${args[i]}'`);
  }
  const argv = args.slice(i);
  if (!argv.length) {
    p.stderr.write(
      "BusyBox v1.35.0 (2022-01-17 19:57:02 UTC) multi-call binary.\n\nUsage: time [-vpa] [-o FILE] PROG ARGS\n",
    );
    return 1;
  }
  // the program's own time: the cluster time it waited, not the clock's (which also counts the
  // simulator's work, multiplied by the clock's speed)
  const start = p.waited;
  const code = await p.spawn(argv);
  const took = p.waited - start;
  if (code === undefined) {
    p.stderr.write(`time: can't execute '${argv[0]}': No such file or directory\n`);
  }
  p.stderr.write(
    posix
      ? `real ${secs(took)}\nuser 0.00\nsys 0.00\n`
      : `real\t${minsSecs(took)}\nuser\t0m 0.00s\nsys\t0m 0.00s\n`,
  );
  return code ?? 127;
}

export function registerTime(r: CommandRegistry): void {
  r.register("time", gated("time", time));
}
