/**
 * Structured history, thread lanes and the replied-to message in view (issue 8 §2–§4), end to
 * end: the emulator behind real GramJS, the real Gemini SDK against the loopback fake, FakeClock.
 */
import { Api } from "telegram";
import { returnBigInt } from "telegram/Helpers";
import { afterEach, describe, expect, it } from "vitest";
import { Harness, plan, TEST_PERSONA } from "../support/harness";

let h: Harness;
afterEach(async () => {
  await h?.close();
});

/** How often `needle` occurs in `hay`. */
const count = (hay: string, needle: string) => hay.split(needle).length - 1;

describe("thread lanes", () => {
  it("a question inside one of two interleaved reply threads carries no message of the other", async () => {
    h = await Harness.start();
    const snacks = await h.emu.post({ chat: h.group, from: h.alice, text: "who's bringing snacks on Friday?" });
    const match = await h.emu.post({ chat: h.group, from: h.bob, text: "what time does the match start?" });
    const chips = await h.emu.post({ chat: h.group, from: h.carol, text: "I'll bring chips", replyTo: snacks.id });
    await h.emu.post({ chat: h.group, from: h.alice, text: "8pm I think, channel 5", replyTo: match.id });
    await h.emu.post({ chat: h.group, from: h.carol, text: "is it the final?", replyTo: match.id });
    await h.emu.post({ chat: h.group, from: h.alice, text: "anyone up for pizza later?" });
    const ask = await h.emu.post({ chat: h.group, from: h.bob, text: "@mira_ai can you bring drinks?", replyTo: chips.id });
    h.gemini.script(plan({ kind: "send", text: "sure, lemonade", reply_to: ask.id }));
    await h.pass(20_000);

    expect(h.gemini.requests).toHaveLength(1);
    const all = h.lastUserTurn();
    for (const other of ["what time does the match start?", "8pm I think", "is it the final?", "pizza"]) expect(all).not.toContain(other);
    // Thread 1: its opening message and carol's reply as history, bob's question as the request.
    expect(h.historyParts()).toEqual([expect.stringContaining("who's bringing snacks on Friday?"), expect.stringContaining("I'll bring chips")]);
    expect(h.nowParts()).toEqual([expect.stringContaining("can you bring drinks?")]);

    // The persona's answer joins the thread: the next question there sees it, with its id.
    const [answer] = h.sent(h.group);
    const again = await h.emu.post({ chat: h.group, from: h.alice, text: "lemonade? really?", replyTo: answer!.id });
    h.gemini.script(plan());
    await h.pass(20_000);
    expect(h.gemini.requests).toHaveLength(2);
    expect(h.historyParts()).toContainEqual(expect.stringMatching(new RegExp(`^⟦#${answer!.id} agent · .*⟧\\n\\[↩ reply to #${ask.id} \\[Bob\\]\\(tg:@bob\\)\\]\\nsure, lemonade$`)));
    expect(h.nowParts()).toEqual([expect.stringContaining(`⟧\n[↩ reply to #${answer!.id} agent]\nlemonade? really?`)]);
    expect(h.lastUserTurn()).not.toContain("match");
    expect(again.id).toBeGreaterThan(answer!.id);
  });

  it("a question in the open chat sees the persona's earlier answer, though that went into a reply thread", async () => {
    h = await Harness.start();
    const first = await h.emu.post({ chat: h.group, from: h.alice, text: "@mira_ai what's a good board game for 6?" });
    h.gemini.script(plan({ kind: "send", text: "Codenames!", reply_to: first.id }));
    await h.pass(20_000);
    const [answer] = h.sent(h.group);
    await h.emu.post({ chat: h.group, from: h.bob, text: "@mira_ai and for two players?" });
    h.gemini.script(plan());
    await h.pass(20_000);
    expect(h.historyParts()).toEqual([
      expect.stringContaining("what's a good board game for 6?"),
      expect.stringMatching(new RegExp(`^⟦#${answer!.id} agent · [^⟧]*⟧\n\\[↩ reply to #${first.id} \\[Alice\\]\\(tg:@alice\\)\\]\nCodenames!$`)),
    ]);
  });

  it("a question in one forum topic carries no message of another topic", async () => {
    h = await Harness.start();
    const forum = h.emu.createSupergroup({ title: "Forum", members: [h.account, h.alice, h.bob], forum: true });
    const travel = h.emu.createTopic(forum, "Travel");
    const films = h.emu.createTopic(forum, "Films");
    await h.emu.post({ chat: forum, from: h.bob, text: "Porto was lovely in May", topicId: travel });
    await h.emu.post({ chat: forum, from: h.alice, text: "Dune 2 is out on Friday", topicId: films });
    await h.emu.post({ chat: forum, from: h.alice, text: "@mira_ai when should I go to Porto?", topicId: travel });
    h.gemini.script(plan());
    await h.pass(20_000);

    expect(h.gemini.requests).toHaveLength(1);
    expect(h.lastUserTurn()).not.toContain("Dune");
    expect(h.lastUserTurn()).toContain("when should I go to Porto?");
  });
});

describe("window sizes from the persona", () => {
  it("# History Window sizes a private chat's window, # Focused Window a strict group's", async () => {
    h = await Harness.start({ persona: `${TEST_PERSONA}\n# History Window\n3\n\n# Focused Window\n1\n` });
    const dm = h.emu.dm(h.account, h.carol);
    for (let i = 1; i <= 6; i++) await h.emu.post({ chat: dm, from: h.carol, text: `note number ${i}` });
    h.gemini.respondWith(() => plan({ kind: "send", text: "noted" }));
    await h.pass(20_000);
    await h.emu.post({ chat: dm, from: h.carol, text: "and now?" });
    await h.pass(20_000);
    expect(h.historyParts()).toHaveLength(3); // the newest 3 of the lane: note 5, note 6 and the persona's answer
    expect(h.historyParts().at(-1)).toMatch(/⟧ noted$/);

    await h.emu.post({ chat: h.group, from: h.alice, text: "@mira_ai first?" });
    await h.pass(20_000);
    await h.emu.post({ chat: h.group, from: h.alice, text: "@mira_ai second?" });
    await h.pass(20_000);
    expect(h.historyParts()).toHaveLength(1); // of "first?" and its answer, only the newest
    expect(h.historyParts()[0]).toMatch(/⟧ noted$/);
  });
});

describe("the replied-to message in view", () => {
  it("injects a replied-to message older than the window once, and never duplicates one inside it", async () => {
    h = await Harness.start();
    const dm = h.emu.dm(h.account, h.carol);
    const first = await h.emu.post({ chat: dm, from: h.carol, text: "the plan: meet at the old bridge at 6" });
    for (let i = 1; i <= 24; i++) await h.emu.post({ chat: dm, from: h.carol, text: `note number ${i}` });
    h.gemini.respondWith(() => plan());
    await h.pass(20_000);
    const before = h.gemini.requests.length;

    // Out of the window (a private chat keeps the last 16): injected as a history item, once.
    const outside = await h.emu.post({ chat: dm, from: h.carol, text: "still on?", replyTo: first.id });
    await h.pass(20_000);
    expect(h.gemini.requests).toHaveLength(before + 1);
    let all = h.lastUserTurn();
    expect(count(all, "the plan: meet at the old bridge at 6")).toBe(1);
    expect(h.historyParts()[0]).toMatch(new RegExp(`^⟦#${first.id} \\[Carol\\]\\(tg:@carol\\) · [^⟧]*⟧ the plan: meet at the old bridge at 6$`));
    expect(count(all, "note number 1\n") + count(all, "note number 1⟧")).toBe(0);
    expect(h.nowParts()).toEqual([expect.stringContaining(`\n[↩ reply to #${first.id} [Carol](tg:@carol)]\nstill on?`)]);
    expect(all).not.toContain("> the plan");

    // Inside the window: the reply line names it; its text is there once, as its own item.
    const inside = await h.emu.post({ chat: dm, from: h.carol, text: "wait, which one?", replyTo: outside.id - 2 });
    await h.pass(20_000);
    all = h.lastUserTurn();
    expect(count(all, "note number 23")).toBe(1);
    // "still on?" is history now; what it replies to is out of view, so its line quotes it (once).
    expect(count(all, "the old bridge")).toBe(1);
    expect(h.historyParts()).toContainEqual(expect.stringContaining(`[↩ reply to #${first.id} [Carol](tg:@carol)]\n> the plan: meet at the old bridge at 6\nstill on?`));
    expect(h.nowParts()).toEqual([expect.stringContaining(`\n[↩ reply to #${outside.id - 2} [Carol](tg:@carol)]\nwait, which one?`)]);
    expect(all).not.toContain("> note number");
    expect(inside.id).toBeGreaterThan(outside.id);
  });
});

describe("speaker references, mentions and quotes", () => {
  it("rewrites @mentions and text mentions (UTF-16 offsets, an emoji before them) to references", async () => {
    h = await Harness.start();
    const dan = h.emu.addUser({ firstName: "Dan" }); // no username
    h.emu.addMember(h.group, dan);
    await h.emu.post({ chat: h.group, from: h.bob, text: "hi all" }); // bob is now known by name
    const text = "🎉🎉 @mira_ai tell @bob and Danny the news";
    const danny = text.indexOf("Danny"); // UTF-16 code units, as Telegram counts
    expect(danny).not.toBe(Array.from(text).indexOf("D")); // the emoji make code points differ
    await h.emu.post({
      chat: h.group,
      from: h.alice,
      text,
      entities: [new Api.MessageEntityMentionName({ offset: danny, length: 5, userId: returnBigInt(dan.id) })],
    });
    h.gemini.script(plan());
    await h.pass(20_000);

    expect(h.nowParts()).toEqual([
      expect.stringMatching(new RegExp(`^⟦#\\d+ \\[Alice\\]\\(tg:@alice\\) · [^⟧]*⟧ 🎉🎉 \\[Mira\\]\\(tg:@mira_ai\\) tell \\[Bob\\]\\(tg:@bob\\) and \\[Danny\\]\\(tg:user/${dan.id}\\) the news$`)),
    ]);
    // The store kept only the mention entities, with Telegram's offsets.
    const stored = h.runtime.messages.lane(h.group.peerId, { kind: "all" }, { limit: 1, scan: 1 })[0]!;
    expect(stored.mentions).toEqual([
      { type: "mention", offset: 5, length: 8 },
      { type: "mention", offset: 19, length: 4 },
      { type: "mentionname", offset: danny, length: 5, userId: String(dan.id) },
    ]);
  });

  it("renders Telegram's partial quote of a reply as a > line, and stores it", async () => {
    h = await Harness.start();
    const film = await h.emu.post({ chat: h.group, from: h.bob, text: "🎬 the film starts at 8, tickets at the door" });
    const ask = await h.emu.post({ chat: h.group, from: h.alice, text: "@mira_ai so, 8?", replyTo: film.id, quote: "starts at 8" });
    h.gemini.script(plan());
    await h.pass(20_000);

    expect(h.nowParts()).toEqual([expect.stringMatching(new RegExp(`⟧\\n\\[↩ reply to #${film.id} \\[Bob\\]\\(tg:@bob\\)\\]\\n> starts at 8\\n\\[Mira\\]\\(tg:@mira_ai\\) so, 8\\?$`))]);
    expect(h.runtime.messages.get(h.group.peerId, ask.id)?.quote).toBe("starts at 8");
  });

  it("sends no model turn and no system role: the persona's own messages are history with their ids", async () => {
    h = await Harness.start();
    const dm = h.emu.dm(h.account, h.carol);
    await h.emu.post({ chat: dm, from: h.carol, text: "hey" });
    h.gemini.script(plan({ kind: "send", text: "hey carol" }, { kind: "send", text: "what's up?" }));
    await h.pass(30_000);
    const mine = h.sent(dm);
    expect(mine.map((m) => m.text)).toEqual(["hey carol", "what's up?"]);
    await h.emu.post({ chat: dm, from: h.carol, text: "not much", replyTo: mine[1]!.id });
    h.gemini.script(plan());
    await h.pass(20_000);

    const body = h.gemini.requests.at(-1)!.body;
    expect(body.contents!.map((c) => c.role)).toEqual(["user"]);
    expect(JSON.stringify(body.contents)).not.toMatch(/"role":"(model|system)"/);
    const history = h.historyParts();
    for (const m of mine) expect(history).toContainEqual(expect.stringMatching(new RegExp(`^⟦#${m.id} agent · [^⟧]*⟧ ${m.text.replace("?", "\\?")}$`)));
    expect(h.nowParts()).toEqual([expect.stringContaining(`[↩ reply to #${mine[1]!.id} agent]\nnot much`)]);
  });
});
