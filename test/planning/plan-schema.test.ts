import { describe, expect, it } from "vitest";
import {
  planKinds,
  planKindsLine,
  PlanFormatError,
  scheduleDue,
  validatePlan,
} from "../../src/planning/plan-schema";
import { geminiJsonSchema } from "../../src/llm/json-schema";
import { planSchemaFor } from "../../src/planning/plan-schema";

const ctx = { inView: (id: number) => id >= 1 && id <= 10, isDm: false, stickerSets: ["Cats"] };
const plan = (tasks: unknown[]) => JSON.stringify({ tasks });

describe("validatePlan", () => {
  it("accepts every kind a group with sticker sets allows", () => {
    const { tasks, rejected } = validatePlan(
      plan([
        { kind: "send", text: "hi", reply_to: 3 },
        { kind: "wait", seconds: 3 },
        { kind: "react", emoji: "👍", message_id: 3 },
        { kind: "sticker", set: "Cats", emoji: "😺" },
        { kind: "remember", content: "likes tea" },
        { kind: "remember", content: "I have a cat", about: "me" },
        { kind: "remember", content: "likes jazz", about: 4 },
      ]),
      ctx,
    );
    expect(rejected).toEqual([]);
    expect(tasks.map((t) => t.kind)).toEqual([
      "send",
      "wait",
      "react",
      "sticker",
      "remember",
      "remember",
      "remember",
    ]);
    expect(tasks[6]).toMatchObject({ about: "4" });
  });

  it("is lean: no ids or dependencies, no descriptions repeated on every kind", () => {
    const schema = JSON.stringify(geminiJsonSchema(planSchemaFor({ isDm: false, stickerSets: [] })));
    expect(schema).not.toMatch(/depends_on|"id"|description/);
  });

  it("rejects a bare name in about with a message saying what to write, keeping the rest of the plan", () => {
    const { tasks, rejected } = validatePlan(
      plan([
        { kind: "remember", content: "allergic to peanuts", about: "carol" },
        { kind: "send", text: "noted" },
      ]),
      ctx,
    );
    expect(tasks.map((t) => t.kind)).toEqual(["send"]);
    expect(rejected).toEqual([
      {
        index: 0,
        kind: "remember",
        reason:
          'about: "carol" names nobody: use "@username", the id of a message the person wrote, "chat" or "me"',
      },
    ]);
  });

  it("maps a reaction Telegram does not offer to the closest standard one instead of refusing it", () => {
    const { tasks, rejected, repaired } = validatePlan(
      plan([
        { kind: "react", emoji: "😂", message_id: 3 },
        { kind: "react", emoji: "💙", message_id: 4 },
        { kind: "react", emoji: "👍🏽", message_id: 5 },
        { kind: "react", emoji: "❤️", message_id: 6 },
      ]),
      ctx,
    );
    expect(rejected).toEqual([]);
    expect(tasks.map((t) => (t.kind === "react" ? t.emoji : t.kind))).toEqual(["🤣", "❤", "👍", "❤"]);
    expect(repaired.map((r) => r.reason)).toEqual([
      '"😂" is not a Telegram reaction; reacting 🤣',
      '"💙" is not a Telegram reaction; reacting ❤',
      '"👍🏽" is not a Telegram reaction; reacting 👍',
    ]);
  });

  it("offers only the kinds that have an effect in the chat: no sticker without stickers, block and unblock in private chats, no think", () => {
    expect(planKinds({ isDm: false, stickerSets: [] })).toEqual(["send", "react", "wait", "remember"]);
    expect(planKinds({ isDm: false, stickerSets: [], stickers: [{ set: "Dogs", name: "🐶" }] })).toContain(
      "sticker",
    );
    expect(planKinds({ isDm: true, stickerSets: ["Cats"] })).toEqual([
      "send",
      "react",
      "sticker",
      "wait",
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

  it("rejects unknown kinds, missing fields, messages not in view and emoji with no close reaction, keeping the rest", () => {
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
    expect(rejected[2]!.reason).toMatch(/message_id 999 is not a message in view/);
    expect(rejected[3]!.reason).toMatch(/no Telegram reaction, nor close to one/);
    expect(rejected[4]!.reason).toMatch(/unknown kind "block"/); // a group offers no block
  });

  it("never drops a send for its reply_to: an unknown one replies to the message being answered, or to nothing", () => {
    const texts = plan([
      { kind: "send", text: "ok", reply_to: 999 },
      { kind: "sticker", set: "Cats", emoji: "😺", reply_to: 998 },
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
        reason: "reply_to 999 is not a message in view; replying to #7 (the message being answered)",
      },
      { index: 1, kind: "sticker", reason: expect.stringContaining("reply_to 998") },
    ]);
    const none = validatePlan(texts, ctx);
    expect(none.rejected).toEqual([]);
    expect(none.tasks[0]).toEqual(expect.not.objectContaining({ reply_to: expect.anything() }));
    expect(none.repaired[0]!.reason).toMatch(/sent without a reply$/);
  });

  it("runs the tasks in the order given: an old-style id or depends_on is ignored, never a reason to drop a task", () => {
    const { tasks, rejected } = validatePlan(
      plan([
        { kind: "dance", id: "a" },
        { kind: "send", text: "after bad", id: "b", depends_on: ["a"] },
        { kind: "send", text: "ghost", depends_on: ["zzz"] },
      ]),
      ctx,
    );
    expect(tasks.map((t) => (t.kind === "send" ? t.text : t.kind))).toEqual(["after bad", "ghost"]);
    expect(rejected.map((r) => r.index)).toEqual([0]);
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
        { kind: "sticker", set: "cats", emoji: "😺" },
        { kind: "sticker", set: "Dogs", emoji: "🐶" },
      ]),
      ctx,
    );
    expect(tasks).toHaveLength(1);
    expect(rejected[0]!.reason).toMatch(/"Dogs" is not one of the persona's sets/);
    expect(
      validatePlan(plan([{ kind: "sticker", set: "Cats", emoji: "😺" }]), { ...ctx, stickerSets: [] })
        .rejected[0]!.reason,
    ).toMatch(/unknown kind "sticker"/);
  });

  it("bounds waits", () => {
    const { rejected } = validatePlan(plan([{ kind: "wait", seconds: 7200 }]), ctx);
    expect(rejected[0]!.reason).toMatch(/seconds/);
  });

  it("reads a schedule's time in the persona's zone and refuses what cannot be one, saying what to write", () => {
    // Sunday 2026-11-22 13:00 in Berlin (12:00 UTC).
    const now = Date.UTC(2026, 10, 22, 12, 0);
    const c = {
      ...ctx,
      intentions: true,
      cancellable: true,
      timeZone: "Europe/Berlin",
      now,
      intentionIds: new Set([4]),
    };
    const r = validatePlan(
      JSON.stringify({
        tasks: [
          { kind: "schedule", note: "ask how the exam went", at: "2026-11-23 18:00" },
          { kind: "schedule", note: "both", at: "2026-11-23 18:00", after_minutes: 5 },
          { kind: "schedule", note: "neither" },
          { kind: "schedule", note: "no date", at: "tomorrow 9am" },
          { kind: "schedule", note: "a 30th of February", at: "2027-02-30 09:00" },
          { kind: "schedule", note: "too far", after_minutes: 91 * 24 * 60 },
          { kind: "cancel_schedule", id: 4 },
          { kind: "cancel_schedule", id: 5 },
        ],
      }),
      c,
    );
    expect(r.tasks.map((t) => t.kind)).toEqual(["schedule", "cancel_schedule"]);
    expect(scheduleDue(r.tasks[0] as { at: string }, "Europe/Berlin", now)).toBe(
      Date.UTC(2026, 10, 23, 17, 0),
    );
    expect(r.rejected.map((x) => x.reason)).toEqual([
      'give either at ("YYYY-MM-DD HH:MM", your local time) or after_minutes, one of them',
      'give either at ("YYYY-MM-DD HH:MM", your local time) or after_minutes, one of them',
      'at "tomorrow 9am" is not a time: write "YYYY-MM-DD HH:MM", your local time (it is 2026-11-22 13:00 now)',
      'at "2027-02-30 09:00" is not a time: write "YYYY-MM-DD HH:MM", your local time (it is 2026-11-22 13:00 now)',
      "more than 90 days ahead",
      "id 5 is not one of your pending intentions in this chat",
    ]);
    // Not offered to a persona without intentions: an unknown kind.
    const off = validatePlan(
      JSON.stringify({ tasks: [{ kind: "schedule", note: "x", after_minutes: 5 }] }),
      ctx,
    );
    expect(off.rejected[0]!.reason).toBe('unknown kind "schedule"');
  });
});
