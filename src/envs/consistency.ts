// What an env's files must agree on, beyond each file's schema: the targets and the topology name
// workloads the manifests deploy, and the call graph names services the topology has. Each error
// names the file and line of the offending entry and what to write instead.

import { MicroRemedError } from "../errors.js";
import type { KObj } from "../kube/objects.js";
import type { EnvSpec } from "./spec.js";
import { lineOf, type YamlFile } from "./yaml-schema.js";

function workloads(manifests: KObj[]): string[] {
  return manifests
    .filter((m) => m.kind === "Deployment" || m.kind === "StatefulSet")
    .map((m) => String(m.metadata?.name));
}

export function checkConsistent(env: EnvSpec, envFile: YamlFile, topFile: YamlFile): void {
  const deployed = workloads(env.manifests);
  const deployments = env.manifests
    .filter((m) => m.kind === "Deployment")
    .map((m) => String(m.metadata?.name));
  const bad = (y: YamlFile, pointer: string, message: string, fix: string) =>
    new MicroRemedError("E_CONFIG", `${y.file}:${lineOf(y, pointer)}: ${message}`, fix);

  if (env.topology.system !== env.name)
    throw bad(
      topFile,
      "/system",
      `system "${env.topology.system}" is not the env's name`,
      `write system: ${env.name}`,
    );
  for (const [failure, targets] of Object.entries(env.faultTargets))
    targets.forEach((t, i) => {
      if (!deployments.includes(t))
        throw bad(
          envFile,
          `/faultTargets/${failure}/${i}`,
          `faultTargets.${failure}: "${t}" is not a Deployment of the manifests`,
          `use one of: ${deployments.join(", ") || "(the manifests deploy no Deployment)"}`,
        );
    });
  env.pingTarget.apps.forEach((a, i) => {
    if (!deployed.includes(a))
      throw bad(
        envFile,
        `/pingTarget/apps/${i}`,
        `pingTarget.apps: "${a}" is not a workload of the manifests`,
        `use one of: ${deployed.join(", ")}`,
      );
  });
  const keys = Object.keys(env.topology.services);
  for (const [key, svc] of Object.entries(env.topology.services)) {
    if (!deployed.includes(key))
      throw bad(
        topFile,
        `/services/${key}`,
        `services.${key} is not a Deployment or StatefulSet of the manifests`,
        `key each service by its workload's name: ${deployed.join(", ")}`,
      );
    (svc.calls ?? []).forEach((c, i) => {
      if (!keys.includes(c))
        throw bad(
          topFile,
          `/services/${key}/calls/${i}`,
          `services.${key}.calls: "${c}" is not a service of this topology`,
          `call one of: ${keys.join(", ")}`,
        );
    });
  }
  for (const [key, svc] of Object.entries(env.topology.services)) checkDials(key, svc, topFile, bad);
  (env.topology.entry ?? []).forEach((e, i) => {
    if (!keys.includes(e.service))
      throw bad(
        topFile,
        `/entry/${i}/service`,
        `entry: "${e.service}" is not a service of this topology`,
        `use one of: ${keys.join(", ")}`,
      );
  });
}

type Bad = (y: YamlFile, pointer: string, message: string, fix: string) => MicroRemedError;
type TopologyService = EnvSpec["topology"]["services"][string];

/** A service's `dial` names its own calls and stores, each way complete; its routes call its calls. */
function checkDials(key: string, svc: TopologyService, topFile: YamlFile, bad: Bad): void {
  const deps = [...(svc.calls ?? []), ...Object.keys(svc.stores ?? {})];
  for (const [dep, d] of Object.entries(svc.dial ?? {})) {
    const at = `/services/${key}/dial/${dep}`;
    if (!deps.includes(dep))
      throw bad(
        topFile,
        at,
        `services.${key}.dial: "${dep}" is neither a call nor a store of ${key}`,
        `dial one of: ${deps.join(", ")}`,
      );
    if (d.via === "env" && !d.var && !(d.hostVar && d.portVar))
      throw bad(
        topFile,
        at,
        `services.${key}.dial.${dep}: via env names no variable`,
        "add var (host:port), or hostVar and portVar",
      );
    if (d.via === "fixed" && !d.address)
      throw bad(
        topFile,
        at,
        `services.${key}.dial.${dep}: via fixed names no address`,
        "add address: host:port",
      );
  }
  (svc.routes ?? []).forEach((r, i) => {
    for (const c of [...r.calls, ...(r.soft ?? [])])
      if (!(svc.calls ?? []).includes(c))
        throw bad(
          topFile,
          `/services/${key}/routes/${i}`,
          `services.${key}.routes: "${c}" is not a call of ${key}`,
          `call one of: ${(svc.calls ?? []).join(", ")}`,
        );
  });
}
