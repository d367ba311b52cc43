import { describe, expect, it } from "vitest";
import { parseFilter } from "../../src/probe/filters.js";
import { splitCommandLine } from "../../src/probe/tokenize.js";

describe("splitting a command line without a shell", () => {
  it("honours single and double quotes and backslashes", () => {
    const [s] = splitCommandLine(
      `kubectl get pods -l "app=a b" -o jsonpath='{.items[*].metadata.name}' x\\ y`,
    );
    expect(s.stages).toEqual([
      ["kubectl", "get", "pods", "-l", "app=a b", "-o", "jsonpath={.items[*].metadata.name}", "x y"],
    ]);
  });

  it("separates commands at ; and newlines, and stages at |", () => {
    const segs = splitCommandLine("kubectl get pods | grep cart;\nkubectl top pods;;");
    expect(segs.map((s) => s.stages)).toEqual([
      [
        ["kubectl", "get", "pods"],
        ["grep", "cart"],
      ],
      [["kubectl", "top", "pods"]],
    ]);
    expect(segs.map((s) => s.text)).toEqual(["kubectl get pods | grep cart", "kubectl top pods"]);
  });

  it("keeps a ; inside quotes", () => {
    expect(splitCommandLine(`kubectl get pods | grep 'a;b'`)[0].stages[1]).toEqual(["grep", "a;b"]);
  });

  it("refuses more than four pipes after kubectl", () => {
    expect(
      splitCommandLine("kubectl get pods | grep a | grep b | grep c | grep d")[0].refusal,
    ).toBeUndefined();
    expect(
      splitCommandLine("kubectl get pods | grep a | grep b | grep c | grep d | wc -l")[0].refusal,
    ).toContain("at most 4 pipes");
  });

  it("reads |& as 2>&1 | (bash's shorthand): the first stage's stderr joins the pipe", () => {
    const [s] = splitCommandLine("kubectl describe pod x |& tail -n 5");
    expect(s).toMatchObject({
      stages: [
        ["kubectl", "describe", "pod", "x"],
        ["tail", "-n", "5"],
      ],
      stderr: "merge",
    });
    expect(s.refusal).toBeUndefined();
    // a filter's stderr is never shown, so |& after it changes nothing
    expect(splitCommandLine("kubectl get pods | grep a |& wc -l")[0].stderr).toBeUndefined();
    expect(splitCommandLine("kubectl get pods |&& true")[0].refusal).toContain("`&`/`&&`");
  });

  it("refuses an unterminated quote and an empty pipe side", () => {
    expect(splitCommandLine(`kubectl get pods -l 'app=x`)[0].refusal).toContain("unterminated single quote");
    expect(splitCommandLine("kubectl get pods |")[0].refusal).toContain("empty side");
  });
});

describe("grep patterns after a pipe", () => {
  const grep = (args: string[], text: string) => {
    const f = parseFilter(["grep", ...args]);
    if (!("apply" in f)) throw new Error(f.refusal);
    return f.apply(text);
  };
  const text = "cart Running\ncheckout CrashLoopBackOff\nredis Running\n";

  it("reads basic regexes as grep does (\\| is alternation, | is a literal)", () => {
    expect(grep(["cart\\|redis"], text)).toBe("cart Running\nredis Running\n");
    expect(grep(["a|b"], "a|b\nab\n")).toBe("a|b\n");
    expect(grep(["-E", "a|b"], "a|b\nab\nc\n")).toBe("a|b\nab\n");
    expect(grep(["-E", "[[:digit:]]+x"], "12x\nx\n")).toBe("12x\n");
  });

  it("supports -i -v -c -n -w -F -e", () => {
    expect(grep(["-i", "CART"], text)).toBe("cart Running\n");
    expect(grep(["-vc", "Running"], text)).toBe("1\n");
    expect(grep(["-n", "redis"], text)).toBe("3:redis Running\n");
    expect(grep(["-w", "Run"], text)).toBe("");
    expect(grep(["-F", "a.b"], "axb\na.b\n")).toBe("a.b\n");
    expect(grep(["-e", "cart", "-e", "redis"], text)).toBe("cart Running\nredis Running\n");
  });

  it("prints context lines with -A/-B/-C as GNU grep does", () => {
    const events =
      "Name: cart\nEvents:\n  Warning OOMKilled\n  Normal Pulled\nName: redis\nEvents:\n  <none>\n";
    expect(grep(["-A", "1", "Events"], events)).toBe("Events:\n  Warning OOMKilled\n--\nEvents:\n  <none>\n");
    expect(grep(["-n", "-B1", "OOM"], events)).toBe("2-Events:\n3:  Warning OOMKilled\n");
    expect(grep(["-C", "1", "Pulled"], events)).toBe("  Warning OOMKilled\n  Normal Pulled\nName: redis\n");
  });

  it("works in proportion to the output: a pattern that keeps hundreds of states stops with a note", () => {
    const text = `${"a".repeat(100)}\n`.repeat(2000);
    expect(grep(["-c", "a"], text)).toBe("2000\n");
    expect(grep(["-cE", "^(a|b)+$"], text)).toBe("2000\n");
    const heavy = grep(["-E", "(.*a){100}x"], text);
    expect(heavy).toMatch(/^\[grep stopped at line \d+ of 2000: the pattern costs too much on this output/);
  });

  it("refuses files and unsupported options", () => {
    expect(parseFilter(["grep", "x", "/etc/passwd"])).toHaveProperty("refusal");
    expect(parseFilter(["grep", "-r", "x"])).toHaveProperty("refusal");
    expect(parseFilter(["tail", "-f"])).toHaveProperty("refusal");
  });
});
