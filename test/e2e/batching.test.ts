import { afterEach, describe, expect, it } from "vitest";
import type { EmuChat } from "../../emulator";
import { lastUserText, type GenerateBody } from "../support/gemini-fake";
import { Harness, plan } from "../support/harness";
import { latch, until } from "../support/wait";

let h: Harness;
afterEach(async () => {
  await h?.close();
});

/** Answer every planning call with `reply(its last user turn: the addressed messages)`, noting the fake time of each call. */
function answerAll(reply: (text: string) => unknown): number[] {
  const at: number[] = [];
  h.gemini.respondWith((body: GenerateBody) => {
    at.push(h.clock.now());
    return reply(lastUserText(body)) as never;
  });
  return at;
}

/** The persona's chat actions in a chat, as the server recorded them: [action, fake ms since t0]. */
const actions = (chat: EmuChat, t0: number) =>
  h.emu.traffic
    .typing(chat)
    .filter((t) => t.account === h.account)
    .map((t) => [t.action, t.at - t0] as const);

describe("humane batching: a burst is planned once, after the chat goes quiet", () => {
  it("3 DMs 2 s apart → one planning call that carries all three, one answer", async () => {
    h = await Harness.start();
    const dm = h.emu.dm(h.account, h.carol);
    const calls = answerAll(() => plan({ kind: "send", text: "ok, all three noted" }));
    const t0 = h.clock.now();
    const texts = ["hey, quick thing", "I moved the meeting", "to Friday at 3, fine?"];
    for (const [i, text] of texts.entries()) {
      if (i > 0) await h.pass(2000);
      await h.emu.post({ chat: dm, from: h.carol, text });
    }
    await h.pass(30_000);

    expect(calls).toHaveLength(1);
    // All three are the messages the call answers (its last user turn), not just history before one.
    const addressed = lastUserText(h.gemini.requests[0]!.body);
    for (const t of texts) expect(addressed).toContain(t);
    expect(h.sent(dm).map((m) => m.text)).toEqual(["ok, all three noted"]);
    // Planned one quiet window (3 s) after the last message (at 4 s); typing from then on.
    expect(calls[0]! - t0).toBe(7000);
    expect(actions(dm, t0)[0]).toEqual(["SendMessageTypingAction", 7000]);
  });

  it("5 mentions 1 s apart in a group → one planning call that carries all five, one answer", async () => {
    h = await Harness.start();
    const calls = answerAll(() => plan({ kind: "send", text: "one answer for everyone" }));
    const who = [h.alice, h.bob, h.alice, h.carol, h.bob];
    const texts = who.map((u, i) => `@mira_ai question ${i + 1} from ${u.firstName}`);
    for (const [i, text] of texts.entries()) {
      if (i > 0) await h.pass(1000);
      await h.emu.post({ chat: h.group, from: who[i]!, text });
    }
    await h.pass(30_000);

    expect(calls).toHaveLength(1);
    const body = JSON.stringify(h.gemini.requests[0]!.body);
    // (The @mention is written as the persona's reference in the prompt.)
    for (const t of texts) expect(body).toContain(t.replace("@mira_ai", "[Mira](tg:@mira_ai)"));
    expect(h.sent(h.group).map((m) => m.text)).toEqual(["one answer for everyone"]);
  });

  it("a message after the quiet window is a new burst (and replans if planning had begun)", async () => {
    h = await Harness.start();
    const dm = h.emu.dm(h.account, h.carol);
    const calls = answerAll((turn) =>
      plan({ kind: "send", text: turn.includes("bananas") ? "answer 2" : "answer 1" }),
    );
    await h.emu.post({ chat: dm, from: h.carol, text: "apples?" });
    await h.pass(20_000);
    await h.emu.post({ chat: dm, from: h.carol, text: "bananas?" });
    await h.pass(20_000);
    expect(calls).toHaveLength(2);
    expect(h.sent(dm).map((m) => m.text)).toEqual(["answer 1", "answer 2"]);
  });
});

describe("humane batching: the author's typing", () => {
  it("the author typing in a DM holds planning until the next message, which joins the burst", async () => {
    h = await Harness.start();
    const dm = h.emu.dm(h.account, h.carol);
    const calls = answerAll(() => plan({ kind: "send", text: "got both parts" }));
    const t0 = h.clock.now();
    await h.emu.post({ chat: dm, from: h.carol, text: "so here is the thing" });
    await h.pass(2000);
    await h.emu.chats.userTyping(dm, h.carol); // shown until 8 s
    await h.pass(3000);
    await h.emu.chats.userTyping(dm, h.carol); // renewed: until 11 s
    await h.pass(3000);
    expect(calls).toHaveLength(0); // past the 3 s quiet window, but she is typing
    await h.emu.post({ chat: dm, from: h.carol, text: "part two of the thing" });
    await h.pass(30_000);

    expect(calls).toHaveLength(1);
    const body = JSON.stringify(h.gemini.requests[0]!.body);
    expect(body).toContain("so here is the thing");
    expect(body).toContain("part two of the thing");
    // Her message at 8 s restarted the quiet window; her typing status (till 11 s) ended with it.
    expect(calls[0]! - t0).toBe(11_000);
    expect(h.sent(dm).map((m) => m.text)).toEqual(["got both parts"]);
  });

  it("a cancelled typing status releases the hold at once; someone else's typing holds nothing", async () => {
    h = await Harness.start();
    const calls = answerAll(() => plan({ kind: "send", text: "sure" }));
    const t0 = h.clock.now();
    await h.emu.post({ chat: h.group, from: h.alice, text: "@mira_ai are you around?" });
    await h.pass(1000);
    await h.emu.chats.userTyping(h.group, h.alice); // until 7 s
    await h.emu.chats.userTyping(h.group, h.bob); // bob is not the author
    await h.pass(3000);
    expect(calls).toHaveLength(0);
    await h.emu.chats.userTyping(h.group, h.alice, { action: "cancel" }); // she gave up at 4 s
    await h.pass(200);
    expect(calls).toHaveLength(1);
    expect(calls[0]! - t0).toBeLessThanOrEqual(4100);
    await h.pass(20_000);
    expect(h.sent(h.group).map((m) => m.text)).toEqual(["sure"]);
  });

  it("typing forever does not hold the answer back: planning starts 18 s after the first message at the latest", async () => {
    h = await Harness.start();
    const calls = answerAll(() => plan({ kind: "send", text: "I'll answer anyway" }));
    const t0 = h.clock.now();
    await h.emu.post({ chat: h.club, from: h.bob, text: "Mira, what do you think?" });
    // Bob keeps "typing" in the basic group for a minute without ever sending.
    for (let s = 1; s < 60; s += 4) {
      await h.emu.chats.userTyping(h.club, h.bob);
      await h.pass(4000);
    }
    expect(calls).toHaveLength(1);
    // Quiet window (3 s) + the bounded extra wait (15 s), then the next tick.
    expect(calls[0]! - t0).toBeGreaterThanOrEqual(18_000);
    expect(calls[0]! - t0).toBeLessThanOrEqual(18_100);
    expect(h.sent(h.club).map((m) => m.text)).toEqual(["I'll answer anyway"]);
  });
});

describe("replanning without typing flicker", () => {
  it("a message while the persona types replans; its typing stays on screen (no cancel, no gap) until the new answer", async () => {
    h = await Harness.start();
    const t0 = h.clock.now();
    h.gemini.script(
      plan({ kind: "send", text: "y".repeat(200) }),
      plan({ kind: "send", text: "new answer" }),
    );
    await h.emu.post({ chat: h.group, from: h.alice, text: "@mira_ai tell me a long story" });
    await h.pass(6000); // planned at 3 s, typing since then (a 21 s spell)
    await h.emu.post({ chat: h.group, from: h.alice, text: "@mira_ai actually, just say hi" });
    await h.pass(60_000);

    expect(h.gemini.requests).toHaveLength(2);
    expect(h.sent(h.group).map((m) => m.text)).toEqual(["new answer"]);
    const typed = actions(h.group, t0);
    expect(typed.map(([a]) => a)).not.toContain("SendMessageCancelAction");
    // Telegram shows a typing status ~6 s: refreshed at most 5 s apart, it never lapses
    // between the first spell and the new answer.
    const sentAt = h.emu.traffic.requests
      .filter((r) => r.method === "messages.SendMessage")
      .map((r) => r.at - t0)[0]!;
    const times = [...typed.map(([, at]) => at), sentAt];
    for (let i = 1; i < times.length; i++) expect(times[i]! - times[i - 1]!).toBeLessThanOrEqual(5000);
  });

  it("while the new plan is being made (a slow planner), the bridge keeps refreshing the typing status", async () => {
    h = await Harness.start();
    const t0 = h.clock.now();
    const gate = latch();
    h.gemini.script(plan({ kind: "send", text: "y".repeat(200) }), {
      after: gate.promise,
      then: plan({ kind: "send", text: "new answer" }),
    });
    await h.emu.post({ chat: h.group, from: h.alice, text: "@mira_ai tell me a long story" });
    await h.pass(6000); // planned at 3 s, typing since then; next refresh due at 8 s
    await h.emu.post({ chat: h.group, from: h.alice, text: "@mira_ai actually, just say hi" }); // replans at 9 s
    // The planner takes 8 s of (fake) time: let the clock run while its answer is held.
    const settle = h.clock.settle;
    h.clock.settle = async () => {};
    await h.pass(3100);
    await until(() => h.gemini.requests.length === 2);
    await h.pass(8000);
    h.clock.settle = settle;
    gate.release();
    await h.pass(60_000);

    expect(h.sent(h.group).map((m) => m.text)).toEqual(["new answer"]);
    const typed = actions(h.group, t0);
    expect(typed.map(([a]) => a)).not.toContain("SendMessageCancelAction");
    // Refreshed during the planning call (9 s – 17 s), not only before and after it.
    expect(typed.some(([, at]) => at > 9000 && at < 17_000)).toBe(true);
    const sentAt = h.emu.traffic.requests
      .filter((r) => r.method === "messages.SendMessage")
      .map((r) => r.at - t0)[0]!;
    const times = [...typed.map(([, at]) => at), sentAt];
    for (let i = 1; i < times.length; i++) expect(times[i]! - times[i - 1]!).toBeLessThanOrEqual(5000);
  });

  it("a message during planning replans: the stale plan never types, the new one types once", async () => {
    h = await Harness.start();
    const t0 = h.clock.now();
    const gate = latch();
    h.gemini.script(
      { after: gate.promise, then: plan({ kind: "send", text: "stale" }) },
      plan({ kind: "send", text: "fresh" }),
    );
    await h.emu.post({ chat: h.group, from: h.alice, text: "@mira_ai one" });
    const passing = h.pass(3200);
    await until(() => h.gemini.requests.length === 1);
    await h.emu.post({ chat: h.group, from: h.alice, text: "@mira_ai two" });
    gate.release();
    await passing;
    await h.pass(30_000);
    expect(h.gemini.requests).toHaveLength(2);
    expect(h.sent(h.group).map((m) => m.text)).toEqual(["fresh"]);
    expect(actions(h.group, t0).map(([a]) => a)).toEqual(["SendMessageTypingAction"]);
  });
});

describe("forum topics: one task graph per topic", () => {
  it("a burst across two topics → two planning calls, each answer in its own topic", async () => {
    h = await Harness.start();
    const forum = h.emu.createSupergroup({
      title: "Forum",
      members: [h.account, h.alice, h.bob],
      forum: true,
    });
    const travel = h.emu.createTopic(forum, "Travel");
    const food = h.emu.createTopic(forum, "Food");
    const t0 = h.clock.now();
    // Food's burst (one message at 0.5 s) is due at 3.5 s, Travel's (0 s and 1 s) at 4 s.
    const calls = answerAll(() =>
      plan({ kind: "send", text: h.clock.now() - t0 === 4000 ? "May or September." : "Try the pastéis." }),
    );
    await h.emu.post({
      chat: forum,
      from: h.alice,
      text: "@mira_ai best time to visit Porto?",
      topicId: travel,
    });
    await h.pass(500);
    await h.emu.post({
      chat: forum,
      from: h.bob,
      text: "@mira_ai what should I eat in Lisbon?",
      topicId: food,
    });
    await h.pass(500);
    await h.emu.post({
      chat: forum,
      from: h.alice,
      text: "@mira_ai and for Porto, hotels or flats?",
      topicId: travel,
    });
    await h.pass(30_000);

    expect(calls.map((at) => at - t0)).toEqual([3500, 4000]);
    expect(JSON.stringify(h.gemini.requests[1]!.body)).toContain("best time to visit Porto");
    const mine = h.emu.history(forum).filter((m) => m.fromId === h.account.id);
    expect(mine.map((m) => [m.text, m.topicId]).sort()).toEqual(
      [
        ["May or September.", travel],
        ["Try the pastéis.", food],
      ].sort(),
    );
    // Each topic's typing is shown in that topic.
    const typedTopics = new Set(
      h.emu.traffic
        .typing(forum)
        .filter((t) => t.account === h.account)
        .map((t) => t.topicId),
    );
    expect(typedTopics).toEqual(new Set([travel, food]));
  });

  it("a new message in one topic does not replan the other topic's answer", async () => {
    h = await Harness.start();
    const forum = h.emu.createSupergroup({
      title: "Forum",
      members: [h.account, h.alice, h.bob],
      forum: true,
    });
    const travel = h.emu.createTopic(forum, "Travel");
    const food = h.emu.createTopic(forum, "Food");
    const calls = answerAll((turn) =>
      plan({ kind: "send", text: turn.includes("Porto") ? "x".repeat(150) : "Bacalhau." }),
    );
    await h.emu.post({
      chat: forum,
      from: h.alice,
      text: "@mira_ai tell me all about Porto",
      topicId: travel,
    });
    await h.pass(6000); // planned at 3 s, typing a 16 s answer in Travel
    await h.emu.post({ chat: forum, from: h.bob, text: "@mira_ai dinner tip?", topicId: food });
    await h.pass(60_000);
    expect(calls).toHaveLength(2);
    const mine = h.emu.history(forum).filter((m) => m.fromId === h.account.id);
    expect(mine.map((m) => m.topicId).sort()).toEqual([travel, food].sort());
    expect(h.emu.traffic.typing(forum).map((t) => t.action)).not.toContain("SendMessageCancelAction");
  });

  it("the author's typing in another topic does not hold this topic's burst", async () => {
    h = await Harness.start();
    const forum = h.emu.createSupergroup({ title: "Forum", members: [h.account, h.alice], forum: true });
    const travel = h.emu.createTopic(forum, "Travel");
    const food = h.emu.createTopic(forum, "Food");
    const calls = answerAll(() => plan({ kind: "send", text: "ok" }));
    const t0 = h.clock.now();
    await h.emu.post({ chat: forum, from: h.alice, text: "@mira_ai ping", topicId: travel });
    await h.pass(2000);
    await h.emu.chats.userTyping(forum, h.alice, { topicId: food });
    await h.pass(2000);
    expect(calls.map((at) => at - t0)).toEqual([3000]);
    await h.emu.chats.userTyping(forum, h.alice, { topicId: travel });
    await h.emu.post({ chat: forum, from: h.alice, text: "@mira_ai ping again", topicId: travel });
    await h.pass(30_000);
    expect(calls).toHaveLength(2);
  });
});
