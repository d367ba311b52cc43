// One playbook parser for every method. The same answers, given to SoloGen and to
// ThinkRemed through the same scripted model, are read the same way: the argument `playbook` or
// the reference's `code`, the text protocol, a fenced YAML block, a bare YAML document; and prose
// holds no playbook for either.
import { describe, expect, it } from "vitest";
import { SoloGen } from "../../src/methods/sologen.js";
import { ThinkRemed } from "../../src/methods/thinkremed/index.js";
import { PLAYBOOK, setup, type Turn } from "./thinkremed-helpers.js";

const ANSWERS: Record<string, Turn> = {
  "tool call, argument playbook": {
    toolCalls: [{ name: "print_playbook", arguments: { playbook: PLAYBOOK } }],
  },
  "tool call, argument code (the reference's name)": {
    toolCalls: [{ name: "print_playbook", arguments: { code: PLAYBOOK } }],
  },
  "the text protocol": {
    content: `I will restart it.\nAction: print_playbook\nAction Input: ${JSON.stringify({ playbook: PLAYBOOK })}`,
  },
  "a fenced YAML block": { content: `Here is the fix:\n\n\`\`\`yaml\n${PLAYBOOK}\`\`\`\n` },
  "an unmarked fenced block that is a playbook": { content: `Fix:\n\`\`\`\n${PLAYBOOK}\`\`\`\n` },
  "a bare YAML document of plays": { content: PLAYBOOK },
};

async function playbookOf(method: "SoloGen" | "ThinkRemed", turn: Turn): Promise<string | undefined> {
  // ThinkRemed reminds a model that answered without a tool once; prose twice ends the attempt
  const { ctx, executor } = setup([turn, turn], { maxAttempts: 1 });
  const m = method === "SoloGen" ? new SoloGen() : new ThinkRemed();
  await m.remediate(ctx);
  return executor.playbooks[0];
}

describe("one playbook parser", () => {
  for (const [name, turn] of Object.entries(ANSWERS))
    it(`${name}: both methods execute the same playbook`, async () => {
      expect(await playbookOf("SoloGen", turn)).toBe(PLAYBOOK);
      expect(await playbookOf("ThinkRemed", turn)).toBe(PLAYBOOK);
    });

  it("prose holds no playbook for either", async () => {
    const prose: Turn = { content: "You should restart the cart deployment." };
    expect(await playbookOf("SoloGen", prose)).toBeUndefined();
    expect(await playbookOf("ThinkRemed", prose)).toBeUndefined();
  });
});
