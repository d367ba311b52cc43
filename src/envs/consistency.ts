// What an env's files must agree on, beyond each file's schema: the targets and the topology name
// workloads the manifests deploy, and the call graph names services the topology has. Each error
// names the file and line of the offending entry and what to write instead.
import type { KObj } from "../cluster/objects.js";
import { MicroRemedError } from "../errors.js";
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
