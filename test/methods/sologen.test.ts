// SoloGen's one prompt: the report, the namespace, and what the case's identity may do.
import { describe, expect, it } from "vitest";
import type { ModelRequest } from "../../src/llm/types.js";
import { SoloGen } from "../../src/methods/sologen.js";
import { PLAYBOOK, print, recording, setup } from "./thinkremed-helpers.js";

describe("SoloGen", () => {
  it("prints one playbook from a prompt that says what the identity may do", async () => {
    const { ctx, executor } = setup([print()]);
    const seen: ModelRequest[] = [];
    ctx.model = recording(ctx.model, seen);
    const r = await new SoloGen().remediate(ctx);
    expect(executor.playbooks).toEqual([PLAYBOOK]);
    expect(r.attempts).toHaveLength(1);
    const system = seen[0].messages[0].content;
    expect(system).toContain("What you may do: You act as a ServiceAccount of the namespace shop");
    expect(system).toContain("Change only the namespace shop");
    expect(seen[0].messages[1].content).toContain("Root-cause service: cart");
  });
});
