// Reading argv as the programs read it. kubectl: spf13/pflag flag.go (parseArgs, parseLongArg,
// parseSingleShortArg) with kubectl's global normalisation cliflag.WordSepNormalizeFunc
// (kubernetes/kubectl pkg/cmd/cmd.go: SetGlobalNormalizationFunc), which makes `_` and `-` the
// same in flag names; pflag has no prefix abbreviations. GNU tools: getopt_long, which accepts
// unique prefixes of long options (`--foll` is `--follow`).
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import { describe, expect, it } from "vitest";
import { checkExec } from "../../src/probe/exec-rules.js";
import { parseFlags, parsePflag } from "../../src/probe/flags.js";
import { checkKubectl } from "../../src/probe/kubectl.js";
import { flagsOf } from "../../src/probe/kubectl-flags.js";

const pflag = (args: string[], verb = "get") => parsePflag(args, flagsOf(verb));

describe("pflag, as kubectl parses flags", () => {
  it("normalises _ to - in long names", () => {
    expect(pflag(["--all_namespaces"])).toMatchObject({
      flags: [{ name: "--all-namespaces", value: "true" }],
    });
    expect(pflag(["--cache_dir=/x"])).toMatchObject({ flags: [{ name: "--cache-dir", value: "/x" }] });
  });

  it("reads --x=v, --x v, and a bool that never takes the next word", () => {
    expect(pflag(["--output=json", "--selector", "app=a", "--show-labels", "pods"])).toEqual({
      flags: [
        { name: "--output", value: "json" },
        { name: "--selector", value: "app=a" },
        { name: "--show-labels", value: "true" },
      ],
      positionals: ["pods"],
    });
    // `--all-namespaces false`: false is an argument, not the flag's value
    expect(pflag(["--all-namespaces", "false"])).toMatchObject({ positionals: ["false"] });
  });

  it("reads short clusters: a bool lets the next letter be a flag, another flag takes the rest", () => {
    expect(pflag(["-Aowide"])).toMatchObject({
      flags: [
        { name: "--all-namespaces", value: "true" },
        { name: "--output", value: "wide" },
      ],
    });
    expect(pflag(["-n=foo"])).toMatchObject({ flags: [{ name: "--namespace", value: "foo" }] });
    expect(pflag(["-nfoo"])).toMatchObject({ flags: [{ name: "--namespace", value: "foo" }] });
    expect(pflag(["-A=false"])).toMatchObject({ flags: [{ name: "--all-namespaces", value: "false" }] });
    // -n= alone: the value is "=" (pflag: `-n=` has no character after the `=`)
    expect(pflag(["-n="])).toMatchObject({ flags: [{ name: "--namespace", value: "=" }] });
  });

  it("has no abbreviations, and -- ends the flags", () => {
    expect(pflag(["--all-name"])).toMatchObject({ error: "unknown flag: --all-name" });
    expect(pflag(["web", "--", "ls", "-l"], "exec")).toEqual({
      flags: [],
      positionals: ["web"],
      afterDash: ["ls", "-l"],
    });
    expect(pflag(["---x"])).toMatchObject({ error: "bad flag syntax: ---x" });
  });

  it("reads -f as --follow for logs and --filename elsewhere", () => {
    expect(pflag(["-f"], "logs")).toMatchObject({ flags: [{ name: "--follow" }] });
    expect(pflag(["-f", "x.yaml"], "get")).toMatchObject({
      flags: [{ name: "--filename", value: "x.yaml" }],
    });
  });
});

describe("the real kubectl agrees on what is a flag", () => {
  // kubectl parses flags before it connects: an unknown flag ends it with "unknown flag", a
  // known one lets it go on to the (closed) server
  const home = mkdtempSync(join(tmpdir(), "pflag-agree-"));
  it.each([
    "--all-name",
    "--all_namespaces",
    "--show_labels",
    "-nshop",
    "-n=shop",
    "-Aowide",
    "-A=false",
    "--Namespace=x",
    "-Z",
    "---x",
    "--selector=app=a",
  ])("kubectl get pods %s", async (arg) => {
    const ours = pflag([arg]);
    const r = await execa(
      "kubectl",
      ["get", "pods", arg, "--server=http://127.0.0.1:9", "--request-timeout=2s"],
      {
        env: { KUBECONFIG: "/dev/null", HOME: home },
        extendEnv: false,
        reject: false,
        timeout: 20_000,
      },
    );
    const kubectlRefused = /unknown (shorthand )?flag|bad flag syntax/.test(String(r.stderr));
    expect(kubectlRefused, String(r.stderr)).toBe("error" in ours);
  });
});

describe("checkKubectl", () => {
  const ok = (args: string[]) => {
    const r = checkKubectl(args, "shop");
    if ("refusal" in r) throw new Error(r.refusal);
    return r.argv;
  };
  const no = (args: string[]) => {
    const r = checkKubectl(args, "shop");
    if (!("refusal" in r)) throw new Error(`not refused: ${args.join(" ")}`);
    return r.refusal;
  };

  it("defaults -n to the case's namespace, and leaves the rest as written", () => {
    expect(ok(["get", "pods", "-o", "jsonpath={.items[*].metadata.name}"])).toEqual([
      "-n",
      "shop",
      "get",
      "pods",
      "-o",
      "jsonpath={.items[*].metadata.name}",
    ]);
    expect(ok(["-n=shop", "get", "pods"])).toEqual(["-n=shop", "get", "pods"]);
    expect(ok(["get", "pods", "-Ao", "wide"])[0]).toBe("-n");
  });

  it("refuses the file, identity and logging flags however they are spelled", () => {
    expect(no(["get", "ns", "-o", "templatefile=/proc/self/environ"])).toContain("templates from files");
    expect(no(["get", "ns", "-o", "TemplateFile=/proc/self/environ"])).toContain("not an output format");
    expect(no(["config", "view", "--raw"])).toContain("this machine's kubeconfig");
    expect(no(["cluster-info", "dump", "--output-directory=/tmp/x"])).toContain("not allowed");
    expect(no(["get", "pods", "--cache_dir", "/tmp/x"])).toContain("--cache-dir writes files");
    expect(no(["get", "pods", "-s=https://x"])).toContain("--server changes who kubectl is");
    expect(no(["get", "pods", "--as_uid=0"])).toContain("--as-uid changes who kubectl is");
    expect(no(["get", "pods", "-v9"])).toContain("verbose logging");
    expect(no(["get", "pods", "--v=9"])).toContain("verbose logging");
  });

  it("refuses what never ends, in any spelling a bool takes", () => {
    expect(no(["get", "pods", "-w"])).toContain("watching never ends");
    expect(no(["get", "pods", "--watch=true"])).toContain("watching never ends");
    expect(no(["get", "pods", "--watch_only"])).toContain("watching never ends");
    expect(no(["logs", "web", "--follow=1"])).toContain("following logs never ends");
    expect(ok(["get", "pods", "--watch=false"])).toContain("--watch=false");
  });

  it("finds the subcommand where cobra finds it", () => {
    expect(no(["rollout", "-w", "status", "restart", "deploy/x"])).toContain("not read-only");
    expect(ok(["rollout", "status", "deploy/x"])).toEqual([
      "-n",
      "shop",
      "rollout",
      "status",
      "deploy/x",
      "--watch=false",
    ]);
    expect(no(["top", "-l", "app=x", "pods"])).toContain("kubectl top pods");
    expect(ok(["auth", "can-i", "delete", "pods"])).toEqual([
      "-n",
      "shop",
      "auth",
      "can-i",
      "delete",
      "pods",
    ]);
  });
});

describe("getopt and the tools in a container", () => {
  it("reads -o=x as the value =x, as getopt does (curl would write a file named =/dev/null)", () => {
    expect(
      parseFlags(["-o=/dev/null"], { valueShort: "o", boolShort: "", valueLong: [], boolLong: [] }),
    ).toEqual({
      flags: [{ name: "-o", value: "=/dev/null" }],
      positionals: [],
    });
    expect(checkExec(["curl", "-s", "-o=/dev/null", "http://checkout/"], "shop")).toContain("writes a file");
  });

  it("refuses abbreviations of refused long options", () => {
    expect(checkExec(["tail", "--foll", "/var/log/app.log"], "shop")).toContain("tail -f never ends");
    expect(checkExec(["date", "--se=2020-01-01"], "shop")).toContain("only print the time");
    expect(checkExec(["date", "-us", "2020-01-01"], "shop")).toContain("only print the time");
    expect(checkExec(["hostname", "--fi", "/etc/x"], "shop")).toContain("only print the name");
    expect(checkExec(["hostname", "--fqdn"], "shop")).toBeUndefined();
  });
});
