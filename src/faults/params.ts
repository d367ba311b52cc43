// What an experiment's `params` may change in a fault: how strong it is and how long it lasts
// (latency, jitter, loss, correlation, workers, load, size, percent, duration, ...), per Chaos
// Mesh kind, never where it lands. The selector, namespace, mode and value are the harness's: a
// case targets its service in its namespace, and params cannot point the fault anywhere else.
// Field names follow Chaos Mesh 2.x's CRDs (https://chaos-mesh.org/docs/simulate-network-chaos-on-kubernetes/,
// .../simulate-heavy-stress-on-kubernetes/, .../simulate-io-chaos-on-kubernetes/, .../simulate-pod-chaos-on-kubernetes/).

/** Fields that choose where a fault lands or what it is: never a param. */
export const RETARGETING = new Set([
  "selector",
  "namespace",
  "namespaces",
  "mode",
  "value",
  "target",
  "externalTargets",
  "direction",
  "device",
  "containerNames",
  "volumePath",
  "path",
  "action",
  "metadata",
  "labelSelectors",
  "fieldSelectors",
  "annotationSelectors",
  "podPhaseSelectors",
  "nodeSelectors",
  "nodes",
  "pods",
  "remoteCluster",
]);

const duration = {
  type: "string",
  pattern: "^([0-9]+(\\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$",
  fix: 'a Go duration such as "500ms", "90s" or "5m"',
};
const percent = {
  anyOf: [
    { type: "string", pattern: "^(100|[0-9]{1,2}(\\.[0-9]+)?)$" },
    { type: "number", minimum: 0, maximum: 100 },
  ],
  fix: 'a percentage from 0 to 100, e.g. "50"',
};
const count = { type: "integer", minimum: 1, fix: "a whole number ≥ 1" };
const strict = (properties: Record<string, object>) => ({
  type: "object",
  additionalProperties: false,
  minProperties: 1,
  properties,
});

/** The params schema of each kind (the object merged into the chaos object's spec). */
export const PARAMS_SCHEMAS: Record<string, object> = {
  NetworkChaos: strict({
    delay: strict({
      latency: duration,
      jitter: duration,
      correlation: percent,
      reorder: strict({ reorder: percent, correlation: percent, gap: count }),
    }),
    loss: strict({ loss: percent, correlation: percent }),
    duplicate: strict({ duplicate: percent, correlation: percent }),
    corrupt: strict({ corrupt: percent, correlation: percent }),
    bandwidth: strict({
      rate: { type: "string", pattern: "^[0-9]+(bps|kbps|mbps|gbps|tbps)$", fix: 'e.g. "1mbps"' },
      limit: count,
      buffer: count,
      peakrate: count,
      minburst: count,
    }),
    duration,
  }),
  StressChaos: strict({
    stressors: strict({
      cpu: strict({
        workers: count,
        load: { type: "integer", minimum: 0, maximum: 100, fix: "a CPU load in percent, 0 to 100" },
        options: { type: "array", items: { type: "string" } },
      }),
      memory: strict({
        workers: count,
        size: {
          type: "string",
          pattern: "^[0-9]+(\\.[0-9]+)?\\s*(%|[KMGTP]i?B?|B)?$",
          fix: 'a size such as "256MiB", "1GB" or "50%"',
        },
        oomScoreAdj: { type: "integer", minimum: -1000, maximum: 1000 },
        options: { type: "array", items: { type: "string" } },
      }),
    }),
    duration,
  }),
  IOChaos: strict({
    delay: duration,
    percent: { type: "integer", minimum: 0, maximum: 100, fix: "a whole percentage, 0 to 100" },
    errno: { type: "integer", minimum: 1, fix: "an errno number, e.g. 5 (EIO)" },
    methods: { type: "array", items: { type: "string" }, fix: "file operations, e.g. [READ, WRITE]" },
    duration,
  }),
  PodChaos: strict({
    duration,
    gracePeriod: { type: "integer", minimum: 0, fix: "seconds, e.g. 0" },
  }),
};

/** A field of params that would retarget the fault, with its path (e.g. "delay.selector"). */
export function retargetingField(params: unknown, at = ""): string | undefined {
  if (!params || typeof params !== "object" || Array.isArray(params)) return undefined;
  for (const [k, v] of Object.entries(params)) {
    const here = at ? `${at}.${k}` : k;
    if (RETARGETING.has(k) || k === "__proto__" || k === "constructor" || k === "prototype") return here;
    const inner = retargetingField(v, here);
    if (inner) return inner;
  }
  return undefined;
}
