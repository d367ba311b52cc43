// The noise's plan (--noise): from the seed, the case and its trial alone; every kind a system
// allows comes up with some seed (a ConfigMap edit only where the system has ConfigMaps: of the
// three, Train-Ticket alone), different seeds give different plans, the same seed the same one,
// and the faults' targets are never chosen.
import { describe, expect, it } from "vitest";
import { type EnvSpec, listEnvs, loadEnv as load } from "../../src/envs/env.js";
import { EDIT_ANNOTATION, type NoiseKind, planNoise } from "../../src/noise/plan.js";

const loaded = new Map<string, EnvSpec>();
const loadEnv = (name: string) => loaded.get(name) ?? loaded.set(name, load(name)).get(name)!;
const names = (env: EnvSpec, kind: string) =>
  env.manifests.filter((m) => m.kind === kind).map((m) => m.metadata!.name!);
const SEEDS = Array.from({ length: 200 }, (_, i) => i + 1);
const plan = (env: EnvSpec, seed: number, key = "1#1", avoid: string[] = []) =>
  planNoise(seed, key, names(env, "Deployment"), names(env, "ConfigMap"), avoid);

describe("planNoise", () => {
  it("reaches every kind the system allows with some seed; a ConfigMap edit only on Train-Ticket, the one system with ConfigMaps", () => {
    const withConfigMaps = listEnvs().filter((e) => names(loadEnv(e), "ConfigMap").length > 0);
    expect(withConfigMaps).toEqual(["train-ticket"]);
    for (const name of listEnvs()) {
      const env = loadEnv(name);
      const kinds = new Set(SEEDS.flatMap((s) => plan(env, s).map((e) => e.kind)));
      const allowed: NoiseKind[] = ["pod-restart", "warning-event", "cpu-burst"];
      if (withConfigMaps.includes(name)) allowed.push("configmap-edit");
      expect([...kinds].sort(), name).toEqual(allowed.sort());
    }
  });

  it("the same seed, case and trial give the same plan; other seeds, cases or trials other plans", () => {
    const env = loadEnv("online-boutique");
    for (const s of SEEDS.slice(0, 20)) expect(plan(env, s)).toEqual(plan(env, s));
    const distinct = (plans: unknown[]) => new Set(plans.map((p) => JSON.stringify(p))).size;
    expect(distinct(SEEDS.slice(0, 20).map((s) => plan(env, s)))).toBeGreaterThanOrEqual(19);
    expect(plan(env, 1)).not.toEqual(plan(env, 2));
    expect(plan(env, 7, "1#1")).not.toEqual(plan(env, 7, "2#1"));
    expect(plan(env, 7, "1#1")).not.toEqual(plan(env, 7, "1#2"));
  });

  it("never aims at a fault's target; with every workload a target, plans nothing", () => {
    for (const name of listEnvs()) {
      const env = loadEnv(name);
      const targets = [...new Set(Object.values(env.faultTargets).flat())];
      for (const target of targets)
        for (const s of SEEDS.slice(0, 30)) {
          const events = plan(env, s, "3#1", [target]);
          expect(events.length, `${name} ${target} seed ${s}`).toBeGreaterThanOrEqual(2);
          expect(
            events.map((e) => e.target),
            `${name} ${target} seed ${s}`,
          ).not.toContain(target);
        }
      // and a target that every seed would otherwise pick now and then
      const hit = SEEDS.filter((s) => plan(env, s).some((e) => e.target === targets[0]));
      expect(hit.length, name).toBeGreaterThan(0);
      expect(plan(env, 1, "1#1", names(env, "Deployment"))).toEqual([]);
    }
  });

  it("edits ConfigMaps with an annotation of its own, which no system's manifest sets (undoing it restores the deployed object)", () => {
    for (const name of listEnvs())
      for (const m of loadEnv(name).manifests)
        expect(
          m.metadata?.annotations?.[EDIT_ANNOTATION],
          `${name} ${m.kind}/${m.metadata?.name}`,
        ).toBeUndefined();
    const tt = loadEnv("train-ticket");
    const edits = SEEDS.flatMap((s) => plan(tt, s)).filter((e) => e.kind === "configmap-edit");
    expect(edits.length).toBeGreaterThan(0);
    for (const e of edits) expect(e.detail).toMatch(new RegExp(`^annotation ${EDIT_ANNOTATION}=\\d{8}$`));
  });
});
