// `microremed env init DIR`: write a small working system to start from (two services in a call
// chain, the format the built-in envs use); `microremed env check NAME|DIR`: load one and say what
// it holds, or which file and line is wrong and how to fix it.
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import type { Command } from "commander";
import { envsDir, loadEnv } from "../envs/env.js";
import { usageError } from "../errors.js";

const STARTER = "simple-micro";

function envYaml(name: string): string {
  return `# A system for MicroRemed: the files of this folder, checked when it is loaded
# (microremed env check <this folder>). Start from this one and change it.
#   name                 system id
#   defaultNamespace     namespace the runner deploys into unless told otherwise (--namespace)
#   manifests            everything to deploy (kubectl apply -n <ns> -f), relative to this folder
#   sourceConfig         the fault targets' original Deployments, applied to restore a target
#   topology             what the embedded cluster models per workload: ports, calls, stores,
#                        resource use, start-up time, log lines (fields: topology.yaml's header)
#   readyTimeoutSeconds  how long (cluster time) a deploy or restore may take to become Ready
#   faultTargets         per failure id, the Deployments a case may target
#   pingTarget           app labels whose pod IPs the network checks ping (not the target's own)

name: ${name}
defaultNamespace: ${name}
manifests: manifests.yaml
sourceConfig: source-config.yaml
topology: topology.yaml
readyTimeoutSeconds: 300

faultTargets:
  cpu-stress: [hello-service, time-service]
  memory-stress: [hello-service, time-service]
  disk-io: [hello-service, time-service]
  network-loss: [hello-service, time-service]
  network-delay: [hello-service, time-service]
  pod-fail: [hello-service, time-service]
  pod-config-error: [hello-service, time-service]

pingTarget:
  apps: [time-service, hello-service]
`;
}

const NAME = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

export function initEnv(dir: string, name: string, force = false): string {
  const out = resolve(dir);
  if (!NAME.test(name) || name.length > 63)
    throw usageError(`"${name}" is not a DNS-1123 name`, "pass --name with lower-case letters, digits and -");
  if (existsSync(join(out, "env.yaml")) && !force)
    throw usageError(
      `${out} already holds an env.yaml`,
      "pick an empty folder, or pass --force to overwrite",
    );
  mkdirSync(out, { recursive: true });
  const from = join(envsDir(), STARTER);
  copyFileSync(join(from, "manifests.yaml"), join(out, "manifests.yaml"));
  copyFileSync(join(from, "source-config.yaml"), join(out, "source-config.yaml"));
  const topology = readFileSync(join(from, "topology.yaml"), "utf8").replace(
    /^system: simple-micro$/m,
    `system: ${name}`,
  );
  writeFileSync(join(out, "topology.yaml"), topology);
  writeFileSync(join(out, "env.yaml"), envYaml(name));
  return out;
}

export function registerEnv(program: Command) {
  const env = program.command("env").description("Systems to run cases on: write a new one, check one");
  env
    .command("init")
    .description("Write a small working system (two services in a call chain) into DIR to start from")
    .argument("<dir>", "folder to write (created if missing)")
    .option("--name <name>", "system id and default namespace (default: the folder's name)")
    .option("--force", "overwrite an existing env.yaml", false)
    .action((dir: string, o: { name?: string; force: boolean }) => {
      const name =
        o.name ??
        basename(resolve(dir))
          .toLowerCase()
          .replace(/[^a-z0-9-]+/g, "-");
      const out = initEnv(dir, name, o.force);
      loadEnv(out); // what was written must load
      process.stdout.write(
        `wrote ${name} to ${out}: env.yaml, manifests.yaml, source-config.yaml, topology.yaml\n` +
          `try: microremed run --env ${dir} --model oracle --experiment-path experiments/pod-fail.txt --experiments 1\n`,
      );
    });
  env
    .command("check")
    .description("Load a system (a built-in name or a folder) and check its files against the schemas")
    .argument("<env>", "a built-in env name or a folder with an env.yaml")
    .action((nameOrDir: string) => {
      const e = loadEnv(nameOrDir);
      const workloads = e.manifests.filter((m) => m.kind === "Deployment" || m.kind === "StatefulSet");
      process.stdout.write(
        `${e.name} (${e.dir}): ${workloads.length} workloads, ${Object.keys(e.topology.services).length} modelled, ` +
          `failures ${Object.keys(e.faultTargets).join(", ")}; namespace ${e.defaultNamespace}\n`,
      );
    });
}
