// --base-url through the built CLI: `run --model openai-compatible:<model> --base-url URL` is all
// a local OpenAI-compatible server (vLLM, Ollama) needs. The server here speaks the wire protocol
// (SSE chat completions, as in compatible.test.ts) and answers with the text protocol's
// `Action: print_playbook` / `Action Input: {...}` reply, whose playbook fixes the pod failure.
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { checkBuilt, cli, lastLine, readCases, tmp, write } from "../cli/cli-helpers.js";
import { delta, openaiFrames, startWireServer, type WireServer } from "./wire-server.js";

const FIX =
  "- hosts: localhost\n  gather_facts: false\n  tasks:\n    - ansible.builtin.shell: kubectl rollout restart deployment/time-service -n simple-micro && kubectl rollout status deployment/time-service -n simple-micro --timeout=600s\n";

let server: WireServer | undefined;
beforeAll(checkBuilt);
afterEach(async () => {
  await server?.close();
  server = undefined;
});

function runArgs(dir: string, exp: string, extra: string[]): string[] {
  return [
    "run",
    "--env",
    "simple-micro",
    "--remediate-method",
    "SoloGen",
    "--model",
    "openai-compatible:my-local-model",
    "--experiment-path",
    exp,
    "--save-path",
    dir,
    "--run-name",
    "base-url",
    "--speed",
    "600",
    "--settle",
    "5",
    ...extra,
  ];
}

/** A server that streams the text protocol's print_playbook reply with the fix. */
const streamingFixer = () =>
  startWireServer(() => ({
    sse: openaiFrames([
      delta({ role: "assistant", content: "Restart it.\nAction: print_playbook\nAction Input: " }),
      delta({ content: JSON.stringify({ playbook: FIX }) }, "stop"),
    ]),
  }));

function onePodFail() {
  const dir = tmp("mr-base-url-");
  return { dir, exp: write(dir, "one.yaml", "cases:\n  - {failure: pod-fail, target: time-service}\n") };
}

describe("--base-url", () => {
  it("points an openai-compatible model at a local server, which solves the case", async () => {
    server = await streamingFixer();
    const { dir, exp } = onePodFail();
    const r = await cli(runArgs(dir, exp, ["--base-url", `${server.url}/v1`]), { timeout: 300_000 });
    expect(r.exitCode, r.stderr).toBe(0);
    // the SDK called the server given on the command line, with the model named after the colon
    expect(server.seen.length).toBeGreaterThan(0);
    expect(server.seen[0].url).toBe("/v1/chat/completions");
    expect(server.seen[0].body.model).toBe("my-local-model");
    const [c] = readCases(join(dir, "base-url"));
    expect(c).toMatchObject({ failure: "pod-fail", status: "success" });
  });

  it("talks to the server of --base-url for a model id no registry entry routes, which answers without streaming", async () => {
    // a gateway that ignores stream: true and answers one chat.completion body
    server = await startWireServer(() => ({
      status: 200,
      json: {
        id: "c1",
        object: "chat.completion",
        created: 1,
        model: "my-model",
        choices: [
          {
            index: 0,
            finish_reason: "stop",
            message: {
              role: "assistant",
              content: `Restart it.\nAction: print_playbook\nAction Input: ${JSON.stringify({ playbook: FIX })}`,
            },
          },
        ],
        usage: { prompt_tokens: 900, completion_tokens: 60, total_tokens: 960 },
      },
    }));
    const dir = tmp("mr-base-url-");
    const exp = write(dir, "one.yaml", "cases:\n  - {failure: pod-fail, target: time-service}\n");
    const args = runArgs(dir, exp, ["--base-url", `${server.url}/v1`]);
    args[args.indexOf("openai-compatible:my-local-model")] = "my-model";
    const r = await cli(args, { timeout: 300_000 });
    expect(r.exitCode, r.stderr).toBe(0);
    // said in one line when the run starts
    expect(r.stderr).toContain(
      `model "my-model" is in no entry of the model registry: asking the OpenAI-compatible server at ${server.url}/v1\n`,
    );
    expect(server.seen[0].body.model).toBe("my-model");
    const [c] = readCases(join(dir, "base-url"));
    expect(c).toMatchObject({ failure: "pod-fail", status: "success", model: "my-model" });
    expect(c.tokens).toMatchObject({ inputTokens: 900, outputTokens: 60 });
  });

  it("asks the server of --base-url for a registry id too (a local vLLM serving Qwen), with no DashScope key", async () => {
    server = await streamingFixer();
    const { dir, exp } = onePodFail();
    const args = runArgs(dir, exp, ["--base-url", `${server.url}/v1`]);
    args[args.indexOf("openai-compatible:my-local-model")] = "qwen2.5-7b-instruct";
    const env = { ...process.env };
    for (const k of ["DASHSCOPE_API_KEY", "LLM_API_KEY"]) delete env[k];
    const r = await cli(args, { timeout: 300_000, env });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toContain(
      `model "qwen2.5-7b-instruct": asking the OpenAI-compatible server of --base-url at ${server.url}/v1 for "qwen2.5-7b-instruct", not dashscope\n`,
    );
    expect(server.seen[0].body.model).toBe("qwen2.5-7b-instruct");
    expect(readCases(join(dir, "base-url"))[0]).toMatchObject({ status: "success" });
  });

  it("without it (and without MICROREMED_BASE_URL) the run stops before any case, naming the fix", async () => {
    const dir = tmp("mr-base-url-");
    const exp = write(dir, "one.yaml", "cases:\n  - {failure: pod-fail, target: time-service}\n");
    const r = await cli(runArgs(dir, exp, []));
    expect(r.exitCode).not.toBe(0);
    expect(r.stderr).toMatch(/needs the URL of an OpenAI-compatible server/);
  });

  it("refuses a value that is not an http(s) URL", async () => {
    const r = await cli(
      runArgs(tmp("mr-base-url-"), "experiments/pod-fail.txt", ["--base-url", "localhost:8000"]),
    );
    expect(r.exitCode).not.toBe(0);
    expect(lastLine(r.stderr)).toMatch(/--base-url must be an http\(s\) URL.*http:\/\/127\.0\.0\.1:8000\/v1/);
  });
});
