// The expert tier's init-hang, through real kubectl: chaos/expert/init-hang.yaml adds a busybox:1.35 init
// container running `until nslookup <name>; do echo waiting for <name>; sleep 2; done` for a
// Service that does not exist, with Recreate, so the serving pod goes and the new one stays at
// Init:0/1 (the app container never starts: PodInitializing), its log BusyBox's own replies.
//
// BusyBox 1.35's nslookup (networking/nslookup.c, add_query_with_search and send_queries) asks A
// and then AAAA for a dotless name under every `search` domain of the pod's resolv.conf (k3s:
// <ns>.svc.cluster.local svc.cluster.local cluster.local), prints each reply, and exits 1 if any
// reply is an error. So the loop never ends, even once a Service of that name exists: its other
// two search domains still answer NXDOMAIN. The injection is undone by removing the init container
// (rollout undo); creating the Service does not release it. The kubernetes.io docs' form of the
// same wait (`nslookup <name>.$(cat .../namespace).svc.cluster.local`, one query per type) does
// end when the Service appears, and the app then starts: both are pinned here.
// An init container is not ready while it runs (prober_manager.go UpdatePodStatus).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestCluster, type TestCluster } from "../../helpers/cluster.js";
import { deploySystem, eventually, isReady, type Kn, kubectlIn } from "../helpers/failures.js";
import { curlUntil, onePod, patchWith, statusOf, undo } from "../helpers/lifecycle.js";
import { debugPod } from "../helpers/network.js";

let t: TestCluster;

beforeAll(async () => {
  t = await startTestCluster(60, 61);
}, 60_000);
afterAll(() => t?.stop());

const INIT = "wait-for-dependencies";
const nx = (name: string) => `** server can't find ${name}: NXDOMAIN`;

describe("Simple-Micro: time-service waits for a Service that does not exist", () => {
  const NS = "init-sm";
  let kn: Kn;
  let curl: string;

  beforeAll(async () => {
    kn = kubectlIn(t, NS);
    await deploySystem(t, "simple-micro", NS);
    curl = await debugPod(kn);
  }, 180_000);

  it("stays at Init:0/1 with BusyBox's NXDOMAIN replies and the echo in its log; callers fail", async () => {
    const r = await patchWith(t, kn, "time-service", "init-hang", { wait_for: "time-db" });
    expect(r.exitCode, r.stderr).toBe(0);
    const pod = await onePod(kn, "time-service", (p) => statusOf(p, INIT)?.state?.running !== undefined);
    const name = pod.metadata.name;
    await eventually(kn, ["get", "pod", name, "--no-headers"], (o) => /\s0\/2\s+Init:0\/1\s/.test(o));
    const init = statusOf(pod, INIT);
    expect(init).toMatchObject({ ready: false, restartCount: 0 });
    expect(statusOf(pod, "time-service")?.state?.waiting?.reason).toBe("PodInitializing");
    const log = await eventually(
      kn,
      ["logs", name, "-c", INIT],
      (o) => o.split("waiting for time-db").length > 3,
    );
    const round = log.slice(0, log.indexOf("waiting for time-db\n") + "waiting for time-db\n".length);
    expect(round).toBe(
      [
        "Server:\t\t10.43.0.10",
        "Address:\t10.43.0.10:53",
        "",
        ...[NS + ".svc.cluster.local", "svc.cluster.local", "cluster.local", NS + ".svc.cluster.local"]
          .concat(["svc.cluster.local", "cluster.local"])
          .flatMap((d) => [nx(`time-db.${d}`), ""]),
        "waiting for time-db",
        "",
      ].join("\n"),
    );
    const describe = await kn(["describe", "pod", name]);
    expect(describe.stdout).toMatch(/Initialized\s+False/);
    expect(describe.stdout).toMatch(
      new RegExp(`${INIT}:[\\s\\S]*?State:\\s+Running[\\s\\S]*?Ready:\\s+False`),
    );
    await curlUntil(kn, curl, "http://hello-service:5000/hello", (a) => a.code === "503");
  }, 180_000);

  it("creating the Service does not release it: the other search domains still answer NXDOMAIN", async () => {
    const svc = await kn(["create", "service", "clusterip", "time-db", "--tcp=5432:5432"]);
    expect(svc.exitCode, svc.stderr).toBe(0);
    const ip = (await kn(["get", "service", "time-db", "-o", "jsonpath={.spec.clusterIP}"])).stdout;
    const pod = (await onePod(kn, "time-service", () => true)).metadata.name;
    const log = await eventually(kn, ["logs", pod, "-c", INIT, "--tail=40"], (o) =>
      o.includes(`Name:\ttime-db.${NS}.svc.cluster.local\nAddress: ${ip}\n`),
    );
    expect(log).toContain(nx("time-db.svc.cluster.local"));
    // the loop goes on: another round starts after the answer
    await eventually(kn, ["logs", pod, "-c", INIT, "--tail=3"], (o) =>
      o.trim().endsWith("waiting for time-db"),
    );
    const again = await onePod(kn, "time-service", () => true);
    expect(statusOf(again, INIT)?.state?.running).toBeDefined();
    expect(statusOf(again, "time-service")?.state?.waiting?.reason).toBe("PodInitializing");
    expect((await kn(["delete", "service", "time-db"])).exitCode).toBe(0);
  }, 120_000);

  it("undone (rollout undo removes the init container): healthy", async () => {
    await undo(kn, "time-service");
    const pod = await onePod(kn, "time-service", isReady);
    expect(pod.spec.initContainers ?? []).toEqual([]);
    await curlUntil(kn, curl, "http://hello-service:5000/hello", (a) => a.code === "200");
  }, 120_000);

  it("the docs' fully qualified wait ends when the Service appears, and the app starts", async () => {
    const patch = `spec:
  template:
    spec:
      initContainers:
        - name: ${INIT}
          image: busybox:1.35
          command: ["sh", "-c", "until nslookup time-db.$(cat /var/run/secrets/kubernetes.io/serviceaccount/namespace).svc.cluster.local; do echo waiting for time-db; sleep 2; done"]
`;
    const r = await kn([
      "patch",
      "deployment",
      "time-service",
      "--patch-file",
      t.file("init-fqdn.yaml", patch),
    ]);
    expect(r.exitCode, r.stderr).toBe(0);
    const pod = await onePod(kn, "time-service", (p) => statusOf(p, INIT)?.state?.running !== undefined);
    await eventually(kn, ["logs", pod.metadata.name, "-c", INIT], (o) =>
      o.includes(
        `${nx(`time-db.${NS}.svc.cluster.local`)}\n\n${nx(`time-db.${NS}.svc.cluster.local`)}\n\nwaiting for time-db`,
      ),
    );
    expect((await kn(["create", "service", "clusterip", "time-db", "--tcp=5432:5432"])).exitCode).toBe(0);
    const ready = await onePod(kn, "time-service", isReady);
    expect(statusOf(ready, INIT)).toMatchObject({
      ready: true,
      state: { terminated: { reason: "Completed", exitCode: 0 } },
    });
    expect((await kn(["delete", "service", "time-db"])).exitCode).toBe(0);
    await undo(kn, "time-service");
  }, 180_000);
});

describe("Online-Boutique: productcatalogservice waits; the shop's pages fail", () => {
  const NS = "init-ob";
  let kn: Kn;

  beforeAll(async () => {
    kn = kubectlIn(t, NS);
    await deploySystem(t, "online-boutique", NS);
  }, 240_000);

  it("Init:0/1, the frontend's product pages fail; undone: healthy", async () => {
    const curl = await debugPod(kn);
    const r = await patchWith(t, kn, "productcatalogservice", "init-hang", { wait_for: "catalog-db" });
    expect(r.exitCode, r.stderr).toBe(0);
    const pod = await onePod(
      kn,
      "productcatalogservice",
      (p) => statusOf(p, INIT)?.state?.running !== undefined,
    );
    await eventually(kn, ["get", "pod", pod.metadata.name, "--no-headers"], (o) =>
      /\s0\/2\s+Init:0\/1\s/.test(o),
    );
    await eventually(kn, ["logs", pod.metadata.name, "-c", INIT], (o) =>
      o.includes(`${nx(`catalog-db.${NS}.svc.cluster.local`)}\n`),
    );
    await curlUntil(kn, curl, "http://frontend:80/", (a) => a.code === "500");
    await undo(kn, "productcatalogservice");
    await curlUntil(kn, curl, "http://frontend:80/", (a) => a.code === "200");
  }, 240_000);
});
