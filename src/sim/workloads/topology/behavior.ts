// What runs inside the containers of the three systems, from envs/*/topology.yaml: a container
// is known by its pod's `app` label and its name (any namespace); sidecars by their name. Any
// other container gets the fallback (GenericBehavior), so any manifest still runs.
//
//   startupMs = startupSeconds * max(1, startupCpu / cpuLimit)       (no limit: startupSeconds)
//   probe     once started, answering the readiness probe takes the CPU it costs at the CPU
//             limit (an HTTP/gRPC answer ~3 ms, an exec probe's process ~20 ms, a TCP connect
//             none: the kernel answers); past timeoutSeconds it fails, so under a 2m limit the
//             app starts (slowly) but never becomes Ready, as docs/failures.md's pod-config-error says
//   CPU       = startupCpu while starting, then cpuIdle + cpuPerRps * rps the pod receives
//   memory    = memory Mi (60% rising to 100% while starting) + 0.5 Mi per rps
// both with a few percent of noise that changes every 15 s (fixed by pod, container and window).
// Logs: startup lines at start (and the oom lines when the start needs more memory than the
// limit), ready lines once the app serves, then every 10 s one request's lines or the failures
// of its dependencies (logs.ts). Chaos Mesh's own effects (stress, pause, probes over a faulted
// link) are FaultedBehavior's, wrapped around this.

import { bytes, milliCpu } from "../../../util/quantity.js";
import { hashString, Rng } from "../../../util/rng.js";
import type { Behavior, ContainerRef, ProbeReach, Usage } from "../../context/behavior.js";
import { type Runtime, type ServiceModel, type SidecarModel, systemOf } from "../../context/catalog.js";
import type { SimContext } from "../../context/context.js";
import type { Pod, Probe } from "../../core/objects.js";
import { mysqldOptions } from "../../userland/mysqld-options.js";
import { runtimeOf } from "../../userland/toolbox.js";
import type { MainProcessTable } from "../generic.js";
import { appLaunched } from "../launch.js";
import { bindFailure } from "./bind-failure.js";
import { skippedAtStart } from "./dial.js";
import { heapGrowth } from "./heap.js";
import { withEnv } from "./log-env.js";
import { baseVars, render, sample, type Vars } from "./logs.js";
import { probeReach } from "./probe.js";
import { instanceKey, processBook } from "./processes.js";
import { missingVars, unresolvedHosts } from "./start-checks.js";
import { type Traffic, trafficOf } from "./traffic.js";

const MiB = 1024 * 1024;
/** CPU ms the container spends answering one probe, by handler. */
const PROBE_CPU_MS: Record<string, number> = { httpGet: 3, grpc: 3, exec: 20, tcpSocket: 0 };
const SAMPLE_MS = 10_000;
const NOISE_WINDOW_MS = 15_000;
/** Instances whose log state is kept (older ones are dropped first). */
const MAX_INSTANCES = 20_000;

type Model =
  | { kind: "service"; m: ServiceModel; rt: Runtime }
  | { kind: "sidecar"; s: SidecarModel; rt: Runtime };

interface LogState {
  /** The start-up lines are written (at start, or when the command became the application). */
  started: boolean;
  ready: boolean;
  nextSample: number;
}

export class TopologyBehavior implements Behavior {
  private traffic?: Traffic;
  private readonly logState = new Map<string, LogState>();

  constructor(
    /** The cluster's context (a thunk: the behavior is built before the context exists). */
    private readonly ctxOf: () => SimContext,
    private readonly fallback: Behavior,
    /** The kubelet's main processes: a service's command the simulation runs (a shell, python). */
    private readonly processesOf?: () => MainProcessTable,
  ) {}

  /** The process table, when the simulation runs this service container's command. */
  private program(ref: ContainerRef): MainProcessTable | undefined {
    const procs = this.processesOf?.();
    return procs?.runs(ref) ? procs : undefined;
  }

  /** Whether the container's command has started the application (launch.ts). */
  private launched(ref: ContainerRef): boolean {
    return appLaunched(this.ctx, ref.pod, ref.container.name, ref.restartCount);
  }

  private get ctx(): SimContext {
    return this.ctxOf();
  }

  /** The per-namespace load and health model (built on first use). */
  get flows(): Traffic {
    this.traffic ??= trafficOf(this.ctx);
    return this.traffic;
  }

  modelOf(ref: ContainerRef): Model | undefined {
    const cat = this.ctx.catalog;
    const app = ref.pod.metadata.labels?.app;
    const m = app ? cat.byApp.get(app) : undefined;
    if (m && m.container === ref.container.name) return { kind: "service", m, rt: m.runtime };
    const s = cat.sidecars.get(ref.container.name);
    return s ? { kind: "sidecar", s, rt: s.runtime } : undefined;
  }

  startupMs(ref: ContainerRef): number {
    const md = this.modelOf(ref);
    if (!md) return this.fallback.startupMs(ref);
    const limit = milliCpu(ref.container.resources?.limits?.cpu);
    const stretch = limit > 0 ? Math.max(1, md.rt.startupCpu / limit) : 1;
    return Math.round(md.rt.startupSeconds * 1000 * stretch);
  }

  probeOk(ref: ContainerRef, now: number): boolean {
    if (!this.modelOf(ref)) return this.fallback.probeOk(ref, now);
    return !this.cpuStarved(ref);
  }

  probeTimedOut(ref: ContainerRef, now: number): boolean {
    if (!this.modelOf(ref)) return this.fallback.probeTimedOut?.(ref, now) ?? false;
    return this.cpuStarved(ref);
  }

  /** A service's probes connect to whoever listens on the port in its pod (probe.ts). */
  probeReach(ref: ContainerRef, probe: Probe, now: number): ProbeReach | undefined {
    if (this.modelOf(ref)?.kind !== "service") return this.fallback.probeReach?.(ref, probe, now);
    return probeReach(this.ctx, ref, probe, now);
  }

  /** The probe's answer takes longer than its timeout at the container's CPU limit. */
  private cpuStarved(ref: ContainerRef): boolean {
    const c = ref.container;
    const probe = c.readinessProbe ?? c.livenessProbe ?? c.startupProbe;
    const limit = milliCpu(c.resources?.limits?.cpu);
    if (!probe || !(limit > 0)) return false;
    const handler = probe.httpGet ? "httpGet" : probe.tcpSocket ? "tcpSocket" : probe.grpc ? "grpc" : "exec";
    // ms of CPU at `limit` millicores per second of wall time
    const answerMs = (PROBE_CPU_MS[handler] * 1000) / limit;
    return answerMs >= (probe.timeoutSeconds ?? 1) * 1000;
  }

  usage(ref: ContainerRef, now: number): Usage {
    const md = this.modelOf(ref);
    if (!md) return this.fallback.usage(ref, now);
    const started = now - ref.startedAt >= this.startupMs(ref);
    const rps = md.kind === "service" && started ? this.flows.podRps(ref.pod, md.m) : 0;
    const progress = started
      ? 1
      : Math.min(1, Math.max(0, now - ref.startedAt) / Math.max(1, this.startupMs(ref)));
    const cpu = started ? md.rt.cpuIdle + md.rt.cpuPerRps * rps : md.rt.startupCpu;
    const heap = md.kind === "service" ? heapGrowth(this.ctx, md.m, ref, rps, now) : 0;
    const mem = md.rt.memory * MiB * (0.6 + 0.4 * progress) + 0.5 * MiB * rps + heap;
    const n = this.noise(ref, now);
    return {
      cpuMilli: Math.max(0, Math.round(cpu * (1 + 0.08 * n))),
      memoryBytes: Math.round(mem * (1 + 0.02 * n)),
      ...(rps > 0 ? { burstMs: md.rt.cpuPerRps, burstsPerSec: rps } : {}),
    };
  }

  /** A number in [-1, 1) fixed by the container instance and the 15 s window. */
  private noise(ref: ContainerRef, now: number): number {
    const w = Math.floor(now / NOISE_WINDOW_MS);
    return (hashString(`${ref.pod.metadata.uid}/${ref.container.name}/${w}`) / 4294967296) * 2 - 1;
  }

  /** The variables the application needs at start that this instance's environment lacks. */
  private missing(ref: ContainerRef, md: Model | undefined): string[] {
    return md?.kind === "service" ? missingVars(this.ctx, ref, md.m) : [];
  }

  /** The addresses (host:port) the application resolves at start that did not resolve. */
  private unresolved(ref: ContainerRef, md: Model | undefined): string[] {
    return md?.kind === "service" ? unresolvedHosts(this.ctx, ref, md.m) : [];
  }

  /** An application that lacks a variable stops early in its start (Go's mustMapEnv panics). */
  private envExitAt(ref: ContainerRef): number {
    return ref.startedAt + Math.min(500, this.startupMs(ref) / 10);
  }

  exitCode(ref: ContainerRef, now: number): number | undefined {
    const exit = processBook(this.ctx).exits.get(instanceKey(ref.pod, ref.container.name, ref.restartCount));
    if (exit && now >= exit.at && ref.startedAt <= exit.at) return exit.code;
    const md = this.modelOf(ref);
    // the command the simulation runs ended (python could not open its script, or had no input)
    const ran = md?.kind === "service" ? this.program(ref)?.exit(ref, now) : undefined;
    if (ran) return ran.code;
    if (md?.kind === "service" && !this.launched(ref)) return undefined;
    // a variable it needs is unset, or a host it resolves at start is not: it stops early (dial.ts)
    if (
      md?.kind === "service" &&
      now >= this.envExitAt(ref) &&
      (this.missing(ref, md).length || this.unresolved(ref, md).length)
    )
      return md.m.missingEnvExitCode;
    // its port was taken when it opened it: it exits as its runtime does (bind-failure.ts)
    const bound = md?.kind === "service" ? bindFailure(this.ctx, ref, md.m) : undefined;
    if (bound && now >= bound.at) return bound.exitCode;
    // a modelled container exits only as the model says; any other runs its own command
    return md ? undefined : this.fallback.exitCode?.(ref, now);
  }

  logLines(ref: ContainerRef, moment: "start" | "ready" | "tick" | "stop", now: number): string[] {
    const md = this.modelOf(ref);
    if (!md) return this.fallback.logLines(ref, moment, now);
    const pod = ref.pod as Pod;
    const key = instanceKey(ref.pod, ref.container.name, ref.restartCount);
    // a command the simulation runs writes its own output; the application's lines come once it
    // became the application (python -c at once; a shell's script later: at the next tick)
    const program = md.kind === "service" ? this.program(ref) : undefined;
    if (program && moment === "start") program.ensure(ref, true);
    if (program && moment === "stop") program.stop(ref);
    if (program && !this.launched(ref)) return [];
    const started = now - ref.startedAt >= this.startupMs(ref);
    const st = this.state(key, ref.startedAt);
    if (moment === "start") st.started = true;
    const starting = moment === "tick" && !st.started;
    if (starting) st.started = true;
    // most ticks write nothing: decide that before building anything
    const sampling = moment === "tick" && started && md.kind === "service" && now >= st.nextSample;
    if (moment === "tick" && !starting && !(started && !st.ready) && !sampling) return [];
    const rng = new Rng(`${key}/${now}/${moment}`);
    const rnd = () => rng.next();
    const logs = md.kind === "service" ? md.m.logs : md.s.logs;
    // Spring Boot's "Started X in {seconds} seconds (JVM running for {jvmSeconds})": the JVM's
    // uptime at the line, and the application's own stopwatch, started once the JVM has booted
    // (StartupInfoLogger: both from the JVM's clock, in ms, never on a whole second); drawn for a
    // JVM only, so that the other applications' lines draw as they did
    const jvm = md.kind === "service" && /^java/.test(md.m.lang ?? "");
    const jvmMs = Math.max(0, now - ref.startedAt - (jvm ? Math.floor(rnd() * 200) : 0));
    const appMs = jvm ? Math.max(0, jvmMs - 600 - Math.floor(rnd() * 700)) : jvmMs;
    const vars = {
      ...baseVars(this.ctx, pod, md.kind === "service" ? md.m : undefined, now, rnd),
      seconds: (appMs / 1000).toFixed(3),
      jvmSeconds: (jvmMs / 1000).toFixed(3),
      // where a MySQL server listens, as its start-up says (`*`: every address)
      ...(runtimeOf(ref.container) === "mysqld"
        ? { bind: mysqldOptions(this.ctx, pod, ref.container, ref.restartCount).bindAddress ?? "*" }
        : {}),
    };
    const limit = bytes(ref.container.resources?.limits?.memory);
    const early = starting ? this.startLines(ref, md, pod, vars, limit) : [];
    switch (moment) {
      case "start":
        return this.startLines(ref, md, pod, vars, limit);
      case "ready":
        // readiness without a probe comes at once: the app says it is up when it is
        if (!started || st.ready) return early;
        st.ready = true;
        return [...early, ...render(withEnv(this.ctx, ref, logs).ready, vars)];
      case "stop": {
        this.logState.delete(key);
        const bound = md.kind === "service" ? bindFailure(this.ctx, ref, md.m) : undefined;
        if (bound && now >= bound.at) return render(bound.lines, { ...vars, port: bound.port });
        // a heap let grow past the limit is killed by the kernel, not by the runtime: no lines (heap.ts)
        const grown =
          md.kind === "service" && heapGrowth(this.ctx, md.m, ref, this.flows.podRps(ref.pod, md.m), now) > 0;
        return limit > 0 && !grown && this.ctx.behavior.usage(ref, now).memoryBytes > limit
          ? render(logs.oom, vars)
          : [];
      }
      case "tick": {
        const out: string[] = [...early];
        if (!started) return out;
        if (!st.ready) {
          st.ready = true;
          out.push(...render(withEnv(this.ctx, ref, logs).ready, vars));
        }
        if (!sampling || md.kind !== "service") return out;
        // requests come when they come: the next sample a period later, give or take half of it
        st.nextSample = now + Math.round(SAMPLE_MS * (0.5 + rnd()));
        const s = this.flows.state(ref.pod.metadata.namespace ?? "").services.get(md.m.key);
        const rate = (s?.sends ?? 0) / Math.max(1, s?.pods.length ?? 1) + this.flows.podRps(ref.pod, md.m);
        return [...out, ...sample(this.ctx, this.flows, md.m, pod, now, rnd, { rate, periodMs: SAMPLE_MS })];
      }
    }
    return [];
  }

  /** What the application writes as it starts. */
  private startLines(ref: ContainerRef, md: Model, pod: Pod, vars: Vars, limit: number): string[] {
    const logs = withEnv(this.ctx, ref, md.kind === "service" ? md.m.logs : md.s.logs);
    // a variable the application needs is unset: it says so and stops (mustMapEnv's panic)
    const missing = this.missing(ref, md);
    if (missing.length)
      return [...render(logs.startup, vars), ...render(logs.missingEnv, { ...vars, var: missing[0] })];
    // a host it resolves while reading its configuration did not resolve (nginx's [emerg])
    const unresolved = this.unresolved(ref, md);
    if (unresolved.length && md.kind === "service")
      return [
        ...render(logs.startup, vars),
        ...render(md.m.logs.hostNotFound, { ...vars, dep: unresolved[0] }),
      ];
    // an optional dependency without its variable: the application says it goes without
    const skipped =
      md.kind === "service"
        ? skippedAtStart(this.ctx, pod, md.m, systemOf(md.m).edges.get(md.m.key) ?? [], ref.restartCount)
        : [];
    const note = skipped.length ? render(logs.missingEnv, { ...vars, var: skipped[0] }) : [];
    // a start that needs more than the limit runs out of memory (the JVM's heap, Python's MemoryError)
    const need = md.rt.memory * MiB;
    return [
      // the pod's first start finds its emptyDir data directory empty: the store initializes it
      ...(ref.restartCount === 0 ? render(logs.initialize, vars) : []),
      ...render(logs.startup, vars),
      ...note,
      ...(limit > 0 && need > limit ? render(logs.oom, vars) : []),
    ];
  }

  pastLines(ref: ContainerRef, from: number, to: number): { at: number; text: string }[] {
    const md = this.modelOf(ref);
    if (md?.kind !== "service" || (this.program(ref) && !this.launched(ref))) return [];
    const pod = ref.pod as Pod;
    const key = instanceKey(ref.pod, ref.container.name, ref.restartCount);
    const out: { at: number; text: string }[] = [];
    const s = this.flows.state(pod.metadata.namespace ?? "").services.get(md.m.key);
    const rate = (s?.sends ?? 0) / Math.max(1, s?.pods.length ?? 1) + this.flows.podRps(ref.pod, md.m);
    // one sample a period, give or take half of it, as the ticks of a running pod write them
    const rng = new Rng(`${key}/past/${from}`);
    const rnd = () => rng.next();
    for (let t = from + Math.round(SAMPLE_MS * rnd()); t < to; t += Math.round(SAMPLE_MS * (0.5 + rnd())))
      for (const text of sample(this.ctx, this.flows, md.m, pod, t, rnd, { rate, periodMs: SAMPLE_MS }))
        out.push({ at: t, text });
    return out;
  }

  private state(key: string, startedAt: number): LogState {
    let st = this.logState.get(key);
    if (!st) {
      if (this.logState.size >= MAX_INSTANCES) this.logState.delete(this.logState.keys().next().value!);
      st = { started: false, ready: false, nextSample: startedAt };
      this.logState.set(key, st);
    }
    return st;
  }
}
