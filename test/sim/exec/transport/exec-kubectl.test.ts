// kubectl exec against the embedded cluster, with the real kubectl over WebSocket (v5).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { R } from "../../../../src/sim/api/resources.js";
import type { Pod } from "../../../../src/sim/core/objects.js";
import { podManifest, runningPod, startCluster, type TestCluster, waitFor } from "../../helpers/exec.js";

let t: TestCluster;
const NS = "shop";

beforeAll(async () => {
  t = await startCluster();
  const { registry } = t.c.ctx;
  t.c.ctx.registry.create(R("Namespace"), undefined, {
    apiVersion: "v1",
    kind: "Namespace",
    metadata: { name: NS },
  });
  registry.create(R("ConfigMap"), NS, {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "cfg" },
    data: { LEVEL: "debug", "app.conf": "port=8080\n" },
  });
  registry.create(R("Secret"), NS, {
    apiVersion: "v1",
    kind: "Secret",
    metadata: { name: "creds" },
    data: { password: Buffer.from("s3cret").toString("base64") },
  });
  registry.create(R("Service"), NS, {
    apiVersion: "v1",
    kind: "Service",
    metadata: { name: "cart-db" },
    spec: { selector: { app: "db" }, ports: [{ name: "mysql", port: 3306 }] },
  });
  await runningPod(
    t.c,
    podManifest(
      NS,
      "web",
      [
        {
          name: "main",
          image: "nginx:1.27",
          volumeMounts: [
            { name: "logs", mountPath: "/var/log/app" },
            { name: "cfg", mountPath: "/etc/app" },
          ],
        },
        {
          name: "sidecar",
          image: "busybox:1.36",
          // busybox's default command is a shell, which exits at once without a terminal
          command: ["sleep", "infinity"],
          env: [
            { name: "GREETING", value: "hello" },
            { name: "WHERE", value: "$(GREETING) from $(POD_NAME)" },
            { name: "POD_NAME", valueFrom: { fieldRef: { fieldPath: "metadata.name" } } },
            { name: "LOG_LEVEL", valueFrom: { configMapKeyRef: { name: "cfg", key: "LEVEL" } } },
            { name: "DB_PASSWORD", valueFrom: { secretKeyRef: { name: "creds", key: "password" } } },
            // an empty value (a null decodes as "") gives way to valueFrom (kubelet_pods.go makeEnvironmentVariables)
            { name: "DB_SECRET", value: "", valueFrom: { secretKeyRef: { name: "creds", key: "password" } } },
          ],
          envFrom: [{ configMapRef: { name: "cfg" }, prefix: "CFG_" }],
          volumeMounts: [{ name: "logs", mountPath: "/logs" }],
        },
      ],
      {
        volumes: [
          { name: "logs", emptyDir: {} },
          { name: "cfg", configMap: { name: "cfg" } },
        ],
      },
    ),
  );
});

afterAll(async () => {
  await t?.stop();
});

describe("kubectl exec", () => {
  it("runs a command in the default container", async () => {
    const r = await t.kubectl(["exec", "-n", NS, "web", "--", "cat", "/etc/hostname"]);
    expect(r.stderr).toContain('Defaulted container "main"');
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe("web");
  });

  it("shows a container's environment with values resolved from the cluster", async () => {
    const r = await t.kubectl(["exec", "-n", NS, "web", "-c", "sidecar", "--", "env"]);
    expect(r.exitCode).toBe(0);
    const env = Object.fromEntries(
      r.stdout
        .split("\n")
        .filter(Boolean)
        .map((l) => [l.slice(0, l.indexOf("=")), l.slice(l.indexOf("=") + 1)]),
    );
    expect(env).toMatchObject({
      HOSTNAME: "web",
      GREETING: "hello",
      POD_NAME: "web",
      LOG_LEVEL: "debug",
      DB_PASSWORD: "s3cret",
      DB_SECRET: "s3cret",
      CFG_LEVEL: "debug",
      KUBERNETES_SERVICE_HOST: "10.43.0.1",
      CART_DB_SERVICE_PORT: "3306",
      CART_DB_SERVICE_PORT_MYSQL: "3306",
    });
    expect(env.WHERE).toBe("hello from $(POD_NAME)"); // references resolve only to earlier variables
    expect(env.CART_DB_SERVICE_HOST).toMatch(/^10\.43\./);
    expect(env.PATH).toContain("/usr/bin");
  });

  it("exits with the command's exit code", async () => {
    const r = await t.kubectl(["exec", "-n", NS, "web", "-c", "main", "--", "false"]);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain("command terminated with exit code 1");
    const r3 = await t.kubectl(["exec", "-n", NS, "web", "-c", "main", "--", "sh", "-c", "exit 3"]);
    expect(r3.exitCode).toBe(3);
  });

  it("fails an unknown command as the runtime does, with 127", async () => {
    const r = await t.kubectl(["exec", "-n", NS, "web", "-c", "main", "--", "nosuchcmd", "x"]);
    expect(r.exitCode).toBe(127);
    expect(r.stderr).toContain('exec: "nosuchcmd": executable file not found in $PATH');
  });

  it("feeds stdin to the command with -i", async () => {
    const r = await t.kubectl(
      ["exec", "-i", "-n", NS, "web", "-c", "main", "--", "cat"],
      "line one\nline two\n",
    );
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe("line one\nline two");
  });

  it("runs small shell scripts", async () => {
    const r = await t.kubectl([
      "exec",
      "-n",
      NS,
      "web",
      "-c",
      "main",
      "--",
      "sh",
      "-c",
      "echo a; echo b | wc -l",
    ]);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe("a\n1");
    const s = await t.kubectl([
      "exec",
      "-n",
      NS,
      "web",
      "-c",
      "main",
      "--",
      "sh",
      "-c",
      "cat /nope 2>&1 | grep -c 'No such' && ls /nope > /dev/null 2>&1 || echo missing",
    ]);
    expect(s.stdout).toBe("1\nmissing");
  });

  it("shares an emptyDir between containers and shows it in df", async () => {
    const w = await t.kubectl([
      "exec",
      "-n",
      NS,
      "web",
      "-c",
      "main",
      "--",
      "sh",
      "-c",
      "echo hi > /var/log/app/x.log && echo there >> /var/log/app/x.log",
    ]);
    expect(w.exitCode).toBe(0);
    const r = await t.kubectl(["exec", "-n", NS, "web", "-c", "sidecar", "--", "cat", "/logs/x.log"]);
    expect(r.stdout).toBe("hi\nthere");
    const df = await t.kubectl(["exec", "-n", NS, "web", "-c", "main", "--", "df", "-h"]);
    expect(df.stdout).toMatch(/^Filesystem\s+Size\s+Used\s+Avail\s+Use% Mounted on/);
    expect(df.stdout).toMatch(/\/dev\/sda1 .* \/var\/log\/app$/m);
    const cm = await t.kubectl(["exec", "-n", NS, "web", "-c", "main", "--", "cat", "/etc/app/app.conf"]);
    expect(cm.stdout).toBe("port=8080");
  });

  it("answers for a container that is not running, as the kubelet does", async () => {
    t.c.ctx.registry.create(
      R("Pod"),
      NS,
      podManifest(NS, "broken", [{ name: "app", image: "nginx:doesnotexist" }]),
    );
    await waitFor("the image pull to fail", () =>
      (
        t.c.ctx.registry.get(R("Pod"), NS, "broken") as Pod
      ).status?.containerStatuses?.[0]?.state?.waiting?.reason?.includes("Image"),
    );
    const r = await t.kubectl(["exec", "-n", NS, "broken", "--", "true"]);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain('unable to upgrade connection: container not found ("app")');
  });

  it("answers for a container the pod does not have", async () => {
    const r = await t.kubectl(["exec", "-n", NS, "web", "-c", "nope", "--", "true"]);
    expect(r.exitCode).not.toBe(0);
    expect(r.stderr).toContain("container nope is not valid for pod web");
  });
});
