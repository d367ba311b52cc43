// A datasource that names another real MySQL server: Train-Ticket's ts-route-service deployed with
// ROUTE_MYSQL_HOST=nacosdb-mysql (an env entry over its ts-route-mysql Secret's key: kubelet's
// makeEnvironmentVariables lets `env` win over `envFrom`) connects, and that server, which has no
// account for the user `ts` (its Secret creates `nacos`: docker-library/mysql
// docker-entrypoint.sh's MYSQL_USER), answers ER_ACCESS_DENIED_ERROR (MySQL's
// sql/auth/sql_authentication.cc: "Access denied for user '%s'@'%s' (using password: YES)"), which
// MySQL Connector/J 8 throws as java.sql.SQLException and HikariCP logs after "Exception during
// pool initialization." (HikariPool.checkFailFast). The users' search through it fails; the entry
// removed, the Secret's host is read again and it answers. Through real kubectl, on the embedded
// cluster.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestCluster, type TestCluster } from "../../helpers/cluster.js";
import { deploySystem, type Kn, kubectlIn } from "../helpers/failures.js";
import { logsShow, nowStamp, pageUntil, readyPod } from "../helpers/network.js";

const NS = "trainticket";
const SEARCH = "http://ts-ui-dashboard:8080/api/v1/travelservice/trips/left";
const QUERY = [
  "-H",
  "Content-Type: application/json",
  "-d",
  '{"startingPlace":"Shang Hai","endPlace":"Su Zhou","departureTime":"2026-01-02"}',
];
let t: TestCluster;
let kn: Kn;
let from: string;

async function setEnv(arg: string) {
  expect((await kn(["set", "env", "deployment/ts-route-service", arg])).exitCode).toBe(0);
  const done = await kn(["rollout", "status", "deployment/ts-route-service", "--timeout=300s"]);
  expect(done.exitCode, done.stderr).toBe(0);
}

beforeAll(async () => {
  t = await startTestCluster(120, 71);
  kn = kubectlIn(t, NS);
  await deploySystem(t, "train-ticket", NS);
  from = await readyPod(kn, "ts-order-service");
  await pageUntil(kn, from, SEARCH, (p) => p.code === "200", QUERY, 120_000);
}, 300_000);
afterAll(() => t?.stop());

describe("a datasource naming another MySQL server", () => {
  it("the other server refuses the user: Access denied in the client's log, the search fails", async () => {
    await setEnv("ROUTE_MYSQL_HOST=nacosdb-mysql");
    const since = nowStamp(t);
    const pod = await readyPod(kn, "ts-route-service");
    const ip = (await kn(["get", "pod", pod, "-o", "jsonpath={.status.podIP}"])).stdout.trim();
    await pageUntil(kn, from, SEARCH, (p) => p.code !== "200", QUERY, 120_000);
    const line = await logsShow(kn, "ts-route-service", "ts-route-service", since, /Access denied/);
    expect(line).toBe(`java.sql.SQLException: Access denied for user 'ts'@'${ip}' (using password: YES)`);
    // still Ready: the server answered, nothing in the pod's status is red
    expect(
      (await kn(["get", "pod", pod, "-o", "jsonpath={.status.containerStatuses[0].ready}"])).stdout,
    ).toBe("true");
  }, 400_000);

  it("the entry removed: the Secret's host again, the search answers", async () => {
    await setEnv("ROUTE_MYSQL_HOST-");
    await pageUntil(kn, from, SEARCH, (p) => p.code === "200", QUERY, 180_000);
  }, 400_000);
});
