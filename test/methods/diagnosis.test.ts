// statedDiagnosis: the diagnosis an agent states, read from its conversation and scored by the
// service it names. submit_diagnosis may be called again (the last valid call counts);
// the MCP server's submit is the agent's last act (the first call counts, the server refuses the
// rest); a call that names no service states nothing.
import { describe, expect, it } from "vitest";
import type { ChatMessage } from "../../src/llm/types.js";
import { SUBMIT_DIAGNOSIS, statedDiagnosis } from "../../src/methods/diagnosis.js";

let ids = 0;
/** An assistant turn making the given calls, each arguments object written as JSON. */
const turn = (...calls: [string, unknown][]): ChatMessage => ({
  role: "assistant",
  content: "",
  toolCalls: calls.map(([name, args]) => ({
    id: `call-${++ids}`,
    name,
    arguments: typeof args === "string" ? args : JSON.stringify(args),
  })),
});
const diagnose = (args: unknown) => turn([SUBMIT_DIAGNOSIS, args]);
const submit = (args: unknown) => turn(["submit", args]);
const FAULTS = ["cart", "checkout"];

describe("statedDiagnosis", () => {
  it("scores the service named against the faults' services, whatever its case", () => {
    expect(statedDiagnosis([diagnose({ service: "Cart ", cause: "  its image is bad " })], FAULTS)).toEqual({
      service: "Cart",
      cause: "its image is bad",
      correct: true,
    });
  });

  it("a service that is not a fault's is stated and wrong", () => {
    expect(statedDiagnosis([diagnose({ service: "frontend", cause: "slow" })], FAULTS)).toEqual({
      service: "frontend",
      cause: "slow",
      correct: false,
    });
  });

  it("the last submit_diagnosis counts, and a later call without a service does not undo it", () => {
    const conversation: ChatMessage[] = [
      diagnose({ service: "frontend", cause: "first guess" }),
      { role: "tool", content: "recorded", toolCallId: "x" },
      diagnose({ service: "cart", cause: "found it" }),
      diagnose({ cause: "no service this time" }),
    ];
    expect(statedDiagnosis(conversation, FAULTS)).toEqual({
      service: "cart",
      cause: "found it",
      correct: true,
    });
    // and a right guess followed by a wrong one is wrong: the last valid call counts, not the best
    expect(
      statedDiagnosis([diagnose({ service: "cart" }), diagnose({ service: "frontend" })], FAULTS)?.correct,
    ).toBe(false);
  });

  it("the first MCP submit counts, even when a later one names the right service", () => {
    expect(
      statedDiagnosis([submit({ service: "frontend", cause: "guess" }), submit({ service: "cart" })], FAULTS),
    ).toEqual({ service: "frontend", cause: "guess", correct: false });
    // a first submit without a service states nothing, and the refused second one cannot
    expect(statedDiagnosis([submit({}), submit({ service: "cart" })], FAULTS)).toBeUndefined();
  });

  it("a call without a service, with an empty one or with broken arguments is no diagnosis", () => {
    for (const args of [
      { cause: "something broke" },
      { service: "  ", cause: "x" },
      { service: 3 },
      "{not json",
    ])
      expect(statedDiagnosis([diagnose(args)], FAULTS), JSON.stringify(args)).toBeUndefined();
    expect(statedDiagnosis([submit({})], FAULTS)).toBeUndefined();
    expect(statedDiagnosis([turn(["print_playbook", { playbook: "- hosts: all" }])], FAULTS)).toBeUndefined();
    expect(statedDiagnosis([], FAULTS)).toBeUndefined();
  });
});
