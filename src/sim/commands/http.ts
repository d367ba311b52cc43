// wget (BusyBox or GNU) and curl (7.x, as Debian jessie and CentOS 7 ship it) printing what a
// request through the cluster gives (workloads/topology/request.ts): the body, the tools' progress
// and error messages, their exit codes. GNU wget -q says nothing on failure (exit 4 network,
// 8 server error); BusyBox wget always reports (exit 1); curl -s is silent unless -S. Hosts
// outside the cluster answer as on a cluster with Internet access (outside-http.ts).

import type { CommandRegistry, Proc } from "../userland/process.js";
import { gated, toolImpl } from "../userland/toolbox.js";
import { reach } from "../workloads/topology/outside-http.js";
import { type Outcome, parseUrl } from "../workloads/topology/request.js";
import { parseArgs } from "./args.js";
import { unescapeText } from "./basic.js";

/** A seconds option in ms, or the default (already in ms). */
const secs = (v: string | undefined, dflt: number) =>
  v === undefined || Number.isNaN(Number(v)) ? dflt : Number(v) * 1000;

const statusLine = (o: Extract<Outcome, { kind: "ok" }>) =>
  `${o.answer.version} ${o.answer.status} ${o.answer.reason}`;

function gnuStamp(p: Proc): string {
  return new Date(p.clock.toWall(p.clock.now())).toISOString().replace("T", " ").slice(0, 19);
}

export async function wget(args: string[], p: Proc): Promise<number> {
  const gnu = toolImpl(p, "wget") === "gnu";
  const { flags, values, rest } = parseArgs(args, [
    "O",
    "T",
    "U",
    "t",
    "header",
    "timeout",
    "tries",
    "output-document",
    "user-agent",
    "post-data",
    "post-file",
    "body-data",
    "method",
  ]);
  const quiet = flags.has("q") || flags.has("quiet");
  const spider = flags.has("spider");
  const raw = rest[0];
  if (!raw)
    return p.fail(
      gnu
        ? "missing URL"
        : "BusyBox v1.35.0 multi-call binary.\n\nUsage: wget [-cqS] [--spider] [-O FILE] [-o LOGFILE] [--header STR] [-T SEC] URL...",
      1,
    );
  const url = parseUrl(raw);
  if (!url) return p.fail(gnu ? `${raw}: Invalid URL` : `bad address '${raw}'`, 1);
  const t = secs(values.get("T") ?? values.get("timeout"), 900_000);
  const out =
    values.get("O") ?? values.get("output-document") ?? (url.pathname.split("/").pop() || "index.html");
  const host = url.hostname;
  const port = url.port || "80";
  if (gnu && !quiet) p.stderr.write(`--${gnuStamp(p)}--  ${url.href}\n`);
  // --post-data/--post-file send a POST (BusyBox and GNU); GNU's --method/--body-data any method
  const postFile = values.get("post-file");
  const data =
    values.get("post-data") ??
    values.get("body-data") ??
    (postFile !== undefined ? String(p.fs.read(p.path(postFile))) : undefined);
  const method = spider
    ? "HEAD"
    : ((gnu ? values.get("method")?.toUpperCase() : undefined) ?? (data !== undefined ? "POST" : "GET"));
  const o = await reach(p, {
    url: raw,
    method,
    body: data ?? undefined,
    connectMs: Math.min(t, 127_000),
    totalMs: t,
  });
  if (o.kind === "bad-url") return p.fail(`bad address '${raw}'`, 1);
  if (gnu) {
    const say = (s: string) => (quiet ? undefined : p.stderr.write(s));
    if (o.kind === "dns") {
      say(
        `Resolving ${host} (${host})... failed: ${o.timeout ? "Temporary failure in name resolution" : "Name or service not known"}.\n`,
      );
      say(`wget: unable to resolve host address ‘${host}’\n`);
      return 4;
    }
    say(`Resolving ${host} (${host})... ${o.ip}\nConnecting to ${host} (${host})|${o.ip}|:${port}... `);
    if (o.kind === "empty") {
      say("connected.\nHTTP request sent, awaiting response... No data received.\nGiving up.\n\n");
      return 4;
    }
    if (o.kind !== "ok") {
      const why = {
        refused: "Connection refused",
        unreachable: "No route to host",
        reset: "Connection reset by peer",
        timeout: "Connection timed out",
      }[o.kind];
      say(
        o.kind === "reset"
          ? `connected.\nHTTP request sent, awaiting response... Read error (${why}) in headers.\nGiving up.\n\n`
          : `failed: ${why}.\n${o.kind === "timeout" ? "Giving up.\n\n" : ""}`,
      );
      return 4;
    }
    const a = o.answer;
    say(`connected.\nHTTP request sent, awaiting response... ${a.status} ${a.reason}\n`);
    if (a.status >= 400) {
      say(`${gnuStamp(p)} ERROR ${a.status}: ${a.reason}.\n\n`);
      return 8;
    }
    const len = Buffer.byteLength(a.body);
    say(`Length: ${len} [${a.headers.find((h) => h[0] === "Content-Type")?.[1]}]\n`);
    if (spider) {
      say("Remote file exists.\n\n");
      return 0;
    }
    say(`Saving to: ‘${out === "-" ? "STDOUT" : out}’\n\n`);
    if (out === "-") p.out(a.body);
    else p.fs.write(p.path(out), a.body);
    say(
      `${(out === "-" ? "-" : out).padEnd(20)}100%[===================>]  ${String(len).padStart(6)}  --.-KB/s    in 0s      \n\n`,
    );
    say(
      `${gnuStamp(p)} (${(((len / Math.max(o.ms, 0.1)) * 1000) / 1e6).toFixed(2)} MB/s) - ${out === "-" ? "written to stdout" : `‘${out}’ saved`} [${len}/${len}]\n\n`,
    );
    return 0;
  }
  // BusyBox
  if (o.kind === "dns") return p.fail(`bad address '${host}'`, 1);
  if (!quiet) p.stderr.write(`Connecting to ${host}:${port} (${o.ip}:${port})\n`);
  if (o.kind === "refused") return p.fail(`can't connect to remote host (${o.ip}): Connection refused`, 1);
  if (o.kind === "unreachable") return p.fail(`can't connect to remote host (${o.ip}): No route to host`, 1);
  if (o.kind === "timeout")
    return p.fail(
      o.phase === "connect" && t >= 127_000
        ? `can't connect to remote host (${o.ip}): Connection timed out`
        : "download timed out",
      1,
    );
  if (o.kind === "reset") return p.fail("error getting response: Connection reset by peer", 1);
  // the server closed without a status line: fgets meets EOF with errno 0
  if (o.kind === "empty") return p.fail("error getting response", 1);
  const a = o.answer;
  if (flags.has("S"))
    p.stderr.write(`  ${statusLine(o)}\n${a.headers.map(([k, v]) => `  ${k}: ${v}\n`).join("")}`);
  if (a.status >= 400) return p.fail(`server returned error: ${statusLine(o)}`, 1);
  if (spider) {
    if (!quiet) p.stderr.write("remote file exists\n");
    return 0;
  }
  const len = Buffer.byteLength(a.body);
  if (out === "-") {
    if (!quiet) p.stderr.write("writing to stdout\n");
    p.out(a.body);
  } else {
    if (!values.has("O") && p.fs.stat(p.path(out))) return p.fail(`can't open '${out}': File exists`, 1);
    if (!quiet) p.stderr.write(`saving to '${out}'\n`);
    p.fs.write(p.path(out), a.body);
  }
  if (!quiet)
    p.stderr.write(
      `${(out === "-" ? "-" : out).padEnd(20)} 100% |********************************| ${String(len).padStart(5)}  0:00:00 ETA\n${out === "-" ? "written to stdout" : `'${out}' saved`}\n`,
    );
  return 0;
}

/** curl's -d family: each adds data, joined with "&"; "@file" reads a file (not for --data-raw). */
function curlData(args: string[], p: Proc): string | undefined {
  const parts: string[] = [];
  const names = new Set(["-d", "--data", "--data-raw", "--data-binary", "--data-ascii", "--data-urlencode"]);
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    const eq = a.startsWith("--") ? a.indexOf("=") : -1;
    const name = eq > 0 ? a.slice(0, eq) : a.startsWith("-d") && a.length > 2 ? "-d" : a;
    if (!names.has(name)) continue;
    let v = eq > 0 ? a.slice(eq + 1) : a.startsWith("-d") && a.length > 2 ? a.slice(2) : args[++i];
    if (v === undefined) continue;
    if (v.startsWith("@") && name !== "--data-raw") v = String(p.fs.read(p.path(v.slice(1))));
    parts.push(v);
  }
  return parts.length ? parts.join("&") : undefined;
}

export async function curl(args: string[], p: Proc): Promise<number> {
  const { flags, values, rest } = parseArgs(args, [
    "m",
    "max-time",
    "connect-timeout",
    "w",
    "write-out",
    "o",
    "output",
    "H",
    "header",
    "X",
    "request",
    "A",
    "user-agent",
    "d",
    "data",
    "data-raw",
    "data-binary",
    "data-ascii",
    "data-urlencode",
  ]);
  const silent = flags.has("s") || flags.has("silent");
  const showErr = flags.has("S") || flags.has("show-error") || !silent;
  const head = flags.has("I") || flags.has("head");
  const raw = rest[0];
  const fmt = values.get("w") ?? values.get("write-out");
  // -w is written when the transfer ends, whatever its outcome (http_code 000 without an answer)
  const writeOut = (vars: Record<string, string>) => {
    if (fmt) p.out(unescapeText(fmt.replace(/%\{(\w+)\}/g, (all, k: string) => vars[k] ?? all)).text);
  };
  const failed = (ms: number, ip = "") => ({
    http_code: "000",
    response_code: "000",
    time_connect: "0.000000",
    time_total: (ms / 1000).toFixed(6),
    remote_ip: ip,
    size_download: "0",
  });
  const err = (code: number, msg: string, ms = 0, ip = "") => {
    if (showErr) p.stderr.write(`curl: (${code}) ${msg}\n`);
    writeOut(failed(ms, ip));
    return code;
  };
  if (!raw) return err(2, "no URL specified!");
  const url = parseUrl(raw);
  if (!url || !/^https?:$/.test(url.protocol))
    return err(1, `Protocol "${raw.split(":")[0]}" not supported or disabled in libcurl`);
  const max =
    secs(values.get("m") ?? values.get("max-time"), Number.POSITIVE_INFINITY) || Number.POSITIVE_INFINITY;
  const connect = secs(values.get("connect-timeout"), 300_000);
  const data = curlData(args, p);
  const asked = (values.get("X") ?? values.get("request"))?.toUpperCase();
  // -I is HEAD; -d makes a POST unless -X names another method
  const method = head ? "HEAD" : (asked ?? (data !== undefined ? "POST" : "GET"));
  const o = await reach(p, {
    url: raw,
    method,
    body: data,
    connectMs: Math.min(connect, 127_000),
    totalMs: max,
  });
  const host = url.hostname;
  const port = url.port || (url.protocol === "https:" ? "443" : "80");
  const ms = "ms" in o ? Math.round(o.ms) : 0;
  const ip = "ip" in o ? o.ip : "";
  if (o.kind === "bad-url") return err(3, "URL using bad/illegal format or missing URL");
  if (o.kind === "dns") return err(6, `Could not resolve host: ${host}`);
  if (o.kind === "refused")
    return err(7, `Failed to connect to ${host} port ${port}: Connection refused`, ms, ip);
  if (o.kind === "unreachable")
    return err(7, `Failed to connect to ${host} port ${port}: No route to host`, ms, ip);
  if (o.kind === "reset") return err(56, "Recv failure: Connection reset by peer", ms, ip);
  if (o.kind === "empty") return err(52, "Empty reply from server", ms, ip);
  if (o.kind === "timeout") {
    if (o.phase === "connect" && ms < Math.min(connect, max))
      return err(7, `Failed to connect to ${host} port ${port}: Connection timed out`, ms, ip);
    return o.phase === "connect" && connect <= max
      ? err(28, `Connection timed out after ${ms} milliseconds`, ms, ip)
      : err(28, `Operation timed out after ${ms} milliseconds with 0 out of -1 bytes received`, ms, ip);
  }
  const a = o.answer;
  const fail = (flags.has("f") || flags.has("fail")) && a.status >= 400;
  const headers = `${statusLine(o)}\r\n${a.headers.map(([k, v]) => `${k}: ${v}\r\n`).join("")}\r\n`;
  const body = fail
    ? ""
    : `${head || flags.has("i") || flags.has("include") ? headers : ""}${head ? "" : a.body}`;
  const file = values.get("o") ?? values.get("output");
  if (file && file !== "/dev/null") p.fs.write(p.path(file), body);
  else if (!file) p.out(body);
  if (!silent) {
    const n = Buffer.byteLength(a.body);
    const speed = String(Math.round((n / Math.max(o.ms, 1)) * 1000));
    p.stderr.write(
      "  % Total    % Received % Xferd  Average Speed   Time    Time     Time  Current\n                                 Dload  Upload   Total   Spent    Left  Speed\n" +
        `100 ${String(n).padStart(5)}  100 ${String(n).padStart(5)}    0     0  ${speed.padStart(5)}      0 --:--:-- --:--:-- --:--:-- ${speed.padStart(5)}\n`,
    );
  }
  writeOut({
    http_code: String(a.status),
    response_code: String(a.status),
    time_connect: (o.connectMs / 1000).toFixed(6),
    time_total: (o.ms / 1000).toFixed(6),
    remote_ip: o.ip,
    size_download: String(fail ? 0 : Buffer.byteLength(a.body)),
  });
  return fail ? err22(p, showErr, a.status, a.reason) : 0;
}

/** --fail on an error status: the message, after the write-out. */
function err22(p: Proc, show: boolean, status: number, reason: string): number {
  if (show) p.stderr.write(`curl: (22) The requested URL returned error: ${status} ${reason}\n`);
  return 22;
}

export function registerHttp(r: CommandRegistry): void {
  r.register("wget", gated("wget", wget)).register("curl", gated("curl", curl));
}
