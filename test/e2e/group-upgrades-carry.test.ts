import { afterEach, describe, expect, it } from "vitest";
import { SUMMARY_INSTRUCTION } from "../../src/summary/summariser";
import type { GenerateBody } from "../support/gemini-fake";
import { Harness, TEST_PERSONA, plan } from "../support/harness";

let h: Harness;
afterEach(async () => {
  await h?.close();
});

const NOTES = {
  goals_and_open_questions: [],
  decisions: ["the picnic is in the rose garden"],
  facts: ["Bob owns a red kite"],
  outcomes: [],
  pending_actions: [],
};
const isSummary = (body: GenerateBody) => body.systemInstruction?.parts?.[0]?.text === SUMMARY_INSTRUCTION;

/** Issue 38 point 1, continued: what the old group knew follows it into the supergroup (docs/chat-upgrades.md). */
describe("a group upgraded to a supergroup: what carries over", () => {
  it("the supergroup's request shows the old group's rolling summary, and only the old messages after it", async () => {
    h = await Harness.start();
    const plans = [
      plan({ kind: "send", text: "rose garden it is" }),
      plan({ kind: "send", text: "yes, Bob's kite" }),
    ];
    h.gemini.respondWith((body) => (isSummary(body) ? { json: NOTES } : (plans.shift() ?? plan())));
    for (let i = 0; i < 31; i++)
      await h.emu.post({ chat: h.club, from: i % 2 ? h.bob : h.alice, text: `picnic chatter number ${i}` });
    await h.emu.post({ chat: h.club, from: h.alice, text: "@mira_ai so where is the picnic?" });
    await h.pass(20_000);
    expect(h.runtime.summaries.get(`root:${h.club.peerId}`)).toBeDefined();
    expect(h.sent(h.club).map((m) => m.text)).toEqual(["rose garden it is"]);

    const sg = h.emu.chats.upgrade(h.club);
    await h.emu.idle();
    await h.pass(1000);
    await h.emu.post({ chat: sg, from: h.bob, text: "@mira_ai remember what I bring?" });
    await h.pass(20_000);
    expect(h.sent(sg).map((m) => m.text)).toEqual(["yes, Bob's kite"]);
    const turn = h.lastUserTurn();
    expect(turn).toContain("⟦before the upgrade⟧");
    expect(turn).toContain("Summary of its earlier history:");
    expect(turn).toContain("the picnic is in the rose garden");
    expect(turn).toContain("Bob owns a red kite");
    // The summarised messages are not repeated, even those among the last 30 (chatter i is message
    // #i+1; the window would show #3 on); the ones after the summary are shown.
    const { toId } = h.runtime.summaries.get(`root:${h.club.peerId}`)!;
    const covered = Array.from({ length: toId - 2 }, (_, k) => k + 2); // chatter 2 .. toId - 1
    expect(covered.length).toBeGreaterThan(0);
    for (const i of covered) expect(turn).not.toMatch(new RegExp(`picnic chatter number ${i}$`, "m"));
    expect(turn).toMatch(new RegExp(`picnic chatter number ${toId}$`, "m"));
    expect(turn).toContain("picnic chatter number 30");
    expect(turn).toContain("so where is the picnic?");
    // The summary's own head names ids of the old chat, meaningless in the supergroup.
    expect(turn).not.toMatch(/Summary of this conversation up to message #/);
  });

  it("a group the owner allowed by its old id (# Allowed Groups) is still allowed as the supergroup", async () => {
    h = await Harness.start();
    await h.restart({ persona: `${TEST_PERSONA}\n# Allowed Groups\n${h.club.peerId}\n` });
    h.gemini.script(plan({ kind: "send", text: "hi club" }));
    await h.emu.post({ chat: h.club, from: h.bob, text: "Mira, hi" });
    await h.pass(20_000);
    expect(h.sent(h.club).map((m) => m.text)).toEqual(["hi club"]);
    const sg = h.emu.chats.upgrade(h.club);
    await h.emu.idle();
    await h.pass(1000);
    h.gemini.script(plan({ kind: "send", text: "still here" }));
    await h.emu.post({ chat: sg, from: h.alice, text: "Mira, are you still with us?" });
    await h.pass(20_000);
    expect(h.sent(sg).map((m) => m.text)).toEqual(["still here"]);
    // Another group, never allowed, stays closed.
    const other = h.emu.createSupergroup({ title: "Other", members: [h.account, h.alice] });
    await h.emu.post({ chat: other, from: h.alice, text: "Mira, and here?" });
    await h.pass(20_000);
    expect(h.sent(other)).toEqual([]);
  });

  it('a "stop" said to her in the old group still holds in the supergroup', async () => {
    h = await Harness.start();
    h.gemini.script(plan({ kind: "send", text: "the museum opens at nine" }));
    await h.emu.post({ chat: h.club, from: h.alice, text: "Mira, when does the museum open?" });
    await h.pass(20_000);
    expect(h.sent(h.club).map((m) => m.text)).toEqual(["the museum opens at nine"]);
    await h.emu.post({ chat: h.club, from: h.bob, text: "shut up bot" });
    await h.pass(1000);
    const sg = h.emu.chats.upgrade(h.club);
    await h.emu.idle();
    await h.pass(1000);
    h.gemini.script(plan({ kind: "send", text: "ten" }));
    await h.emu.post({ chat: sg, from: h.alice, text: "Mira, and when does it close?" });
    await h.pass(20_000);
    expect(h.sent(sg).map((m) => m.text)).toEqual(["ten"]);
    expect(h.lastUserTurn()).toContain('Someone here told you to stop ("shut up bot"');
  });
});

describe("a group upgraded to a supergroup, seen only from the old chat's object", () => {
  it("a difference too long, and the old group's history fails: the dialogs' deactivated chat (migrated_to) is enough to follow the move", async () => {
    h = await Harness.start({
      emulator: { updateShapes: "telegram", updateLimits: { differenceTooLongAfter: 10 } },
    });
    h.gemini.script(plan({ kind: "send", text: "hello club" }));
    await h.emu.post({ chat: h.club, from: h.bob, text: "Mira, hi" });
    await h.pass(20_000);
    expect(h.sent(h.club).map((m) => m.text)).toEqual(["hello club"]);
    h.crash();
    const sg = h.emu.chats.upgrade(h.club);
    // More missed than one difference may carry (DMs), and
    const dm = h.emu.dm(h.account, h.carol);
    for (let i = 0; i < 15; i++) await h.emu.post({ chat: dm, from: h.carol, text: `note ${i}` });
    // a busy supergroup: its migrate-from service message is far behind its newest messages.
    for (let i = 0; i < 260; i++)
      await h.emu.post({ chat: sg, from: i % 2 ? h.alice : h.bob, text: `busy talk ${i}` });
    // The old group's page (where its migrate-to service message is) cannot be read this time.
    h.emu.faults.failNext("messages.GetHistory", "INTERNAL", { peer: h.club, code: 500, times: 5 });
    h.boot();
    await h.runtime.caughtUp;
    await h.pass(5_000);
    expect(h.log.lines().some((l) => /history backfill failed/.test(String(l.msg)))).toBe(true);
    expect(h.log.lines().some((l) => /group upgraded to a supergroup: followed/.test(String(l.msg)))).toBe(
      true,
    );
    h.gemini.respondWith((body) =>
      isSummary(body) ? { json: NOTES } : plan({ kind: "send", text: "yes, still here" }),
    );
    await h.emu.post({ chat: sg, from: h.alice, text: "Mira, still with us?" });
    await h.pass(30_000);
    expect(h.sent(sg).map((m) => m.text)).toEqual(["yes, still here"]);
    expect(h.lastUserTurn()).toContain("⟦before the upgrade⟧");
    expect(h.lastUserTurn()).toContain("Mira, hi");
  });

  it("the hourly caps carry: two answers in the group (# Answers Per Hour 2), then upgraded, the supergroup's next mention is held until the hour has room", async () => {
    h = await Harness.start({ persona: `${TEST_PERSONA}\n# Answers Per Hour\n2\n# Person Share\n100\n` });
    h.gemini.respondWith(() => plan({ kind: "send", text: "ok" }));
    for (const i of [1, 2]) {
      await h.emu.post({ chat: h.club, from: h.alice, text: `Mira, question ${i}` });
      await h.pass(60_000);
    }
    expect(h.sent(h.club)).toHaveLength(2);
    const sg = h.emu.chats.upgrade(h.club);
    await h.emu.idle();
    await h.pass(1000);
    const held = await h.emu.post({ chat: sg, from: h.bob, text: "Mira, and a third?" });
    await h.pass(60_000);
    expect(h.gemini.requests).toHaveLength(2); // the hour's two answers were given in the group
    expect(h.sent(sg)).toEqual([]);
    expect(h.runtime.messages.get(sg.peerId, held.id)?.text).toBe("Mira, and a third?");

    // An hour after the group's first answer the window has room again, in the supergroup too.
    await h.pass(3_600_000 - 3 * 60_000);
    await h.emu.post({ chat: sg, from: h.bob, text: "Mira, now?" });
    await h.pass(60_000);
    expect(h.sent(sg).map((m) => m.text)).toEqual(["ok"]);
  });

  it("the chat's token share carries: what the group spent today counts for the supergroup (# Chat Token Share), another chat is still answered", async () => {
    // 10,000 tokens a day, one chat at most 20% of it: 2,000 — two plans of 1,000.
    h = await Harness.start({
      persona: `${TEST_PERSONA}\n# Daily Token Budget\n10000\n# Chat Token Share\n20\n# Person Token Share\n100\n`,
    });
    const usage = { promptTokenCount: 900, candidatesTokenCount: 100 };
    h.gemini.respondWith(() => ({ json: { tasks: [{ kind: "send", text: "ok" }] }, usage }));
    for (const i of [1, 2]) {
      await h.emu.post({ chat: h.club, from: h.alice, text: `Mira, question ${i}` });
      await h.pass(60_000);
    }
    expect(h.sent(h.club)).toHaveLength(2);
    const sg = h.emu.chats.upgrade(h.club);
    await h.emu.idle();
    await h.pass(1000);
    await h.emu.post({ chat: sg, from: h.bob, text: "Mira, and a third?" });
    await h.pass(60_000);
    expect(h.gemini.requests).toHaveLength(2);
    expect(h.sent(sg)).toEqual([]);
    expect(h.runtime.caps.cappedChats()).toEqual([
      expect.objectContaining({ chatId: sg.peerId, cap: "chat-token-share" }),
    ]);
    await h.emu.post({ chat: h.group, from: h.bob, text: "@mira_ai and here?" });
    await h.pass(60_000);
    expect(h.sent(h.group).map((m) => m.text)).toEqual(["ok"]);
  });

  it("talkative mode's interjections per hour carry: one in the group (# Interjections Per Hour 1), then upgraded, she does not join in again in the supergroup within the hour", async () => {
    h = await Harness.start({
      persona: `${TEST_PERSONA}\n# Group Mode\ntalkative\n# Interjections Per Hour\n1\n`,
    });
    const judge = {
      reason: "a question to the room",
      addressed: false,
      confidence: 0.1,
      wanna_interject: true,
      interject: 0.9,
      is_lightweight: false,
    };
    h.gemini.respondWith((_body, _i, model) =>
      model === "gemini-2.5-flash-lite" ? { json: judge } : plan({ kind: "send", text: "count me in!" }),
    );
    await h.emu.post({ chat: h.club, from: h.alice, text: "anyone up for lunch today?" });
    await h.pass(5 * 60_000);
    expect(h.sent(h.club).map((m) => m.text)).toEqual(["count me in!"]);
    const sg = h.emu.chats.upgrade(h.club);
    await h.emu.idle();
    await h.pass(1000);
    await h.emu.post({ chat: sg, from: h.bob, text: "who has the keys to the storage room?" });
    await h.pass(5 * 60_000);
    expect(h.sent(sg)).toEqual([]);

    // An hour after the group's interjection the cap has room again, in the supergroup too.
    await h.pass(50 * 60_000);
    await h.emu.post({ chat: sg, from: h.bob, text: "does anyone know when the release is?" });
    await h.pass(5 * 60_000);
    expect(h.sent(sg).map((m) => m.text)).toEqual(["count me in!"]);
  });
});
