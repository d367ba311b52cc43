// The clock benchmark: the embedded cluster at speed 60 with 100, 500 and 1000 pods (probes,
// housekeeping, metrics-server's scrapes), then 15 s of wall time watched every 20 ms. Printed:
// how much cluster time was simulated, how far the engine fell behind the wall clock's pace (a
// clock that followed the wall would have run that far ahead of the work), the lag cluster time
// took instead (its backlog, now and at most), and how often now() was seen past a timer that
// had not yet run (must be 0: cluster time never ahead of the engine).
import { simData } from "../src/cli/sim-data.js";
import { defaultLead, EmbeddedCluster, type Pod, R, WallClock } from "../src/sim/index.js";
import { line } from "./stats.js";

const SPEED = 60;
const WATCH_MS = 15_000;

const deployment = (replicas: number) => ({
  apiVersion: "apps/v1",
  kind: "Deployment",
  metadata: { name: "load", namespace: "bench" },
  spec: {
    replicas,
    selector: { matchLabels: { app: "load" } },
    template: {
      metadata: { labels: { app: "load" } },
      spec: {
        containers: [
          {
            name: "app",
            image: "nginx:1.25",
            ports: [{ containerPort: 80 }],
            readinessProbe: { httpGet: { path: "/", port: 80 }, periodSeconds: 5 },
            livenessProbe: { tcpSocket: { port: 80 }, periodSeconds: 10 },
            resources: { requests: { cpu: "10m", memory: "16Mi" }, limits: { cpu: "100m", memory: "64Mi" } },
          },
        ],
      },
    },
  },
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

async function one(pods: number): Promise<void> {
  const nodes = Array.from({ length: Math.ceil(pods / 200) }, (_, i) => ({
    name: `node-${i}`,
    cpu: "128",
    memory: "512Gi",
    pods: 250,
  }));
  // behind the wall clock by the lead a cluster at this speed starts with, so it can run fast
  const clock = new WallClock(SPEED, defaultLead(SPEED));
  const c = new EmbeddedCluster({ ...simData(), clock, seed: 1, nodes });
  await c.listen();
  try {
    const { registry } = c.ctx;
    registry.create(R("Namespace"), undefined, {
      apiVersion: "v1",
      kind: "Namespace",
      metadata: { name: "bench" },
    });
    registry.create(R("Deployment"), "bench", deployment(pods));
    const ready = () =>
      registry
        .list(R("Pod"), "bench")
        .filter((p) =>
          ((p as Pod).status?.conditions ?? []).some((x) => x.type === "Ready" && x.status === "True"),
        ).length;
    const t0 = performance.now();
    while (ready() < pods && performance.now() - t0 < 180_000) await sleep(200);
    line(`${pods} pods: all Ready after (wall)`, s(performance.now() - t0));

    const before = clock.stats();
    const c0 = clock.now();
    const w0 = performance.now();
    let samples = 0;
    let ahead = 0;
    let maxLag = 0;
    const watch = setInterval(() => {
      samples++;
      const due = clock.pendingDue();
      if (due !== undefined && clock.now() > due) ahead++;
      maxLag = Math.max(maxLag, clock.stats().lagMs);
    }, 20);
    await sleep(WATCH_MS);
    clearInterval(watch);
    const wall = performance.now() - w0;
    const simulated = clock.now() - c0;
    const after = clock.stats();
    line(
      `${pods} pods: cluster time in ${s(wall)} of wall time`,
      `${s(simulated)} (speed ${(simulated / wall).toFixed(1)} of ${SPEED})`,
    );
    line(`${pods} pods: timers run`, String(after.fired - before.fired));
    line(
      `${pods} pods: engine behind the wall's pace, at most`,
      s(after.maxBehindMs),
      "any: time waits for it",
    );
    line(
      `${pods} pods: lag behind the wall's pace, at the start / end`,
      `${s(before.lagMs)} / ${s(after.lagMs)}`,
    );
    line(`${pods} pods: now() past undone work`, `${ahead} of ${samples} looks`, "0");
    line(`${pods} pods: largest lag seen while watched`, s(maxLag));
  } finally {
    await c.stop();
  }
}

export async function benchClock(): Promise<void> {
  process.stdout.write(
    `The cluster clock under load (speed ${SPEED}), watched for ${s(WATCH_MS)} of wall time\n`,
  );
  for (const pods of [100, 500, 1000]) await one(pods);
}
