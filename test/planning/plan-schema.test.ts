import { describe, expect, it } from "vitest";
import { planKinds, planKindsLine, PlanFormatError, validatePlan } from "../../src/planning/plan-schema";

const ctx = { isChatMessage: (id: number) => id >= 1 && id <= 10, isDm: false, stickerSets: ["Cats"] };
const plan = (tasks: unknown[]) => JSON.stringify({ tasks });

describe("validatePlan", () => {
  it("accepts every kind a group with sticker sets allows", () => {
    const { tasks, rejected } = validatePlan(
      plan([
        { kind: "send", text: "hi", reply_to: 3 },
        { kind: "wait", seconds: 3 },
        { kind: "react", emoji: "👍", message_id: 3 },
        { kind: "sticker", sticker_set: "Cats", name: "😺" },
        { kind: "read", message_id: 5 },
        { kind: "remember", content: "likes tea" },
      ]),
      ctx,
    );
    expect(rejected).toEqual([]);
    expect(tasks.map((t) => t.kind)).toEqual(["send", "wait", "react", "sticker", "read", "remember"]);
  });

  it("offers only the kinds that have an effect in the chat: no sticker without stickers, block and unblock in private chats, no think", () => {
    expect(planKinds({ isDm: false, stickerSets: [] })).toEqual([
      "send",
      "react",
      "wait",
      "read",
      "remember",
    ]);
    expect(planKinds({ isDm: false, stickerSets: [], stickers: [{ set: "Dogs", name: "🐶" }] })).toContain(
      "sticker",
    );
    expect(planKinds({ isDm: true, stickerSets: ["Cats"] })).toEqual([
      "send",
      "react",
      "sticker",
      "wait",
      "read",
      "remember",
      "block",
      "unblock",
    ]);
    expect(planKindsLine({ isDm: false, stickerSets: [] })).not.toMatch(/sticker|block|think/);
    const dm = { ...ctx, isDm: true };
    expect(
      validatePlan(plan([{ kind: "think", text: "hm" }, { kind: "block" }]), dm).rejected.map(
        (r) => r.reason,
      ),
    ).toEqual(['unknown kind "think"']);
  });

  it("rejects unknown kinds, missing fields, foreign message ids and non-standard reactions, keeping the rest", () => {
    const { tasks, rejected } = validatePlan(
      plan([
        { kind: "dance" },
        { kind: "send" },
        { kind: "react", emoji: "👍", message_id: 999 },
        { kind: "react", emoji: "🦖", message_id: 2 },
        { kind: "block" },
        { kind: "send", text: "fine" },
      ]),
      ctx,
    );
    expect(tasks.map((t) => (t.kind === "send" ? t.text : t.kind))).toEqual(["fine"]);
    expect(rejected.map((r) => r.index)).toEqual([0, 1, 2, 3, 4]);
    expect(rejected[0]!.reason).toMatch(/unknown kind "dance"/);
    expect(rejected[1]!.reason).toMatch(/text/);
    expect(rejected[2]!.reason).toMatch(/message_id 999 is not a message of this chat/);
    expect(rejected[3]!.reason).toMatch(/not a standard Telegram reaction/);
    expect(rejected[4]!.reason).toMatch(/unknown kind "block"/); // a group offers no block
  });

  it("never drops a send for its reply_to: an unknown one replies to the message being answered, or to nothing", () => {
    const texts = plan([
      { kind: "send", text: "ok", reply_to: 999 },
      { kind: "sticker", sticker_set: "Cats", name: "😺", reply_to: 998 },
    ]);
    const answering = validatePlan(texts, { ...ctx, answering: 7 });
    expect(answering.rejected).toEqual([]);
    expect(answering.tasks).toMatchObject([
      { kind: "send", text: "ok", reply_to: 7 },
      { kind: "sticker", reply_to: 7 },
    ]);
    expect(answering.repaired).toEqual([
      {
        index: 0,
        kind: "send",
        reason: "reply_to 999 is not a message of this chat; replying to #7 (the message being answered)",
      },
      { index: 1, kind: "sticker", reason: expect.stringContaining("reply_to 998") },
    ]);
    const none = validatePlan(texts, ctx);
    expect(none.rejected).toEqual([]);
    expect(none.tasks[0]).toEqual(expect.not.objectContaining({ reply_to: expect.anything() }));
    expect(none.repaired[0]!.reason).toMatch(/sent without a reply$/);
  });

  it("drops tasks that depend on rejected or unknown ids, and refuses cycles", () => {
    const { tasks, rejected } = validatePlan(
      plan([
        { kind: "dance", id: "a" },
        { kind: "send", text: "after bad", id: "b", depends_on: ["a"] },
        { kind: "send", text: "after b", depends_on: ["b"] },
        { kind: "send", text: "ghost", depends_on: ["zzz"] },
        { kind: "send", text: "x", id: "x", depends_on: ["y"] },
        { kind: "send", text: "y", id: "y", depends_on: ["x"] },
        { kind: "send", text: "ok", id: "ok" },
        { kind: "wait", seconds: 1, depends_on: ["ok"] },
      ]),
      ctx,
    );
    expect(tasks.map((t) => t.kind + (t.kind === "send" ? `:${t.text}` : ""))).toEqual(["send:ok", "wait"]);
    expect(tasks[1]!.deps).toEqual([0]);
    expect(rejected.find((r) => r.index === 4)!.reason).toMatch(/cycle or forward/);
    expect(rejected.find((r) => r.index === 3)!.reason).toMatch(/unknown id "zzz"/);
    expect(rejected.find((r) => r.index === 2)!.reason).toMatch(/depends on rejected/);
  });

  it("treats non-JSON, wrong shapes and over-long plans as format errors", () => {
    expect(() => validatePlan("{not json", ctx)).toThrow(PlanFormatError);
    expect(() => validatePlan(JSON.stringify({ answer: "hi" }), ctx)).toThrow(/tasks/);
    expect(() =>
      validatePlan(plan(Array.from({ length: 100 }, () => ({ kind: "wait", seconds: 1 }))), ctx),
    ).toThrow(/100 tasks/);
  });

  it("accepts stickers only from the persona's own sets", () => {
    const { tasks, rejected } = validatePlan(
      plan([
        { kind: "sticker", sticker_set: "cats", name: "😺" },
        { kind: "sticker", sticker_set: "Dogs", name: "🐶" },
      ]),
      ctx,
    );
    expect(tasks).toHaveLength(1);
    expect(rejected[0]!.reason).toMatch(/"Dogs" is not one of the persona's sets/);
    expect(
      validatePlan(plan([{ kind: "sticker", sticker_set: "Cats", name: "😺" }]), { ...ctx, stickerSets: [] })
        .rejected[0]!.reason,
    ).toMatch(/unknown kind "sticker"/);
  });

  it("bounds waits", () => {
    const { rejected } = validatePlan(plan([{ kind: "wait", seconds: 7200 }]), ctx);
    expect(rejected[0]!.reason).toMatch(/seconds/);
  });
});
