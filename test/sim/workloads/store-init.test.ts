// A MySQL store started over an empty data directory initializes it first, as mysql:5.7's
// docker-entrypoint.sh does (docker-library/mysql 5.7/docker-entrypoint.sh: docker_init_database_dir
// runs mysqld --initialize-insecure, then a temporary server for the init scripts, then "MySQL
// init process done. Ready for start up."): Train-Ticket's mysql pods mount an emptyDir at
// /var/lib/mysql, so their first start writes the initialization before "ready for connections";
// a restart of the container in the same pod finds the data there and does not.
import { describe, expect, it } from "vitest";
import { deploy } from "../helpers/topology.js";

describe("mysql over an empty data directory", () => {
  it("initializes before it is ready for connections", () => {
    const sim = deploy("train-ticket", "store-init");
    sim.advance(90_000, 1000);
    const logs = sim.logs(sim.pod("tsdb-mysql"));
    const init = logs.findIndex((l) => l.includes("[Entrypoint]: Initializing database files"));
    const done = logs.findIndex((l) => l.includes("MySQL init process done. Ready for start up."));
    const ready = logs.findIndex((l) => l.includes("mysqld: ready for connections."));
    expect(init).toBeGreaterThanOrEqual(0);
    expect(done).toBeGreaterThan(init);
    expect(ready).toBeGreaterThan(done);
  }, 120_000);
});
