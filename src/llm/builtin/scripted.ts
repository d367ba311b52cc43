// The scripted model: replays recorded assistant turns (text and tool calls) from a file, per
// case, so tests drive the whole pipeline through the same seam as a real provider.
// Strings may use {{namespace}}, {{service}} and {{failure}}, filled in from the case.
import { readFileSync } from "node:fs";
import { parse } from "yaml";
import { reportIn } from "../../diagnosis/report.js";
import { MicroRemedError } from "../../errors.js";
import { PROVIDER_REASONS } from "../../outcome.js";
import { validateWith } from "../../util/schema.js";
import type { Model, ModelRequest, ModelResponse, ToolCall } from "../types.js";

interface ScriptTurn {
  content?: string;
  toolCalls?: { name: string; arguments: string | Record<string, unknown> }[];
  usage?: { inputTokens?: number; outputTokens?: number; cachedTokens?: number; reasoningTokens?: number };
  /** Fail this call the way a provider can (the run records it on the case as an error). */
  error?: string;
  /** Why the provider failed (default: outage). */
  errorReason?: (typeof PROVIDER_REASONS)[number];
}

interface Script {
  turns: ScriptTurn[];
}

const SCHEMA = {
  type: "object",
  required: ["turns"],
  additionalProperties: false,
  properties: {
    turns: {
      type: "array",
      minItems: 1,
      items: {
        type: "object",
        additionalProperties: false,
        properties: {
          content: { type: "string" },
          error: { type: "string" },
          errorReason: {
            enum: [...PROVIDER_REASONS],
          },
          toolCalls: {
            type: "array",
            items: {
              type: "object",
              required: ["name", "arguments"],
              additionalProperties: false,
              properties: { name: { type: "string" }, arguments: { type: ["string", "object"] } },
            },
          },
          usage: {
            type: "object",
            additionalProperties: false,
            properties: {
              inputTokens: { type: "integer", minimum: 0 },
              outputTokens: { type: "integer", minimum: 0 },
              cachedTokens: { type: "integer", minimum: 0 },
              reasoningTokens: { type: "integer", minimum: 0 },
            },
          },
        },
      },
    },
  },
};

export function loadScript(file: string): Script {
  let raw: unknown;
  try {
    raw = parse(readFileSync(file, "utf8"));
  } catch (e) {
    throw new MicroRemedError(
      "E_UNKNOWN_MODEL",
      `cannot read the scripted model's file ${file}: ${(e as Error).message}`,
      "give scripted:<file> a readable YAML or JSON file with a `turns` list",
    );
  }
  return validateWith<Script>(
    SCHEMA,
    raw,
    file,
    "E_UNKNOWN_MODEL",
    "see the scripted model's format in the README (turns: [{content, toolCalls: [{name, arguments}], usage}])",
  );
}

export class ScriptedModel implements Model {
  readonly id: string;

  constructor(
    private readonly script: Script,
    file: string,
  ) {
    this.id = `scripted:${file}`;
  }

  async generate(req: ModelRequest): Promise<ModelResponse> {
    // the next turn is the one after every assistant turn already in the conversation
    const i = req.messages.filter((m) => m.role === "assistant").length;
    const turn = this.script.turns[i];
    if (!turn)
      throw new MicroRemedError(
        "E_MODEL",
        `the scripted model has only ${this.script.turns.length} turns and was asked for turn ${i + 1}`,
      );
    if (turn.error)
      throw new MicroRemedError("E_MODEL", turn.error, undefined, { reason: turn.errorReason ?? "outage" });
    const report = reportIn(req.messages);
    const fill = (s: string) =>
      s
        .replaceAll("{{namespace}}", report?.namespace ?? "")
        .replaceAll("{{service}}", report?.faults[0]?.service ?? "")
        .replaceAll("{{failure}}", report?.faults[0]?.failure ?? "");
    const toolCalls: ToolCall[] | undefined = turn.toolCalls?.map((c, k) => ({
      id: `scripted-${i + 1}-${k + 1}`,
      name: c.name,
      arguments: fill(typeof c.arguments === "string" ? c.arguments : JSON.stringify(c.arguments)),
    }));
    return {
      message: {
        role: "assistant",
        content: fill(turn.content ?? ""),
        ...(toolCalls?.length ? { toolCalls } : {}),
      },
      usage: {
        inputTokens: turn.usage?.inputTokens ?? 0,
        outputTokens: turn.usage?.outputTokens ?? 0,
        cachedTokens: turn.usage?.cachedTokens,
        reasoningTokens: turn.usage?.reasoningTokens,
      },
    };
  }
}
