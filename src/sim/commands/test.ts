// test / [ : the conditions shell scripts and probes write (files, strings, integers, ! -a -o).
import type { CommandRegistry, Proc } from "../userland/process.js";

class TestError extends Error {}

function unary(op: string, arg: string, p: Proc): boolean {
  const st = () => p.fs.stat(p.path(arg));
  switch (op) {
    case "-e":
    case "-a":
      return !!st();
    case "-f":
      return st()?.dir === false;
    case "-d":
      return st()?.dir === true;
    case "-s":
      return (st()?.size ?? 0) > 0;
    case "-r":
      return !!st();
    case "-w":
      return !!st() && !st()!.readOnly;
    case "-x":
      return st()?.dir === true || !!p.commands.get(p.path(arg));
    case "-L":
    case "-h":
      return false;
    case "-z":
      return arg.length === 0;
    case "-n":
      return arg.length > 0;
    default:
      throw new TestError(`${op}: unexpected operator`);
  }
}

const INT_OPS = ["-eq", "-ne", "-lt", "-le", "-gt", "-ge"];

function binary(a: string, op: string, b: string): boolean {
  if (op === "=" || op === "==") return a === b;
  if (op === "!=") return a !== b;
  if (INT_OPS.includes(op)) {
    if (!/^\s*-?\d+\s*$/.test(a) || !/^\s*-?\d+\s*$/.test(b))
      throw new TestError(`Illegal number: ${/^\s*-?\d+\s*$/.test(a) ? b : a}`);
    const x = Number(a);
    const y = Number(b);
    return { "-eq": x === y, "-ne": x !== y, "-lt": x < y, "-le": x <= y, "-gt": x > y, "-ge": x >= y }[op]!;
  }
  throw new TestError(`${op}: unexpected operator`);
}

/** Evaluate with -o lowest, then -a, then !, then primaries (POSIX's precedence). */
function evaluate(args: string[], p: Proc): boolean {
  const or = args.indexOf("-o");
  if (or > 0) return evaluate(args.slice(0, or), p) || evaluate(args.slice(or + 1), p);
  const and = args.lastIndexOf("-a");
  if (and > 0 && args.length > 3) return evaluate(args.slice(0, and), p) && evaluate(args.slice(and + 1), p);
  if (args[0] === "!" && args.length > 1) return !evaluate(args.slice(1), p);
  if (args[0] === "(" && args[args.length - 1] === ")") return evaluate(args.slice(1, -1), p);
  switch (args.length) {
    case 0:
      return false;
    case 1:
      return args[0].length > 0;
    case 2:
      return unary(args[0], args[1], p);
    case 3:
      return binary(args[0], args[1], args[2]);
    default:
      throw new TestError("too many arguments");
  }
}

function test(args: string[], p: Proc): number {
  try {
    return evaluate(args, p) ? 0 : 1;
  } catch (e) {
    if (e instanceof TestError) return p.fail(e.message, 2);
    throw e;
  }
}

export function registerTest(r: CommandRegistry): void {
  r.register("test", test).register("[", (args, p) => {
    if (args[args.length - 1] !== "]") return p.fail("missing ]", 2);
    return test(args.slice(0, -1), p);
  });
}
