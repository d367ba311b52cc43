// OpenAI-compatible servers through the real `openai` SDK: the text protocol for models without
// native tools, DeepSeek's usage fields, keyless local servers, and servers that report no usage.
import { afterEach, describe, expect, it } from "vitest";
import { MicroRemedError } from "../../src/errors.js";
import { resolveModel } from "../../src/llm/registry.js";
import type { ChatMessage, ToolSchema } from "../../src/llm/types.js";
import { readPlaybook } from "../../src/methods/answer.js";
import { delta, openaiFrames, recordingClock, startWireServer, type WireServer } from "./wire-server.js";

const TOOLS: ToolSchema[] = [
  {
    name: "print_playbook",
    description: "Submit the playbook.",
    parameters: { type: "object", properties: { playbook: { type: "string" } }, required: ["playbook"] },
  },
];
const ASK: ChatMessage[] = [
  { role: "system", content: "You repair systems." },
  { role: "user", content: "network delay in frontend" },
];
const usageChunk = (usage: object) => ({
  id: "c",
  object: "chat.completion.chunk",
  created: 1,
  model: "m",
  choices: [],
  usage,
});

let server: WireServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe("openai-compatible provider", () => {
  it("drives a model without native tools through the Action / Action Input text protocol", async () => {
    server = await startWireServer(() => ({
      sse: openaiFrames([
        delta({ role: "assistant", content: "Remove the delay.\nAction: print_" }),
        delta({ content: 'playbook\nAction Input: {"playbook": "- hosts: localhost\\n' }),
        delta({ content: '  tasks: []"}' }, "stop"),
        usageChunk({ prompt_tokens: 400, completion_tokens: 40, total_tokens: 440 }),
      ]),
    }));
    // vllm/<model>: a local server, no key, base URL from VLLM_BASE_URL, text protocol by default.
    const model = resolveModel("vllm/Qwen2.5-7B-Instruct", { env: { VLLM_BASE_URL: `${server.url}/v1` } });
    const history: ChatMessage[] = [
      ...ASK,
      {
        role: "assistant",
        content: "",
        toolCalls: [{ id: "c0", name: "print_playbook", arguments: '{"playbook": "x"}' }],
      },
      { role: "tool", toolCallId: "c0", name: "print_playbook", content: "verification failed" },
    ];
    const res = await model.generate({ messages: history, tools: TOOLS, role: "generator" });

    expect(res.message.toolCalls).toEqual([
      {
        id: "text-call-1",
        name: "print_playbook",
        arguments: '{"playbook": "- hosts: localhost\\n  tasks: []"}',
      },
    ]);
    expect(readPlaybook(res.message)).toEqual({
      playbook: "- hosts: localhost\n  tasks: []",
      callId: "text-call-1",
    });
    expect(res.usage).toEqual({ inputTokens: 400, outputTokens: 40, costUsd: 0 });

    const body = server.seen[0].body;
    expect(body.model).toBe("Qwen2.5-7B-Instruct");
    expect(body.tools).toBeUndefined();
    expect(body.max_tokens).toBeUndefined();
    expect(body.messages![0].content).toContain("You repair systems.");
    expect(body.messages![0].content).toContain("- print_playbook: Submit the playbook.");
    expect(body.messages![0].content).toContain("Action Input: <JSON arguments>");
    // Earlier calls and results are written back as text the model can read.
    expect(body.messages![2]).toEqual({
      role: "assistant",
      content: 'Action: print_playbook\nAction Input: {"playbook": "x"}',
    });
    expect(body.messages![3]).toEqual({
      role: "user",
      content: "Observation (print_playbook): verification failed",
    });
  });

  it("reads DeepSeek's own cache fields and sends max_tokens to deepseek/ models", async () => {
    server = await startWireServer(() => ({
      sse: openaiFrames([
        delta({ role: "assistant", content: "ok" }, "stop"),
        usageChunk({
          prompt_tokens: 900,
          completion_tokens: 100,
          total_tokens: 1000,
          prompt_cache_hit_tokens: 800,
          prompt_cache_miss_tokens: 100,
        }),
      ]),
    }));
    const model = resolveModel("deepseek/deepseek-chat", {
      baseUrl: server.url,
      env: { DEEPSEEK_API_KEY: "ds-key" },
    });
    const res = await model.generate({ messages: ASK, tools: TOOLS, role: "generator" });
    expect(res.usage).toEqual({
      inputTokens: 900,
      outputTokens: 100,
      cachedTokens: 800,
      costUsd: (100 * 0.28 + 800 * 0.028 + 100 * 0.42) / 1e6,
    });
    const req = server.seen[0];
    expect(req.headers.authorization).toBe("Bearer ds-key");
    expect(req.body).toMatchObject({ model: "deepseek-chat", max_tokens: 8192 });
    expect(req.body.max_completion_tokens).toBeUndefined();
    expect(req.body.tools).toHaveLength(1);
  });

  it("estimates characters / 4, flagged, only when the server reports no usage", async () => {
    server = await startWireServer(() => ({
      sse: openaiFrames([delta({ role: "assistant", content: "12345678" }, "stop")]),
    }));
    const model = resolveModel("openai-compatible:local-model", { env: { MICROREMED_BASE_URL: server.url } });
    const res = await model.generate({
      messages: [{ role: "user", content: "abcd" }],
      tools: [],
      role: "generator",
    });
    expect(res.usage).toEqual({ inputTokens: 1, outputTokens: 2, estimated: true });
  });

  it("gives the one-line key error for a keyless server that wants a key", async () => {
    server = await startWireServer(() => ({ status: 401, json: { error: { message: "Unauthorized" } } }));
    const { clock } = recordingClock();
    const model = resolveModel("ollama/llama3.1", { env: { OLLAMA_BASE_URL: `${server.url}/v1` }, clock });
    const e = await model
      .generate({ messages: ASK, tools: TOOLS, role: "generator" })
      .catch((err: unknown) => err);
    expect(e).toBeInstanceOf(MicroRemedError);
    expect((e as MicroRemedError).code).toBe("E_MISSING_API_KEY");
    expect((e as MicroRemedError).oneLine()).toContain("no API key was set");
  });

  it("leaves a reply without an Action as text, and an unknown tool name uncalled", async () => {
    server = await startWireServer((_r, n) => ({
      sse: openaiFrames([
        delta(
          {
            role: "assistant",
            content:
              n === 1 ? "I think the pod is fine." : 'Action: delete_everything\nAction Input: {"x": 1}',
          },
          "stop",
        ),
      ]),
    }));
    const model = resolveModel("ollama/llama3.1", { env: { OLLAMA_BASE_URL: `${server.url}/v1` } });
    const plain = await model.generate({ messages: ASK, tools: TOOLS, role: "generator" });
    expect(plain.message.toolCalls).toBeUndefined();
    const unknown = await model.generate({ messages: ASK, tools: TOOLS, role: "generator" });
    expect(unknown.message.toolCalls).toBeUndefined();
  });

  it("reads a server that ignores stream: true and answers one chat.completion body", async () => {
    server = await startWireServer(() => ({
      status: 200,
      json: {
        id: "c1",
        object: "chat.completion",
        created: 1,
        model: "m",
        choices: [
          {
            index: 0,
            finish_reason: "tool_calls",
            // no `type` on the call: some servers leave it out
            message: {
              role: "assistant",
              content: null,
              tool_calls: [{ id: "t1", function: { name: "print_playbook", arguments: '{"playbook":"x"}' } }],
            },
          },
        ],
        usage: { prompt_tokens: 50, completion_tokens: 7, total_tokens: 57 },
      },
    }));
    const model = resolveModel("openai-compatible:gateway-model", {
      env: { MICROREMED_BASE_URL: server.url },
      tools: "native",
    });
    const res = await model.generate({ messages: ASK, tools: TOOLS, role: "generator" });
    expect(server.seen[0].body.stream).toBe(true);
    expect(res.message).toEqual({
      role: "assistant",
      content: "",
      toolCalls: [{ id: "t1", name: "print_playbook", arguments: '{"playbook":"x"}' }],
    });
    expect(res.usage).toEqual({ inputTokens: 50, outputTokens: 7 });
  });

  it("reads a whole text answer without usage the same way, estimating the tokens", async () => {
    server = await startWireServer(() => ({
      status: 200,
      json: {
        id: "c2",
        object: "chat.completion",
        created: 1,
        model: "m",
        choices: [{ index: 0, finish_reason: "stop", message: { role: "assistant", content: "12345678" } }],
      },
    }));
    const model = resolveModel("openai-compatible:gateway-model", {
      env: { MICROREMED_BASE_URL: server.url },
    });
    const res = await model.generate({
      messages: [{ role: "user", content: "abcd" }],
      tools: [],
      role: "generator",
    });
    expect(res.message.content).toBe("12345678");
    expect(res.usage).toEqual({ inputTokens: 1, outputTokens: 2, estimated: true });
  });
});
