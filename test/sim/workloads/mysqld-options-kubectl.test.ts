// A MySQL server reads its option files once, when it starts: Train-Ticket's tsdb-mysql takes
// node.cnf from a ConfigMap mounted at /etc/mysql/conf.d (the radondb chart's mysql.configFiles,
// FudanSELab/train-ticket deployment/kubernetes-manifests/quickstart-k8s/charts/mysql/values.yaml:
// `bind-address = 0.0.0.0`), which the mysql:5.7 image's /etc/my.cnf includes
// (docker-library/mysql Dockerfile.oracle: `!includedir /etc/mysql/conf.d/`). mysqld reads
// bind-address at start (sql/mysqld.cc network_init; its log: `Server hostname (bind-address):
// '<addr>'; port: 3306`) and never re-reads it; the kubelet updates a mounted ConfigMap's files
// (pkg/volume/configmap), so an edit shows in the file at once here and reaches the server only when
// its container starts again. Bound to 127.0.0.1 it takes no connection to the pod's IP: the
// kubelet's tcpSocket probe is refused (pkg/probe/tcp: `dial tcp <ip>:3306: connect: connection
// refused`), the pod leaves the Service's endpoints, and the services' datasources fail. Through
// real kubectl, on the embedded cluster.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestCluster, type TestCluster } from "../../helpers/cluster.js";
import { deploySystem, eventually, type Kn, kubectlIn } from "../helpers/failures.js";
import { pageUntil, readyPod } from "../helpers/network.js";

const NS = "trainticket";
const SEARCH = "http://ts-ui-dashboard:8080/api/v1/travelservice/trips/left";
const QUERY = [
  "-H",
  "Content-Type: application/json",
  "-d",
  '{"startingPlace":"Shang Hai","endPlace":"Su Zhou","departureTime":"2026-01-02"}',
];
const CNF = (bind: string) =>
  `[mysqld]\nbind-address = ${bind}\ndefault_storage_engine=InnoDB\nmax_connections=65535\n`;
let t: TestCluster;
let kn: Kn;
let from: string;

const readyMysql = (want: boolean) =>
  eventually(
    kn,
    [
      "get",
      "pods",
      "-l",
      "app=tsdb-mysql",
      "-o",
      "jsonpath={range .items[*]}{.status.containerStatuses[0].ready} {end}",
    ],
    (o) => o.trim() === String(want),
    120_000,
  );

async function setCnf(bind: string) {
  const patch = JSON.stringify({ data: { "node.cnf": CNF(bind) } });
  expect((await kn(["patch", "configmap", "tsdb-mysql", "--type", "merge", "-p", patch])).exitCode).toBe(0);
}

beforeAll(async () => {
  t = await startTestCluster(120, 67);
  kn = kubectlIn(t, NS);
  await deploySystem(t, "train-ticket", NS);
  from = await readyPod(kn, "ts-order-service");
  await pageUntil(kn, from, SEARCH, (p) => p.code === "200", QUERY, 120_000);
}, 300_000);
afterAll(() => t?.stop());

describe("tsdb-mysql's option file, read at start", () => {
  it("as deployed: the file says 0.0.0.0, the server listens on every IPv4 address", async () => {
    const pod = await readyPod(kn, "tsdb-mysql");
    const cat = await kn(["exec", pod, "-c", "mysql", "--", "cat", "/etc/mysql/conf.d/node.cnf"]);
    expect(cat.stdout).toContain("bind-address = 0.0.0.0");
    const logs = await kn(["logs", pod, "-c", "mysql"]);
    expect(logs.stdout).toContain("[Note] Server hostname (bind-address): '0.0.0.0'; port: 3306");
    const net = await kn(["exec", pod, "-c", "mysql", "--", "cat", "/proc/net/tcp"]);
    // 0.0.0.0:3306 (0CEA) listening (0A)
    expect(net.stdout).toMatch(/00000000:0CEA 00000000:0000 0A/);
  }, 60_000);

  it("the file edited to 127.0.0.1: the running server does not re-read it", async () => {
    const pod = await readyPod(kn, "tsdb-mysql");
    await setCnf("127.0.0.1");
    const cat = await kn(["exec", pod, "-c", "mysql", "--", "cat", "/etc/mysql/conf.d/node.cnf"]);
    expect(cat.stdout).toContain("bind-address = 127.0.0.1");
    await new Promise((r) => setTimeout(r, 1500)); // a few probe periods at speed 120
    expect((await readyPod(kn, "tsdb-mysql")) === pod).toBe(true);
    expect((await pageUntil(kn, from, SEARCH, () => true, QUERY)).code).toBe("200");
  }, 120_000);

  it("the pod replaced: the new server binds 127.0.0.1, its probe is refused, the search fails", async () => {
    expect((await kn(["delete", "pod", "-l", "app=tsdb-mysql", "--wait=false"])).exitCode).toBe(0);
    await eventually(
      kn,
      ["get", "pods", "-l", "app=tsdb-mysql", "-o", "jsonpath={.items[*].status.phase}"],
      (o) => o.trim() === "Running",
      120_000,
    );
    const pods = await kn([
      "get",
      "pods",
      "-l",
      "app=tsdb-mysql",
      "-o",
      "jsonpath={.items[0].metadata.name}",
    ]);
    const pod = pods.stdout.trim();
    await eventually(kn, ["logs", pod, "-c", "mysql"], (o) => o.includes("ready for connections"), 120_000);
    const logs = await kn(["logs", pod, "-c", "mysql"]);
    expect(logs.stdout).toContain("[Note] Server hostname (bind-address): '127.0.0.1'; port: 3306");
    const net = await kn(["exec", pod, "-c", "mysql", "--", "cat", "/proc/net/tcp"]);
    // 127.0.0.1:3306 (0100007F:0CEA) listening
    expect(net.stdout).toMatch(/0100007F:0CEA 00000000:0000 0A/);
    await eventually(
      kn,
      [
        "get",
        "events",
        "--field-selector",
        `involvedObject.name=${pod}`,
        "-o",
        "jsonpath={.items[*].message}",
      ],
      (o) => /Readiness probe failed: dial tcp [0-9.]+:3306: connect: connection refused/.test(o),
      120_000,
    );
    await readyMysql(false);
    expect(
      (await kn(["get", "endpoints", "tsdb-mysql-leader", "-o", "jsonpath={.subsets[*].addresses[*].ip}"]))
        .stdout,
    ).toBe("");
    const page = await pageUntil(kn, from, SEARCH, (p) => p.code !== "200", QUERY, 120_000);
    expect(page.code).not.toBe("200");
  }, 300_000);

  it("the file fixed alone: the server keeps what it read at start, still refused", async () => {
    await setCnf("0.0.0.0");
    await new Promise((r) => setTimeout(r, 1500));
    await readyMysql(false);
  }, 120_000);

  it("and restarted: it reads the fixed file, Ready again, the search answers", async () => {
    expect((await kn(["rollout", "restart", "deployment/tsdb-mysql"])).exitCode).toBe(0);
    expect((await kn(["rollout", "status", "deployment/tsdb-mysql", "--timeout=300s"])).exitCode).toBe(0);
    await readyMysql(true);
    await pageUntil(kn, from, SEARCH, (p) => p.code === "200", QUERY, 180_000);
  }, 400_000);
});
