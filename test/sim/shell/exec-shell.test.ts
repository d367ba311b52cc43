// The container shell and its commands, driven through the ExecHandler (no HTTP: many cases).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { R } from "../../../src/sim/api/resources.js";
import type { Pod } from "../../../src/sim/core/objects.js";
import { Pipe } from "../../../src/sim/userland/stream.js";
import {
  isRunning,
  podManifest,
  runningPod,
  startCluster,
  type TestCluster,
  waitFor,
} from "../helpers/exec.js";

let t: TestCluster;
let pod: Pod;
const NS = "shell";

beforeAll(async () => {
  t = await startCluster(20);
  pod = await runningPod(
    t.c,
    podManifest(
      NS,
      "db",
      [
        {
          name: "mysql",
          image: "mysql:8",
          workingDir: "/srv/app",
          volumeMounts: [{ name: "data", mountPath: "/var/log/mysql" }],
        },
      ],
      {
        volumes: [{ name: "data", emptyDir: {} }],
      },
    ),
  );
});

afterAll(async () => {
  await t?.stop();
});

async function run(
  command: string[],
  opts: { stdin?: string; abortAfterMs?: number; p?: Pod; tty?: boolean } = {},
) {
  let out = "";
  let err = "";
  let stdin: Pipe | undefined;
  if (opts.stdin !== undefined) {
    stdin = new Pipe();
    stdin.write(opts.stdin);
    stdin.end();
  }
  const aborted = new Promise<void>((r) => {
    if (opts.abortAfterMs !== undefined) setTimeout(r, opts.abortAfterMs);
  });
  const live = t.c.ctx.registry.get(R("Pod"), NS, (opts.p ?? pod).metadata.name!) as Pod;
  const code = await t.c.exec.exec(
    { pod: live, container: live.spec.containers[0].name, command, tty: opts.tty ?? false },
    { stdin, stdout: (d) => (out += String(d)), stderr: (d) => (err += String(d)), aborted },
  );
  return { code, out, err };
}

const sh = (script: string, stdin?: string) => run(["sh", "-c", script], { stdin });

describe("shell", () => {
  it("expands variables, quotes and defaults", async () => {
    expect((await sh(`X=1; echo "$X" '$X' \${Y:-def} "a  b" a  b`)).out).toBe("1 $X def a  b a b\n");
    expect((await sh("echo $HOSTNAME $0 $1 $#", undefined)).out).toBe("db sh 0\n");
    expect((await run(["sh", "-c", 'echo "$0:$1:$2"', "name", "one", "two"])).out).toBe("name:one:two\n");
  });

  it('expands "$@" to one field per argument, and to none without arguments (POSIX 2.5.2)', async () => {
    const each = 'for a in "$@"; do echo "[$a]"; done';
    expect((await run(["sh", "-c", each, "sh", "a b", "c"])).out).toBe("[a b]\n[c]\n");
    expect((await run(["sh", "-c", each, "sh"])).out).toBe("");
    expect((await run(["sh", "-c", 'for a in "x$@y"; do echo "[$a]"; done', "sh", "1", "2"])).out).toBe(
      "[x1]\n[2y]\n",
    );
    // "$*" stays one field; unquoted $@ is split as any expansion
    expect((await run(["sh", "-c", 'for a in "$*"; do echo "[$a]"; done', "sh", "1", "2"])).out).toBe(
      "[1 2]\n",
    );
    expect((await run(["sh", "-c", 'for a in $@; do echo "[$a]"; done', "sh", "a b", "c"])).out).toBe(
      "[a]\n[b]\n[c]\n",
    );
  });

  it("runs and-or lists and keeps the last status", async () => {
    expect((await sh("false || echo no; true && echo yes; false")).code).toBe(1);
    expect((await sh("false || echo no; true && echo yes")).out).toBe("no\nyes\n");
    expect((await sh("! false")).code).toBe(0);
  });

  it("pipes through grep, head, tail, wc and sort", async () => {
    expect((await sh("printf 'a\\nb\\nc\\n' | grep -v b | wc -l")).out).toBe("2\n");
    expect((await sh("printf '3\\n1\\n2\\n' | sort -n | head -n 2 | tail -1")).out).toBe("2\n");
    expect((await sh("echo Hello | grep -qi hello && echo found")).out).toBe("found\n");
    expect((await sh("echo one two three | wc")).out).toBe("      1       3      14\n");
  });

  it("redirects to files, /dev/null and between descriptors", async () => {
    const r = await sh("echo hi > f; echo more >> f; cat f; wc -l < f; pwd");
    expect(r.out).toBe("hi\nmore\n2\n/srv/app\n");
    // order matters: stderr goes where stdout pointed before stdout moved
    expect((await sh("ls /nope 2>&1 >/dev/null | wc -l")).out).toBe("1\n");
    expect((await sh("ls /nope > /dev/null 2>&1; echo $?")).out).toBe("2\n");
    const bad = await sh("echo x > /no/such/dir/file");
    expect(bad.code).toBe(2);
    expect(bad.err).toBe("sh: 1: cannot create /no/such/dir/file: Directory nonexistent\n");
  });

  it("substitutes commands and runs if, for and while", async () => {
    expect((await sh('echo "host=$(hostname)" `echo x`')).out).toBe("host=db x\n");
    expect((await sh("for i in 1 2 3; do echo $i; done | tail -n 1")).out).toBe("3\n");
    expect((await sh("if [ -f /etc/hostname ]; then echo yes; else echo no; fi")).out).toBe("yes\n");
    expect((await sh('x=; while [ "$x" != aaa ]; do x="a$x"; echo $x; done')).out).toBe("a\naa\naaa\n");
    expect((await sh("until [ -f /tmp/done ]; do touch /tmp/done; echo once; done")).out).toBe("once\n");
    expect((await sh("printf 'a b\\nc d\\n' | while read x y; do echo $y; done")).out).toBe("b\n");
    expect(
      (await sh("i=0; for n in $(seq 3); do i=$((i + n * 2)); done; echo $i $(( (i - 2) / 5 )) $((i > 10))"))
        .out,
    ).toBe("12 2 1\n");
  });

  it("says what it cannot do, with dash's or bash's words", async () => {
    expect(await sh("foo bar")).toEqual({ code: 127, out: "", err: "sh: 1: foo: not found\n" });
    expect((await run(["bash", "-c", "foo"])).err).toBe("bash: line 1: foo: command not found\n");
    const syntax = await sh("case x in a) ;; esac");
    expect(syntax.code).toBe(2);
    expect(syntax.err).toContain("not supported");
    expect((await sh("set -e; false; echo never")).out).toBe("");
    expect((await sh("exit 300")).code).toBe(44);
  });

  it("reads a script from stdin without a tty", async () => {
    const r = await run(["sh"], { stdin: "echo one\nif true; then\n  echo two\nfi\nexit 5\necho never\n" });
    expect(r).toEqual({ code: 5, out: "one\ntwo\n", err: "" });
  });
});

describe("interactive shell", () => {
  it("prompts, echoes what is typed and answers in terminal line endings", async () => {
    const r = await run(["sh"], { tty: true, stdin: "echo hi\rls -d /tm\x7fmp\rexit 3\r" });
    expect(r.code).toBe(3);
    expect(r.out).toBe("# echo hi\r\nhi\r\n# ls -d /tm\b \bmp\r\n/tmp\r\n# exit 3\r\n");
  });
});

describe("container files", () => {
  it("creates, lists and removes files and directories", async () => {
    const r = await sh(
      "mkdir -p /tmp/a/b && touch /tmp/a/b/c /tmp/a/d && ls /tmp/a && rm -r /tmp/a/b && ls /tmp/a && rm /tmp/a",
    );
    expect(r.out).toBe("b\nd\nd\n");
    expect(r.err).toBe("rm: cannot remove '/tmp/a': Is a directory\n");
    expect((await sh("ls /etc/host*")).out).toBe("/etc/hostname\n/etc/hosts\n");
    expect((await run(["cat", "/nope"])).err).toBe("cat: /nope: No such file or directory\n");
  });

  it("keeps emptyDir contents across a container restart but not the root", async () => {
    await sh("echo keep > /var/log/mysql/a.log; echo lose > /tmp/b");
    // Make the first instance of the container exit on its own: the kubelet restarts it.
    const generic = t.c.ctx.behavior;
    t.c.ctx.behavior = Object.assign(Object.create(generic), {
      exitCode: (ref: { pod: Pod; restartCount: number }) =>
        ref.pod.metadata.name === "db" && ref.restartCount === 0 ? 1 : undefined,
    });
    try {
      await waitFor("db to restart", () => {
        const p = t.c.ctx.registry.get(R("Pod"), NS, "db") as Pod;
        return isRunning(p) && p.status!.containerStatuses![0].restartCount === 1;
      });
    } finally {
      t.c.ctx.behavior = generic;
    }
    const r = await sh("cat /var/log/mysql/a.log; cat /tmp/b");
    expect(r.out).toBe("keep\n");
    expect(r.err).toBe("cat: /tmp/b: No such file or directory\n");
    const df = await run(["df", "/var/log/mysql"]);
    expect(df.out.split("\n")[1]).toMatch(/^\/dev\/sda1\s+\d+\s+\d+\s+\d+\s+\d+% \/var\/log\/mysql$/);
  });
});

describe("time", () => {
  it("sleeps in cluster time and stops when the client goes away", async () => {
    const t0 = Date.now();
    expect((await run(["sleep", "10"])).code).toBe(0); // 10 s at speed 20: half a second
    expect(Date.now() - t0).toBeLessThan(3000);
    const t1 = Date.now();
    expect((await run(["sleep", "3600"], { abortAfterMs: 200 })).code).toBe(130);
    expect(Date.now() - t1).toBeLessThan(3000);
  });

  it("tells the cluster's date", async () => {
    const year = new Date(t.c.ctx.clock.now()).getUTCFullYear();
    expect((await run(["date", "+%Y"])).out).toBe(`${year}\n`);
  });
});
