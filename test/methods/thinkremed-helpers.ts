// Real small implementations behind the method's seams: a scripted model from a YAML file, an
// executor that records playbooks and answers with given results, a verifier that answers with
// given verdicts, and a probe that records commands.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { stringify } from "yaml";
import type { ExecutionResult, Executor } from "../../src/ansible/executor.js";
import { accessText } from "../../src/identity/describe.js";
import { resolveModel } from "../../src/llm/registry.js";
import type { Model, ModelRequest } from "../../src/llm/types.js";
import type { MethodContext } from "../../src/methods/types.js";
import type { Verdict } from "../../src/verify/types.js";

export type Turn = {
  content?: string;
  toolCalls?: { name: string; arguments: string | Record<string, unknown> }[];
  usage?: { inputTokens?: number; outputTokens?: number };
  error?: string;
};

export const PLAYBOOK =
  "- hosts: localhost\n  gather_facts: false\n  tasks:\n    - command: kubectl -n shop rollout restart deploy/cart\n";
export const probe = (command: string, usage = { inputTokens: 100, outputTokens: 10 }): Turn => ({
  toolCalls: [{ name: "probe_system", arguments: { command } }],
  usage,
});
export const print = (playbook = PLAYBOOK, usage = { inputTokens: 200, outputTokens: 50 }): Turn => ({
  toolCalls: [{ name: "print_playbook", arguments: { playbook } }],
  usage,
});

export class RecordingExecutor implements Executor {
  readonly playbooks: string[] = [];
  constructor(private readonly results: Partial<ExecutionResult>[] = []) {}

  async run(playbook: string, opts: { caseDir: string; name: string }): Promise<ExecutionResult> {
    this.playbooks.push(playbook);
    const r = this.results[this.playbooks.length - 1] ?? {};
    return {
      playbookPath: join(opts.caseDir, `${opts.name}.yml`),
      accepted: true,
      ok: true,
      exitCode: 0,
      timedOut: false,
      durationMs: 5,
      output: "PLAY RECAP ok=2 failed=0",
      problems: [],
      tasks: [],
      warnings: [],
      sandbox: "none",
      ...r,
    };
  }
}

export function setup(
  turns: Turn[],
  o: {
    verdicts?: Verdict[];
    results?: Partial<ExecutionResult>[];
    maxAttempts?: number;
    noProbe?: boolean;
  } = {},
) {
  const dir = mkdtempSync(join(tmpdir(), "thinkremed-test-"));
  const file = join(dir, "script.yaml");
  writeFileSync(file, stringify({ turns }));
  const executor = new RecordingExecutor(o.results);
  const commands: string[] = [];
  let verifications = 0;
  const verdicts = o.verdicts ?? [
    { pass: true, reason: "cart is Running and Ready, CPU normal", measurements: {} },
  ];
  const ctx: MethodContext = {
    report: {
      namespace: "shop",
      service: "cart",
      failure: "cpu-stress",
      category: "resource",
      title: "CPU saturation",
      env: "simple-micro",
      runtimeContext: "$ kubectl get pods -n shop\ncart-1 1/1 Running",
      inventory: "[local]\nlocalhost",
    },
    identity: accessText("namespace", "shop"),
    model: resolveModel(`scripted:${file}`),
    executor,
    caseDir: dir,
    maxAttempts: o.maxAttempts ?? 2,
    scorer: {
      score: async () => {
        const v = verdicts[Math.min(verifications++, verdicts.length - 1)];
        return { ...v, reference: v, health: { pass: true, reason: "healthy", measurements: {} } };
      },
    },
    ...(o.noProbe
      ? {}
      : {
          prober: {
            probe: async (command: string) => {
              commands.push(command);
              return `observed: ${command}`;
            },
          },
        }),
  };
  return { ctx, executor, commands, verifications: () => verifications };
}

/** The model, recording each request it is asked (what the method showed it). */
export function recording(model: Model, seen: ModelRequest[]): Model {
  return {
    id: model.id,
    generate: (req) => {
      seen.push(req);
      return model.generate(req);
    },
  };
}
