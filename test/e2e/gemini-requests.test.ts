/**
 * What the persona sends to Gemini and what it does with refusals, end to end: emulator + real
 * GramJS + the real @google/genai SDK against the loopback fake + a fake clock.
 */
import { afterEach, describe, expect, it } from "vitest";
import { geminiJsonSchema } from "../../src/llm/json-schema";
import { planSchemaFor } from "../../src/planning/plan-schema";
import { PURPOSES } from "../../src/config/llm-purposes";
import { Harness, plan, TEST_PERSONA } from "../support/harness";

let h: Harness;
afterEach(async () => {
  await h?.close();
});

/** Log lines at warn or above. */
const loud = () => h.log.lines().filter((l) => Number(l.level) >= 40);

describe("the plan request", () => {
  it("carries responseJsonSchema generated from the zod plan schema, with per-kind required fields, and the plan's token limits", async () => {
    h = await Harness.start();
    h.gemini.script(plan({ kind: "send", text: "hi" }));
    await h.emu.post({ chat: h.group, from: h.alice, text: "@mira_ai hello" });
    await h.pass(20_000);

    expect(h.gemini.requests).toHaveLength(1);
    const config = h.gemini.requests[0]!.body.generationConfig!;
    expect(config.responseSchema).toBeUndefined();
    expect(config.responseJsonSchema).toEqual(
      geminiJsonSchema(planSchemaFor({ isDm: false, stickerSets: h.persona.stickerSets, intentions: true })),
    );
    // One object per kind, each with its own required fields.
    const variants = (
      config.responseJsonSchema as {
        properties: {
          tasks: { items: { anyOf: { properties: { kind: { enum: string[] } }; required: string[] }[] } };
        };
      }
    ).properties.tasks.items.anyOf;
    const byKind = Object.fromEntries(variants.map((v) => [v.properties.kind.enum[0], v.required]));
    expect(byKind).toEqual({
      send: ["kind", "text"],
      react: ["kind", "emoji", "message_id"],
      sticker: ["kind", "set", "emoji"],
      wait: ["kind", "seconds"],
      remember: ["kind", "content"],
      schedule: ["kind", "note"],
    });
    expect(JSON.stringify(config.responseJsonSchema)).not.toMatch(
      /"const"|"\$schema"|"oneOf"|"minLength"|"exclusiveMinimum"/,
    );
    expect(config.maxOutputTokens).toBe(PURPOSES.plan.maxOutputTokens);
    expect(config.thinkingConfig).toEqual({ thinkingBudget: PURPOSES.plan.thinkingBudget });
    expect(h.sent(h.group).map((m) => m.text)).toEqual(["hi"]);
  });
});

describe("only the actions that work here", () => {
  /** The task kinds a request's schema offers, and those its instruction names. */
  const offered = (i: number) => {
    const body = h.gemini.requests[i]!.body;
    const variants = (
      body.generationConfig!.responseJsonSchema as {
        properties: { tasks: { items: { anyOf: { properties: { kind: { enum: string[] } } }[] } } };
      }
    ).properties.tasks.items.anyOf;
    const system = (body.systemInstruction?.parts ?? []).map((p) => p.text ?? "").join("\n");
    return {
      kinds: variants.map((v) => v.properties.kind.enum[0]),
      // The notes on the kinds close the instruction, after the reply format.
      line: system.slice(system.indexOf('Reply with JSON {"tasks":[...]}')),
    };
  };

  it("a group without sticker sets offers no sticker and no block; a private chat offers block and unblock", async () => {
    h = await Harness.start({ persona: TEST_PERSONA.replace(/# Agent Sticker Sets[\s\S]*$/, "") });
    await h.emu.post({ chat: h.group, from: h.alice, text: "@mira_ai hello" });
    await h.pass(20_000);
    await h.emu.post({ chat: h.emu.dm(h.account, h.carol), from: h.carol, text: "hi" });
    await h.pass(20_000);

    // cancel_schedule only in a chat with pending intentions (none here).
    const later = ["schedule"];
    expect(offered(0).kinds).toEqual(["send", "react", "wait", "remember", ...later]);
    expect(offered(0).line).not.toMatch(/sticker|block|think/);
    // A contact in private may make her look things up (docs/world.md); the group's sender is not known as one.
    expect(offered(1).kinds).toEqual([
      "send",
      "react",
      "wait",
      "remember",
      ...later,
      "look_up",
      "block",
      "unblock",
    ]);
    expect(offered(1).line).toContain("block");
    // The group's schema is smaller than the full one (printed for the record).
    const size = (i: number) =>
      JSON.stringify(h.gemini.requests[i]!.body.generationConfig!.responseJsonSchema).length;
    expect(size(0)).toBeLessThan(size(1));
  });

  it("a sticker the model names in a chat that offers none is refused as an unknown kind; the rest of the plan runs", async () => {
    h = await Harness.start({ persona: TEST_PERSONA.replace(/# Agent Sticker Sets[\s\S]*$/, "") });
    h.gemini.script(plan({ kind: "sticker", set: "Cats", emoji: "😺" }, { kind: "send", text: "hello!" }));
    await h.emu.post({ chat: h.group, from: h.alice, text: "@mira_ai hello" });
    await h.pass(20_000);
    expect(h.sent(h.group).map((m) => m.text)).toEqual(["hello!"]);
  });
});

describe("refusals", () => {
  it("a safety block then a good answer: the persona answers, after exactly two calls, both billed as plan", async () => {
    h = await Harness.start();
    h.gemini.script({ safety: true }, plan({ kind: "send", text: "second time lucky" }));
    await h.emu.post({ chat: h.group, from: h.alice, text: "@mira_ai tell me something" });
    await h.pass(20_000);

    expect(h.gemini.requests).toHaveLength(2);
    expect(h.sent(h.group).map((m) => m.text)).toEqual(["second time lucky"]);
    expect(loud()).toEqual([]);
    expect(h.runtime.usage.today(h.clock.now()).byPurpose).toEqual({ plan: 2 });
  });

  it("a safety block twice: silence, one log line naming the reason, no failed task, and the next message is answered", async () => {
    h = await Harness.start();
    h.gemini.script({ safety: true }, { blockedPrompt: true });
    await h.emu.post({ chat: h.group, from: h.alice, text: "@mira_ai say something awful" });
    await h.pass(30_000);

    expect(h.gemini.requests).toHaveLength(2);
    expect(h.sent(h.group)).toEqual([]);
    const lines = loud();
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      level: 40,
      purpose: "plan",
      chatId: h.group.peerId,
      kind: "blocked",
      reason: "prompt blocked: SAFETY",
    });
    const failed = h.db.prepare("SELECT count(*) AS n FROM tasks WHERE status = 'failed'").get() as {
      n: number;
    };
    expect(failed.n).toBe(0);
    expect(h.runtime.status().lastError).toBeUndefined();

    h.gemini.script(plan({ kind: "send", text: "hello again" }));
    await h.emu.post({ chat: h.group, from: h.alice, text: "@mira_ai hi" });
    await h.pass(20_000);
    expect(h.sent(h.group).map((m) => m.text)).toEqual(["hello again"]);
  });

  it("an empty answer twice is silence too", async () => {
    h = await Harness.start();
    h.gemini.script({ text: "" }, { text: "" });
    await h.emu.post({ chat: h.club, from: h.bob, text: "Mira?" });
    await h.pass(30_000);
    expect(h.gemini.requests).toHaveLength(2);
    expect(h.sent(h.club)).toEqual([]);
    expect(loud()).toEqual([expect.objectContaining({ purpose: "plan", kind: "empty" })]);
  });
});
