// `microremed sim`: run the embedded cluster in the foreground until SIGINT/SIGTERM.
import { resolve } from "node:path";
import type { Command } from "commander";
import { parseEgress } from "../runner/options.js";
import { parseNonNegativeInt, parsePositive } from "../util/parse.js";

export function registerSim(program: Command) {
  program
    .command("sim")
    .description(
      "Start the embedded Kubernetes cluster on 127.0.0.1 and write a kubeconfig for kubectl, ansible and client-node",
    )
    .option("--port <n>", "port to listen on (default: a free port)", (v) =>
      parseNonNegativeInt(v, "--port", "0"),
    )
    .option("--kubeconfig <path>", "where to write the kubeconfig", ".microremed/sim.kubeconfig")
    .option(
      "--speed <factor>",
      "cluster clock speed (60: a minute of cluster time per second)",
      (v) => parsePositive(v, "--speed"),
      1,
    )
    .option("--seed <seed>", "seed for names and random choices", "42")
    .option(
      "--env <name|dir...>",
      "systems to model: built-in names or folders with an env.yaml (default: every built-in system)",
    )
    .option(
      "--egress <mode>",
      "outside addresses: internet (they answer, as from a k3s node with Internet access) or none (air-gapped)",
      parseEgress,
      "internet",
    )
    .action(
      async (opts: {
        port?: number;
        kubeconfig: string;
        speed: number;
        seed: string;
        egress: "internet" | "none";
        env?: string[];
      }) => {
        const cluster = await (await import("./embedded.js")).startEmbeddedCluster({
          port: opts.port,
          speed: opts.speed,
          seed: opts.seed,
          egress: opts.egress,
          envs: opts.env,
        });
        const path = cluster.writeKubeconfig(resolve(opts.kubeconfig));
        process.stdout.write(
          `embedded cluster ready at ${cluster.url} (speed ${opts.speed}); kubeconfig: ${path} — try: KUBECONFIG=${path} kubectl get nodes\n`,
        );
        await new Promise<void>((done) => {
          const stop = () => {
            cluster.stop().then(done, done);
          };
          process.once("SIGINT", stop);
          process.once("SIGTERM", stop);
        });
        process.stdout.write("embedded cluster stopped\n");
      },
    );
}
