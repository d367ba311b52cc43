// The API benchmark: a namespace of 1000 running pods; latency of GET pods as Table, of a
// strategic patch, and from an update to its watch event; and the server's memory.
import { simData } from "../src/cli/sim-data.js";
import { EmbeddedCluster } from "../src/sim/index.js";
import { adminFetch } from "./https.js";
import { line, mb, ms, percentile } from "./stats.js";

const TABLE = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json";

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const t = performance.now();
  await fn();
  return performance.now() - t;
}

export async function benchApi(): Promise<void> {
  const nodes = Array.from({ length: 5 }, (_, i) => ({
    name: `node-${i}`,
    cpu: "64",
    memory: "256Gi",
    pods: 250,
  }));
  const c = new EmbeddedCluster({ ...simData(), speed: 60, nodes });
  const url = await c.listen();
  // HTTPS with the cluster CA, as its admin (bench/https.ts)
  const fetch = adminFetch(c);
  const post = (path: string, body: unknown) =>
    fetch(url + path, {
      method: "POST",
      body: JSON.stringify(body),
      headers: { "Content-Type": "application/json" },
    });
  await post("/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: "bench" } });
  const t0 = performance.now();
  for (let i = 0; i < 1000; i++) {
    await post("/api/v1/namespaces/bench/pods", {
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: `p-${i}`, labels: { app: `svc-${i % 50}` } },
      spec: {
        containers: [
          { name: "c", image: "busybox:1.35", resources: { requests: { cpu: "10m", memory: "16Mi" } } },
        ],
      },
    });
  }
  const created = performance.now() - t0;
  // wait until they all run
  for (let i = 0; i < 600; i++) {
    const r = (await (
      await fetch(`${url}/api/v1/namespaces/bench/pods?fieldSelector=status.phase=Running`)
    ).json()) as { items: unknown[] };
    if (r.items.length >= 1000) break;
    await new Promise((res) => setTimeout(res, 200));
  }
  process.stdout.write("API server, one namespace of 1000 running pods\n");
  line("create 1000 pods (sequential POSTs)", ms(created));

  const gets: number[] = [];
  for (let i = 0; i < 200; i++)
    gets.push(
      await timed(async () =>
        (await fetch(`${url}/api/v1/namespaces/bench/pods`, { headers: { Accept: TABLE } })).text(),
      ),
    );
  line("GET pods as Table p50", ms(percentile(gets, 50)));
  line("GET pods as Table p99", ms(percentile(gets, 99)), "< 50 ms");

  const patches: number[] = [];
  for (let i = 0; i < 300; i++) {
    const body = JSON.stringify({ metadata: { labels: { round: String(i) } } });
    patches.push(
      await timed(async () =>
        (
          await fetch(`${url}/api/v1/namespaces/bench/pods/p-${i}`, {
            method: "PATCH",
            body,
            headers: { "Content-Type": "application/strategic-merge-patch+json" },
          })
        ).text(),
      ),
    );
  }
  line("strategic patch p50", ms(percentile(patches, 50)));
  line("strategic patch p99", ms(percentile(patches, 99)));

  // update -> watch event, through a real watch stream
  const pending = new Map<string, number>();
  const lat: number[] = [];
  const ac = new AbortController();
  const res = await fetch(`${url}/api/v1/namespaces/bench/configmaps?watch=true`, { signal: ac.signal });
  const reader = res.body!.getReader();
  let buf = "";
  const pump = (async () => {
    const dec = new TextDecoder();
    for (;;) {
      const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true }));
      if (done) return;
      buf += dec.decode(value);
      let i = buf.indexOf("\n");
      while (i >= 0) {
        const ev = JSON.parse(buf.slice(0, i));
        buf = buf.slice(i + 1);
        const v = ev.object?.data?.v;
        const at = pending.get(v);
        if (at !== undefined) {
          lat.push(performance.now() - at);
          pending.delete(v);
        }
        i = buf.indexOf("\n");
      }
    }
  })();
  await post("/api/v1/namespaces/bench/configmaps", {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "w" },
    data: { v: "start" },
  });
  for (let i = 0; i < 300; i++) {
    const v = `v${i}`;
    pending.set(v, performance.now());
    await fetch(`${url}/api/v1/namespaces/bench/configmaps/w`, {
      method: "PATCH",
      body: JSON.stringify({ data: { v } }),
      headers: { "Content-Type": "application/merge-patch+json" },
    });
    for (let k = 0; k < 100 && pending.has(v); k++) await new Promise((r) => setImmediate(r));
  }
  ac.abort();
  await pump.catch(() => {});
  line("update -> watch event p50", ms(percentile(lat, 50)));
  line("update -> watch event p99", ms(percentile(lat, 99)));
  global.gc?.();
  line("server memory (RSS, whole process)", mb(process.memoryUsage().rss), "< 300 MB");
  line("server heap used", mb(process.memoryUsage().heapUsed));
  await c.stop();
}
