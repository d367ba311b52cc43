// A JVM's heap over its uptime. The JVM grows its committed heap under allocation pressure
// toward its maximum (G1 expands the heap while collections take more than GCTimeRatio allows,
// and seldom gives memory back), and the working set follows. With the maximum the container
// awareness of JDK 8u191+ picks (MaxRAMPercentage: a quarter of the limit) the steady state is
// the topology's `memory`. A maximum set by hand (-Xmx in JAVA_OPTS, read through the start
// script) lets the heap grow with the requests served, perRequestMi each, until that maximum:
// above the container's memory limit the kernel's OOM killer ends the process first (exit
// 137, OOMKilled; the JVM writes nothing), the container restarts with a small heap and grows
// again: an OOM every few minutes under load that a restart seems to fix.

import { MiB } from "../../../util/quantity.js";
import type { ContainerRef } from "../../context/behavior.js";
import type { ServiceModel } from "../../context/catalog.js";
import type { SimContext } from "../../context/context.js";
import type { Pod } from "../../core/objects.js";
import { settingOf, settingSet } from "./settings.js";

/** Bytes the heap has grown past the steady working set, at `rps` served since the start. */
export function heapGrowth(
  ctx: SimContext,
  m: ServiceModel,
  ref: ContainerRef,
  rps: number,
  now: number,
): number {
  const s = m.settings.heapMax;
  if (!s?.perRequestMi || rps <= 0) return 0;
  const pod = ref.pod as Pod;
  if (!settingSet(ctx, pod, m, "heapMax")) return 0;
  const max = settingOf(ctx, pod, m, "heapMax") ?? 0;
  const room = max - m.runtime.memory * MiB;
  if (room <= 0) return 0;
  const grown = s.perRequestMi * MiB * rps * (Math.max(0, now - ref.startedAt) / 1000);
  return Math.min(grown, room);
}
