// The user-facing check's parts: the command line of a request (busybox wget, curl), the status
// read back from each tool's own output, and the judgement against the healthy baseline.
import { describe, expect, it } from "vitest";
import type { UserCheck } from "../../src/envs/schema-env.js";
import { answerOf, judgeUser, requestArgv, timeOf, type UserReading } from "../../src/verify/user.js";

const check: UserCheck = {
  from: { apps: ["loadgenerator"], container: "sidecar-busybox", tool: "wget" },
  requests: [{ name: "home", url: "http://frontend:80/", method: "GET" }],
  samples: 3,
  timeoutSeconds: 10,
  margin: { factor: 2, plusMs: 300 },
};
const reading = (answers: (number | string)[], medianMs: number): UserReading => ({
  from: "loadgenerator-1/sidecar-busybox",
  requests: [{ name: "home", answers, medianMs }],
});

describe("a request", () => {
  it("is busybox wget -S under time -p (status and time on stderr) or curl -w (on stdout)", () => {
    expect(requestArgv("wget", check.requests[0], 10)).toEqual([
      "time",
      "-p",
      "wget",
      "-q",
      "-S",
      "-O",
      "/dev/null",
      "-T",
      "10",
      "http://frontend:80/",
    ]);
    expect(
      requestArgv(
        "curl",
        {
          name: "search",
          url: "http://ui:8080/api",
          method: "POST",
          data: "{}",
          contentType: "application/json",
        },
        5,
      ),
    ).toEqual([
      "curl",
      "-s",
      "-o",
      "/dev/null",
      "-w",
      "%{http_code} %{time_total}",
      "-m",
      "5",
      "-X",
      "POST",
      "--data",
      "{}",
      "-H",
      "Content-Type: application/json",
      "http://ui:8080/api",
    ]);
    expect(
      requestArgv("wget", { name: "add", url: "http://f/cart", method: "POST", data: "a=1" }, 10),
    ).toContain("--post-data=a=1");
  });

  it("reads the last status line wget -S printed, or why there was none", () => {
    expect(answerOf("wget", "", "  HTTP/1.1 302 Found\n  HTTP/1.1 200 OK\n", 0)).toBe(200);
    expect(
      answerOf(
        "wget",
        "",
        "  HTTP/1.1 500 Internal Server Error\nwget: server returned error: HTTP/1.1 500 Internal Server Error\n",
        1,
      ),
    ).toBe(500);
    expect(
      answerOf("wget", "", "wget: can't connect to remote host (10.43.0.9): Connection refused\n", 1),
    ).toBe("refused");
    expect(answerOf("wget", "", "wget: bad address 'frontend:80'\n", 1)).toBe("no such host");
    expect(answerOf("wget", "", "wget: download timed out\n", 1)).toBe("timeout");
    // as the check runs it, under busybox's time -p, whose lines come last
    const timed = (line: string) => `${line}\nreal 3.01\nuser 0.00\nsys 0.00\n`;
    expect(answerOf("wget", "", timed("wget: bad address 'frontend:80'"), 1)).toBe("no such host");
    expect(answerOf("wget", "", timed("wget: download timed out"), 1)).toBe("timeout");
    expect(answerOf("curl", "503 0.012345", "", 0)).toBe(503);
    expect(answerOf("curl", "000", "", 28)).toBe("timeout");
  });
});

describe("a request's own time", () => {
  it("is what curl -w or busybox's time -p reported, in ms", () => {
    expect(timeOf("curl", "200 0.123456", "")).toBe(123);
    expect(timeOf("wget", "", "  HTTP/1.1 200 OK\nreal 1.07\nuser 0.00\nsys 0.00\n")).toBe(1070);
    expect(timeOf("wget", "", "wget: bad address 'x'\n")).toBeUndefined();
  });
});

describe("judging what users see", () => {
  const baseline = reading([200, 200, 200], 40);

  it("passes when every answer is good and the median is within the margin of the baseline", () => {
    expect(judgeUser(reading([200, 200, 200], 300), baseline, check).pass).toBe(true);
  });

  it("fails on any failed request, naming the request and the answers", () => {
    const v = judgeUser(reading([200, 500, "refused"], 40), baseline, check);
    expect(v.pass).toBe(false);
    expect(v.reason).toBe("users see failures: home: 2 of 3 requests failed (500, refused)");
  });

  it("fails when the median is slower than twice the healthy one plus 300 ms", () => {
    const v = judgeUser(reading([200, 200, 200], 381), baseline, check);
    expect(v.reason).toBe("users see failures: home: median 381 ms, above 380 ms (healthy: 40 ms)");
  });

  it("cannot judge without a pod to request from: inconclusive, never a fault seen", () => {
    expect(judgeUser("no Ready pod of loadgenerator", baseline, check)).toMatchObject({
      pass: false,
      inconclusive: true,
    });
  });
});
