// `microremed doctor`: are the tools there, does the cluster answer, does it serve Chaos Mesh and
// the metrics API, which API keys are set. Each line says what to do when something is missing.
import type { Command } from "commander";
import { providerKeyStatus } from "../llm/keys.js";
import { sandboxSupport } from "../sandbox/support.js";
import { parsePositive } from "../util/parse.js";
import { type ClusterFlags, openCluster } from "./cluster.js";
import { execCheck, kubectlInfo } from "./doctor-exec.js";
import { toolStatus } from "./tools.js";

export function registerDoctor(program: Command) {
  program
    .command("doctor")
    .description("Check tools, cluster, Chaos Mesh CRDs, metrics API and API keys")
    .option(
      "--cluster <sim|kube>",
      "check the embedded cluster (sim) or the cluster of a kubeconfig (kube)",
      "sim",
    )
    .option("--kubeconfig <file>", "kubeconfig for --cluster kube")
    .option("--context <name>", "kubeconfig context")
    .option("--speed <factor>", "embedded cluster clock speed", (v) => parsePositive(v, "--speed"), 60)
    .action(async (o: ClusterFlags) => {
      const lines: string[] = [];
      let bad = 0;
      const line = (ok: boolean, what: string, fix?: string) => {
        if (!ok) bad++;
        lines.push(`${ok ? "ok  " : "FAIL"} ${what}${!ok && fix ? ` — fix: ${fix}` : ""}`);
      };
      for (const t of await toolStatus())
        line(t.found, `${t.name}${t.version ? ` (${t.version})` : " not found"}`, t.fix);
      const sandbox = await sandboxSupport();
      if (sandbox.ok) line(true, `sandbox: playbooks run in bubblewrap (${sandbox.version})`);
      else line(false, `sandbox: ${sandbox.reason}, so run refuses unless --sandbox none`, sandbox.fix);
      try {
        const c = await openCluster(o);
        try {
          const v = await c.client.version();
          line(true, `cluster answers at ${c.client.server} (${v.gitVersion}, clock speed ${c.time.speed})`);
          for (const kind of ["StressChaos", "NetworkChaos", "PodChaos", "IOChaos"]) {
            line(
              await c.client.serves("chaos-mesh.org/v1alpha1", kind),
              `Chaos Mesh ${kind} CRD`,
              "install Chaos Mesh 2.7 (scripts/install.sh)",
            );
          }
          line(
            await c.client.serves("metrics.k8s.io/v1beta1", "PodMetrics"),
            "metrics API (metrics.k8s.io)",
            "install metrics-server (k3s ships it)",
          );
          const kubectl = await kubectlInfo();
          if (kubectl) {
            const ex = await execCheck(kubectl.path, c.kubeconfigPath, o.cluster !== "kube");
            line(
              ex.ok,
              `exec: kubectl ${kubectl.version} (${kubectl.path}) over ${kubectl.transport} ${ex.ok ? "works" : "fails"} ${ex.detail}`,
              "check that your user may create pods/exec, or use kubectl 1.30+ (WebSocket exec)",
            );
          }
        } finally {
          await c.close();
        }
      } catch (e) {
        line(
          false,
          `cluster: ${(e as Error).message}`,
          o.cluster === "kube"
            ? "check --kubeconfig/--context and that the cluster runs"
            : "report this: the embedded cluster failed to start",
        );
      }
      for (const k of providerKeyStatus())
        lines.push(
          `${k.set ? "ok  " : "--  "} ${k.provider}: ${k.set ? `key from ${k.variable}` : `no key (set ${k.variables.join(" or ")} to use its models)`}`,
        );
      process.stdout.write(`${lines.join("\n")}\n`);
      process.exitCode = bad ? 1 : 0;
    });
}
