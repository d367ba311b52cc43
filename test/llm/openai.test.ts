// The OpenAI provider through the real `openai` SDK against a local chat-completions server.
import { getEventListeners } from "node:events";
import { afterEach, describe, expect, it } from "vitest";
import { MicroRemedError } from "../../src/errors.js";
import { resolveModel } from "../../src/llm/registry.js";
import type { ChatMessage, ToolSchema } from "../../src/llm/types.js";
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
  { role: "user", content: "cpu saturation in ts-order-service" },
];
const ENV = { OPENAI_API_KEY: "sk-test" };

const usageChunk = (usage: object) => ({
  id: "chatcmpl-1",
  object: "chat.completion.chunk",
  created: 1,
  model: "m",
  choices: [],
  usage,
});
const okFrames = openaiFrames([
  delta({ role: "assistant", content: "done" }, "stop"),
  usageChunk({ prompt_tokens: 10, completion_tokens: 2, total_tokens: 12 }),
]);

let server: WireServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function failure(p: Promise<unknown>): Promise<MicroRemedError> {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(MicroRemedError);
  return e as MicroRemedError;
}

describe("openai provider", () => {
  it("leaves no listener on the run's signal after its calls: the SDK never takes off the one it adds", async () => {
    server = await startWireServer(() => ({ sse: okFrames }));
    const model = resolveModel("gpt-4o", { env: { ...ENV, OPENAI_BASE_URL: `${server.url}/v1` } });
    const run = new AbortController();
    for (let i = 0; i < 12; i++)
      await model.generate({ messages: ASK, tools: TOOLS, role: "generator", signal: run.signal });
    // without a signal per call, 12 (Node warns past 10: MaxListenersExceededWarning)
    expect(getEventListeners(run.signal, "abort")).toHaveLength(0);
  });

  it("a call follows the run's signal: aborting the run aborts the request in flight", async () => {
    const run = new AbortController();
    server = await startWireServer(() => {
      run.abort(new Error("interrupted"));
      return { sse: okFrames };
    });
    const model = resolveModel("gpt-4o", { env: { ...ENV, OPENAI_BASE_URL: `${server.url}/v1` } });
    const done = model.generate({ messages: ASK, tools: TOOLS, role: "generator", signal: run.signal });
    await expect(done).rejects.toThrow();
    expect(getEventListeners(run.signal, "abort")).toHaveLength(0);
  });

  it("streams a tool call split across chunks, with usage exactly as reported and its cost", async () => {
    server = await startWireServer(() => ({
      sse: openaiFrames([
        delta({ role: "assistant", content: "Restarting " }),
        delta({ content: "the service." }),
        delta({
          tool_calls: [
            { index: 0, id: "call_1", type: "function", function: { name: "print_playbook", arguments: "" } },
          ],
        }),
        delta({ tool_calls: [{ index: 0, function: { arguments: '{"play' } }] }),
        delta({ tool_calls: [{ index: 0, function: { arguments: 'book": "- hosts: ' } }] }),
        delta({ tool_calls: [{ index: 0, function: { arguments: 'localhost"}' } }] }, "tool_calls"),
        usageChunk({
          prompt_tokens: 1200,
          completion_tokens: 300,
          total_tokens: 1500,
          prompt_tokens_details: { cached_tokens: 1000 },
          completion_tokens_details: { reasoning_tokens: 64 },
        }),
      ]),
    }));
    const model = resolveModel("gpt-4o", { env: { ...ENV, OPENAI_BASE_URL: `${server.url}/v1` } });
    const history: ChatMessage[] = [
      ...ASK,
      {
        role: "assistant",
        content: "",
        toolCalls: [{ id: "call_0", name: "print_playbook", arguments: '{"playbook": "x"}' }],
      },
      { role: "tool", toolCallId: "call_0", name: "print_playbook", content: "FAILED: pod still crashing" },
    ];
    const res = await model.generate({ messages: history, tools: TOOLS, role: "generator" });

    expect(res.message).toEqual({
      role: "assistant",
      content: "Restarting the service.",
      toolCalls: [{ id: "call_1", name: "print_playbook", arguments: '{"playbook": "- hosts: localhost"}' }],
    });
    // 200 uncached at $2.50, 1000 cached at $1.25, 300 out at $10 (per million).
    expect(res.usage).toEqual({
      inputTokens: 1200,
      outputTokens: 300,
      cachedTokens: 1000,
      reasoningTokens: 64,
      costUsd: (200 * 2.5 + 1000 * 1.25 + 300 * 10) / 1e6,
    });

    const [req] = server.seen;
    expect(req.url).toBe("/v1/chat/completions");
    expect(req.headers.authorization).toBe("Bearer sk-test");
    expect(req.body).toMatchObject({
      model: "gpt-4o",
      stream: true,
      stream_options: { include_usage: true },
      max_completion_tokens: 16384,
    });
    expect(req.body.tools).toEqual([
      {
        type: "function",
        function: {
          name: "print_playbook",
          description: "Submit the playbook.",
          parameters: TOOLS[0].parameters,
        },
      },
    ]);
    expect(req.body.messages).toEqual([
      { role: "system", content: "You repair systems." },
      { role: "user", content: "cpu saturation in ts-order-service" },
      {
        role: "assistant",
        content: null,
        tool_calls: [
          {
            id: "call_0",
            type: "function",
            function: { name: "print_playbook", arguments: '{"playbook": "x"}' },
          },
        ],
      },
      { role: "tool", tool_call_id: "call_0", content: "FAILED: pod still crashing" },
    ]);
  });

  it("turns a 401 into one line naming the key variable, without retrying", async () => {
    server = await startWireServer(() => ({
      status: 401,
      json: {
        error: {
          message: "Incorrect API key provided: sk-bad.\nSee the docs.",
          type: "invalid_request_error",
          code: "invalid_api_key",
        },
      },
    }));
    const { sleeps, clock } = recordingClock();
    const model = resolveModel("gpt-4o-mini", {
      env: { LLM_API_KEY: "sk-bad", OPENAI_BASE_URL: `${server.url}/v1` },
      clock,
    });
    const e = await failure(model.generate({ messages: ASK, tools: TOOLS, role: "generator" }));
    expect(e.code).toBe("E_MISSING_API_KEY");
    expect(e.oneLine()).not.toContain("\n");
    expect(e.oneLine()).toContain("LLM_API_KEY");
    expect(e.oneLine()).toContain("Incorrect API key provided");
    expect(server.seen).toHaveLength(1);
    expect(sleeps).toEqual([]);
  });

  it("waits as long as Retry-After says after a 429, then succeeds", async () => {
    server = await startWireServer((_req, n) =>
      n === 1
        ? {
            status: 429,
            headers: { "retry-after": "7" },
            json: { error: { message: "Rate limit reached", type: "requests" } },
          }
        : { sse: okFrames },
    );
    const { sleeps, clock } = recordingClock();
    const model = resolveModel("gpt-4o", { env: { ...ENV, OPENAI_BASE_URL: `${server.url}/v1` }, clock });
    const res = await model.generate({ messages: ASK, tools: TOOLS, role: "generator" });
    expect(res.message.content).toBe("done");
    expect(sleeps).toEqual([7000]);
    expect(server.seen).toHaveLength(2);
  });

  it("prefers retry-after-ms when the server sends it", async () => {
    server = await startWireServer((_req, n) =>
      n === 1
        ? {
            status: 503,
            headers: { "retry-after-ms": "250", "retry-after": "9" },
            json: { error: { message: "busy" } },
          }
        : { sse: okFrames },
    );
    const { sleeps, clock } = recordingClock();
    const model = resolveModel("gpt-4o", { env: { ...ENV, OPENAI_BASE_URL: `${server.url}/v1` }, clock });
    await model.generate({ messages: ASK, tools: TOOLS, role: "generator" });
    expect(sleeps).toEqual([250]);
  });

  it("gives up after the cap on 500s with E_MODEL, having backed off exponentially", async () => {
    server = await startWireServer(() => ({
      status: 500,
      json: { error: { message: "The server had an error", type: "server_error" } },
    }));
    const { sleeps, clock } = recordingClock();
    const model = resolveModel("gpt-4.1", { env: { ...ENV, OPENAI_BASE_URL: `${server.url}/v1` }, clock });
    const e = await failure(model.generate({ messages: ASK, tools: TOOLS, role: "generator" }));
    expect(e.code).toBe("E_MODEL");
    expect(e.message).toMatch(/failed after 5 attempts: 500 The server had an error/);
    expect(server.seen).toHaveLength(5);
    // random() = 0 gives the lower half of each step: 1 s, 2 s, 4 s, 8 s steps.
    expect(sleeps).toEqual([500, 1000, 2000, 4000]);
  });

  it("retries a connection cut in the middle of the stream", async () => {
    server = await startWireServer((_req, n) =>
      n === 1 ? { sse: openaiFrames([delta({ content: "par" })]).slice(0, 1), cut: true } : { sse: okFrames },
    );
    const { sleeps, clock } = recordingClock();
    const model = resolveModel("gpt-4o", { env: { ...ENV, OPENAI_BASE_URL: `${server.url}/v1` }, clock });
    const res = await model.generate({ messages: ASK, tools: TOOLS, role: "generator" });
    expect(res.message.content).toBe("done");
    expect(server.seen).toHaveLength(2);
    expect(sleeps).toHaveLength(1);
  });

  it("does not retry a request the server refuses (404)", async () => {
    server = await startWireServer(() => ({
      status: 404,
      json: { error: { message: "The model `gpt-4o-nope` does not exist", type: "invalid_request_error" } },
    }));
    const { clock } = recordingClock();
    const model = resolveModel("gpt-4o-nope", {
      env: { ...ENV, OPENAI_BASE_URL: `${server.url}/v1` },
      clock,
    });
    const e = await failure(model.generate({ messages: ASK, tools: TOOLS, role: "generator" }));
    expect(e.code).toBe("E_MODEL");
    expect(e.message).toContain("does not exist");
    expect(server.seen).toHaveLength(1);
  });
});
