// Each image's root is the image's, read with real kubectl exec (`ls -la /`, `ls` of the app's
// folder, `cat` of a file the image ships), as its Dockerfile builds it (src/sim/stages/
// image-trees.yaml):
//   - Online-Boutique v0.3.8 (GoogleCloudPlatform/microservices-demo src/*/Dockerfile at v0.3.8):
//     productcatalogservice FROM alpine, WORKDIR /src, the binary as ./server beside products.json,
//     grpc_health_probe in /bin; currencyservice FROM node:16-alpine, WORKDIR /usr/src/app,
//     COPY . . less .dockerignore (client.js); emailservice FROM python:3.7-slim (bullseye: /bin
//     and /lib not merged), WORKDIR /email_server; adservice FROM openjdk:8-slim, WORKDIR /app
//     with the Gradle install; cartservice FROM dotnet/runtime-deps:6.0.5-alpine3.14, /app;
//   - Train-Ticket (FudanSELab/train-ticket ts-*/Dockerfile): FROM java:8-jre (jessie), Asia/
//     Shanghai in /etc/timezone, ADD ./target/<svc>-1.0.jar /app/, no WORKDIR (so /); mysql:5.7
//     on Oracle Linux 7-slim (/bin -> usr/bin, /var/lib/mysql-files owned by mysql);
//     rabbitmq:3.9-alpine (/var/lib/rabbitmq the rabbitmq user's);
//   - Simple-Micro: python:3.9-slim (bookworm, merged /usr) and busybox:1.35 (applets as hard
//     links of /bin/busybox, no boot).
// Dates are the builds' (ls prints the year for files over six months old, as coreutils' ls.c
// does), never the container's start except what the runtime makes then (/, /etc, /dev).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestCluster, type TestCluster } from "../../helpers/cluster.js";
import { deploySystem, type Kn, kubectlIn } from "../helpers/failures.js";

let t: TestCluster;
const kn: Record<string, Kn> = {};

beforeAll(async () => {
  t = await startTestCluster(60, 91);
  for (const [sys, ns] of [
    ["online-boutique", "trees-ob"],
    ["train-ticket", "trees-tt"],
    ["simple-micro", "trees-sm"],
  ]) {
    kn[sys] = kubectlIn(t, ns);
    await deploySystem(t, sys, ns);
  }
}, 600_000);
afterAll(() => t?.stop());

async function sh(sys: string, workload: string, container: string, script: string): Promise<string> {
  const r = await kn[sys](["exec", `deploy/${workload}`, "-c", container, "--", "sh", "-c", script]);
  expect(r.exitCode, r.stderr).toBe(0);
  return r.stdout;
}

/** name -> the rest of its `ls -l` line. */
function entries(out: string): Map<string, string> {
  const m = new Map<string, string>();
  for (const l of out.trim().split("\n")) {
    const f = l.split(/\s+/);
    if (f.length < 9) continue;
    const arrow = f.indexOf("->");
    m.set(arrow > 0 ? f[arrow - 1] : f[f.length - 1], l);
  }
  return m;
}

describe("images are the images", () => {
  it("productcatalogservice: Alpine's root, /src with server and products.json, dated from the build", async () => {
    const root = entries(await sh("online-boutique", "productcatalogservice", "server", "ls -la /"));
    expect([...root.keys()]).toEqual(
      expect.arrayContaining(["bin", "etc", "lib", "src", "usr", "var", "tmp"]),
    );
    expect(root.has("boot")).toBe(false);
    expect(root.has("lib64")).toBe(false);
    expect(root.get("tmp")).toMatch(/^drwxrwxrwt/);
    expect(root.get("root")).toMatch(/^drwx------/);
    expect(root.get("dev")).toMatch(/ 360 /);
    // not the same minute for all: the base's date, the build's, and the container's start
    const dates = new Set([...root.values()].map((l) => l.split(/\s+/).slice(5, 8).join(" ")));
    expect(dates.size).toBeGreaterThanOrEqual(3);
    expect(root.get("src")).toMatch(/Jun {2}3 {2}2022 src$/);
    const src = await sh(
      "online-boutique",
      "productcatalogservice",
      "server",
      "pwd; ls /src; cat products.json",
    );
    const [cwd, ...rest] = src.split("\n");
    expect(cwd).toBe("/src");
    expect(rest.slice(0, 2)).toEqual(["products.json", "server"]);
    expect(JSON.parse(rest.slice(2).join("\n")).products).toHaveLength(9);
    const bin = entries(await sh("online-boutique", "productcatalogservice", "server", "ls -l /bin"));
    expect(bin.get("grpc_health_probe")).toMatch(/^-rwxr-xr-x/);
    expect(bin.get("sh")).toMatch(/sh -> \/bin\/busybox$/);
    expect(await sh("online-boutique", "productcatalogservice", "server", "cat /etc/os-release")).toContain(
      'PRETTY_NAME="Alpine Linux v3.16"',
    );
  }, 120_000);

  it("currencyservice, emailservice, adservice, cartservice: each at its WORKDIR with its files", async () => {
    const cur = await sh(
      "online-boutique",
      "currencyservice",
      "server",
      "pwd; ls; cat data/currency_conversion.json",
    );
    expect(cur.split("\n")[0]).toBe("/usr/src/app");
    expect(cur).toContain("server.js");
    expect(cur).toContain("node_modules");
    expect(cur).not.toContain("client.js"); // its .dockerignore
    expect(cur).toContain('"USD": "1.1305"');
    const email = await sh(
      "online-boutique",
      "emailservice",
      "server",
      "pwd; ls; ls -la / | grep -c ' -> '; cat /etc/debian_version",
    );
    expect(email).toMatch(/^\/email_server\n/);
    expect(email).toContain("email_server.py");
    expect(email).toContain("templates");
    // bullseye keeps /bin, /lib and /sbin as directories: no links at the top
    expect(email).toMatch(/\n0\n11\.3\s*$/);
    const ad = await sh(
      "online-boutique",
      "adservice",
      "server",
      "pwd; ls build/install/hipstershop/bin; ls /opt/cprof",
    );
    expect(ad).toMatch(/^\/app\nAdService\n/);
    expect(ad).toContain("profiler_java_agent.so");
    const cart = await sh("online-boutique", "cartservice", "server", "pwd; ls; cat /etc/alpine-release");
    expect(cart.trim()).toBe("/app\nappsettings.json\ncartservice\ncartservice.pdb\n3.14.6");
  }, 120_000);

  it("Train-Ticket's Java services: java:8-jre's jessie, the jar in /app, Shanghai's time zone, / as cwd", async () => {
    const out = await sh(
      "train-ticket",
      "ts-auth-service",
      "ts-auth-service",
      "pwd; ls -la /app; cat /etc/timezone /etc/debian_version",
    );
    const lines = out.trim().split("\n");
    expect(lines[0]).toBe("/");
    expect(out).toMatch(/-rw-r--r-- 1 root root \d{8} Jun 2[12] {2}2021 ts-auth-service-1\.0\.jar/);
    expect(lines.slice(-2)).toEqual(["Asia/Shanghai", "8.7"]);
    const root = entries(await sh("train-ticket", "ts-auth-service", "ts-auth-service", "ls -la /"));
    expect(root.get("docker-java-home")).toMatch(/-> \/usr\/lib\/jvm\/java-8-openjdk-amd64$/);
    expect(root.get("lib64")).toMatch(/^drwx/);
    // two services' jars are not one size
    const other = await sh("train-ticket", "ts-order-service", "ts-order-service", "ls -l /app");
    const size = (s: string) => s.match(/root root (\d+) /)?.[1];
    expect(size(other)).toBeDefined();
    expect(size(other)).not.toBe(size(out));
  }, 120_000);

  it("mysql:5.7 and rabbitmq:3.9-alpine: their distributions' roots and their users' folders", async () => {
    const root = entries(await sh("train-ticket", "tsdb-mysql", "mysql", "ls -la /"));
    expect(root.get("bin")).toMatch(/bin -> usr\/bin$/);
    expect(root.get("lib64")).toMatch(/lib64 -> usr\/lib64$/);
    expect(root.has("docker-entrypoint-initdb.d")).toBe(true);
    const lib = entries(
      await sh("train-ticket", "tsdb-mysql", "mysql", "ls -la /var/lib; cat /etc/os-release"),
    );
    expect(lib.get("mysql-files")).toMatch(/^drwxr-x--- +\d+ mysql +mysql /);
    const rabbit = await sh(
      "train-ticket",
      "rabbitmq",
      "rabbitmq",
      "ls -la /var/lib/rabbitmq; cat /etc/alpine-release",
    );
    expect(rabbit).toMatch(/-rw------- 1 rabbitmq rabbitmq +20 .* \.erlang\.cookie/);
  }, 120_000);

  it("Simple-Micro: python:3.9-slim's merged /usr and python, busybox's hard links", async () => {
    const py = await sh(
      "simple-micro",
      "hello-service",
      "hello-service",
      "ls -la / ; ls -l /usr/local/bin/python3; cat /etc/debian_version",
    );
    const root = entries(py);
    expect(root.get("bin")).toMatch(/bin -> usr\/bin$/);
    expect(root.get("boot")).toMatch(/^drwx/);
    expect(py).toMatch(/python3 -> python3\.9\n/);
    expect(py.trim().split("\n").pop()).toBe("12.11");
    const bb = entries(await sh("simple-micro", "hello-service", "sidecar-busybox", "ls -la / /bin"));
    expect(bb.has("boot")).toBe(false);
    expect(bb.get("lib64")).toMatch(/lib64 -> lib$/);
    // every applet is the one binary, linked many times
    const ls = bb.get("ls")!;
    expect(ls).toMatch(/^-rwxr-xr-x +\d{2,} root +root +1149184 /);
  }, 120_000);
});
