// The Anthropic provider through the real `@anthropic-ai/sdk` against a local Messages server
// that streams `event:` / `data:` frames.
import { afterEach, describe, expect, it } from "vitest";
import { MicroRemedError } from "../../src/errors.js";
import { resolveModel } from "../../src/llm/registry.js";
import type { ChatMessage, ToolSchema } from "../../src/llm/types.js";
import { anthropicFrames, recordingClock, startWireServer, type WireServer } from "./wire-server.js";

const TOOLS: ToolSchema[] = [
  {
    name: "probe_system",
    description: "Run a read-only command.",
    parameters: { type: "object", properties: { command: { type: "string" } }, required: ["command"] },
  },
];
const ASK: ChatMessage[] = [
  { role: "system", content: "You are the coordinator." },
  { role: "user", content: "memory saturation in cartservice" },
];
const ENV = { ANTHROPIC_API_KEY: "sk-ant-test" };
const MODEL = "claude-sonnet-4-20250514";

const start = (usage: object) => ({
  type: "message_start",
  message: {
    id: "msg_1",
    type: "message",
    role: "assistant",
    model: MODEL,
    content: [],
    stop_reason: null,
    stop_sequence: null,
    usage,
  },
});
const okFrames = anthropicFrames([
  start({ input_tokens: 10, output_tokens: 1 }),
  { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } },
  { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "done" } },
  { type: "content_block_stop", index: 0 },
  {
    type: "message_delta",
    delta: { stop_reason: "end_turn", stop_sequence: null },
    usage: { output_tokens: 3 },
  },
  { type: "message_stop" },
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

describe("anthropic provider", () => {
  it("streams a tool_use whose input arrives in input_json_delta pieces, with usage as reported", async () => {
    server = await startWireServer(() => ({
      sse: anthropicFrames([
        start({
          input_tokens: 100,
          cache_read_input_tokens: 2000,
          cache_creation_input_tokens: 50,
          output_tokens: 1,
        }),
        { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } },
        { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "Let me look " } },
        { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "at the pods." } },
        { type: "content_block_stop", index: 0 },
        {
          type: "content_block_start",
          index: 1,
          content_block: { type: "tool_use", id: "toolu_1", name: "probe_system", input: {} },
        },
        { type: "content_block_delta", index: 1, delta: { type: "input_json_delta", partial_json: "" } },
        {
          type: "content_block_delta",
          index: 1,
          delta: { type: "input_json_delta", partial_json: '{"comm' },
        },
        {
          type: "content_block_delta",
          index: 1,
          delta: { type: "input_json_delta", partial_json: 'and": "kubectl get pods' },
        },
        {
          type: "content_block_delta",
          index: 1,
          delta: { type: "input_json_delta", partial_json: ' -n boutique"}' },
        },
        { type: "content_block_stop", index: 1 },
        {
          type: "message_delta",
          delta: { stop_reason: "tool_use", stop_sequence: null },
          usage: { output_tokens: 80 },
        },
        { type: "message_stop" },
      ]),
    }));
    const model = resolveModel(MODEL, { env: { ...ENV, ANTHROPIC_BASE_URL: server.url } });
    const history: ChatMessage[] = [
      ...ASK,
      {
        role: "assistant",
        content: "Checking.",
        toolCalls: [{ id: "toolu_0", name: "probe_system", arguments: '{"command": "kubectl get deploy"}' }],
      },
      { role: "tool", toolCallId: "toolu_0", name: "probe_system", content: "cartservice 0/1" },
      { role: "user", content: "Continue." },
    ];
    const res = await model.generate({ messages: history, tools: TOOLS, role: "coordinator" });

    expect(res.message).toEqual({
      role: "assistant",
      content: "Let me look at the pods.",
      toolCalls: [
        { id: "toolu_1", name: "probe_system", arguments: '{"command": "kubectl get pods -n boutique"}' },
      ],
    });
    // inputTokens counts cache reads and writes too; each part is billed at its own price.
    expect(res.usage).toEqual({
      inputTokens: 2150,
      outputTokens: 80,
      cachedTokens: 2000,
      cacheWriteTokens: 50,
      costUsd: (100 * 3 + 2000 * 0.3 + 50 * 3.75 + 80 * 15) / 1e6,
    });

    const [req] = server.seen;
    expect(req.url).toBe("/v1/messages");
    // The SDK decides the header (x-api-key in older versions, a bearer token in 1.x).
    expect(req.headers["x-api-key"] ?? req.headers.authorization).toMatch(/^(Bearer )?sk-ant-test$/);
    expect(req.body).toMatchObject({
      model: MODEL,
      stream: true,
      max_tokens: 16384,
      system: "You are the coordinator.",
    });
    expect(req.body.tools).toEqual([
      { name: "probe_system", description: "Run a read-only command.", input_schema: TOOLS[0].parameters },
    ]);
    expect(req.body.messages).toEqual([
      { role: "user", content: [{ type: "text", text: "memory saturation in cartservice" }] },
      {
        role: "assistant",
        content: [
          { type: "text", text: "Checking." },
          { type: "tool_use", id: "toolu_0", name: "probe_system", input: { command: "kubectl get deploy" } },
        ],
      },
      {
        role: "user",
        content: [
          { type: "tool_result", tool_use_id: "toolu_0", content: "cartservice 0/1" },
          { type: "text", text: "Continue." },
        ],
      },
    ]);
  });

  it("turns a 401 into one line naming ANTHROPIC_API_KEY", async () => {
    server = await startWireServer(() => ({
      status: 401,
      json: { type: "error", error: { type: "authentication_error", message: "invalid x-api-key" } },
    }));
    const { sleeps, clock } = recordingClock();
    const model = resolveModel(MODEL, { env: { ...ENV, ANTHROPIC_BASE_URL: server.url }, clock });
    const e = await failure(model.generate({ messages: ASK, tools: TOOLS, role: "coordinator" }));
    expect(e.code).toBe("E_MISSING_API_KEY");
    expect(e.oneLine()).toMatch(
      /^error E_MISSING_API_KEY: .*ANTHROPIC_API_KEY.*invalid x-api-key.*set ANTHROPIC_API_KEY/,
    );
    expect(e.oneLine()).not.toContain("\n");
    expect(server.seen).toHaveLength(1);
    expect(sleeps).toEqual([]);
  });

  it("honours Retry-After on a 429, then succeeds", async () => {
    server = await startWireServer((_req, n) =>
      n === 1
        ? {
            status: 429,
            headers: { "retry-after": "12" },
            json: { type: "error", error: { type: "rate_limit_error", message: "slow down" } },
          }
        : { sse: okFrames },
    );
    const { sleeps, clock } = recordingClock();
    const model = resolveModel(MODEL, { env: { ...ENV, ANTHROPIC_BASE_URL: server.url }, clock });
    const res = await model.generate({ messages: ASK, tools: TOOLS, role: "coordinator" });
    expect(res.message).toEqual({ role: "assistant", content: "done" });
    expect(res.usage).toMatchObject({ inputTokens: 10, outputTokens: 3 });
    expect(sleeps).toEqual([12000]);
    expect(server.seen).toHaveLength(2);
  });

  it("retries an overloaded_error sent inside the stream", async () => {
    server = await startWireServer((_req, n) =>
      n === 1
        ? {
            sse: anthropicFrames([
              start({ input_tokens: 10, output_tokens: 1 }),
              { type: "error", error: { type: "overloaded_error", message: "Overloaded" } },
            ]),
          }
        : { sse: okFrames },
    );
    const { sleeps, clock } = recordingClock();
    const model = resolveModel(MODEL, { env: { ...ENV, ANTHROPIC_BASE_URL: server.url }, clock });
    const res = await model.generate({ messages: ASK, tools: TOOLS, role: "coordinator" });
    expect(res.message.content).toBe("done");
    expect(sleeps).toEqual([500]);
  });

  it("stops at the configured cap on 500s and reports E_MODEL", async () => {
    server = await startWireServer(() => ({
      status: 500,
      json: { type: "error", error: { type: "api_error", message: "Internal server error" } },
    }));
    const { sleeps, clock } = recordingClock();
    const model = resolveModel(MODEL, {
      env: { ...ENV, ANTHROPIC_BASE_URL: server.url },
      clock,
      retry: { maxAttempts: 3 },
    });
    const e = await failure(model.generate({ messages: ASK, tools: TOOLS, role: "coordinator" }));
    expect(e.code).toBe("E_MODEL");
    expect(e.message).toContain("failed after 3 attempts: 500 Internal server error");
    expect(server.seen).toHaveLength(3);
    expect(sleeps).toHaveLength(2);
  });
});
