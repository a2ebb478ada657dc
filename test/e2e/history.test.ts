/**
 * Structured history, thread lanes and the replied-to message in view, end to
 * end: the emulator behind real GramJS, the real Gemini SDK against the loopback fake, FakeClock.
 */
import { Api } from "telegram";
import { returnBigInt } from "telegram/Helpers";
import { afterEach, describe, expect, it } from "vitest";
import { SUMMARY_INSTRUCTION } from "../../src/summary/summariser";
import type { FakeReply, GenerateBody } from "../support/gemini-fake";
import { Harness, plan, TEST_PERSONA } from "../support/harness";

let h: Harness;
afterEach(async () => {
  await h?.close();
});

/** How often `needle` occurs in `hay`. */
const count = (hay: string, needle: string) => hay.split(needle).length - 1;

/** Room summaries get notes, every other call `answer`. */
const withSummaries =
  (answer: FakeReply) =>
  (body: GenerateBody): FakeReply =>
    body.systemInstruction?.parts?.[0]?.text === SUMMARY_INSTRUCTION
      ? {
          json: {
            goals_and_open_questions: [],
            decisions: [],
            facts: [],
            outcomes: [],
            pending_actions: [],
          },
        }
      : answer;

describe("the room around every answer", () => {
  it("a question inside one of two interleaved reply threads sees the room: both threads, in order, the question marked in place", async () => {
    h = await Harness.start();
    const snacks = await h.emu.post({
      chat: h.group,
      from: h.alice,
      text: "who's bringing snacks on Friday?",
    });
    const match = await h.emu.post({ chat: h.group, from: h.bob, text: "what time does the match start?" });
    const chips = await h.emu.post({
      chat: h.group,
      from: h.carol,
      text: "I'll bring chips",
      replyTo: snacks.id,
    });
    await h.emu.post({ chat: h.group, from: h.alice, text: "8pm I think, channel 5", replyTo: match.id });
    await h.emu.post({ chat: h.group, from: h.carol, text: "is it the final?", replyTo: match.id });
    await h.emu.post({ chat: h.group, from: h.alice, text: "anyone up for pizza later?" });
    const ask = await h.emu.post({
      chat: h.group,
      from: h.bob,
      text: "@mira_ai can you bring drinks?",
      replyTo: chips.id,
    });
    h.gemini.script(plan({ kind: "send", text: "sure, lemonade", reply_to: ask.id }));
    await h.pass(20_000);

    expect(h.gemini.requests).toHaveLength(1);
    const texts = [
      "who's bringing snacks",
      "what time does the match",
      "I'll bring chips",
      "8pm I think",
      "is it the final?",
      "pizza later",
    ];
    expect(h.historyParts()).toEqual(texts.map((t) => expect.stringContaining(t)));
    expect(h.nowParts()).toEqual([
      expect.stringContaining(
        `[↩ reply to #${chips.id} [Carol](tg:@carol)]\n[Mira](tg:@mira_ai) can you bring drinks?`,
      ),
    ]);

    // The persona's answer is in the room: the next question there sees it, with its id.
    const [answer] = h.sent(h.group);
    const again = await h.emu.post({
      chat: h.group,
      from: h.alice,
      text: "lemonade? really?",
      replyTo: answer!.id,
    });
    h.gemini.script(plan());
    await h.pass(20_000);
    expect(h.gemini.requests).toHaveLength(2);
    expect(h.historyParts()).toContainEqual(
      expect.stringMatching(
        new RegExp(
          `^⟦#${answer!.id} Mira \\(you\\) · .*⟧\\n\\[↩ reply to #${ask.id} \\[Bob\\]\\(tg:@bob\\)\\]\\nsure, lemonade$`,
        ),
      ),
    );
    expect(h.nowParts()).toEqual([
      expect.stringContaining(`⟧\n[↩ reply to #${answer!.id} Mira (you)]\nlemonade? really?`),
    ]);
    expect(again.id).toBeGreaterThan(answer!.id);
  });

  it("a question in the open chat sees the persona's earlier answer, though that went into a reply thread", async () => {
    h = await Harness.start();
    const first = await h.emu.post({
      chat: h.group,
      from: h.alice,
      text: "@mira_ai what's a good board game for 6?",
    });
    h.gemini.script(plan({ kind: "send", text: "Codenames!", reply_to: first.id }));
    await h.pass(20_000);
    const [answer] = h.sent(h.group);
    await h.emu.post({ chat: h.group, from: h.bob, text: "@mira_ai and for two players?" });
    h.gemini.script(plan());
    await h.pass(20_000);
    expect(h.historyParts()).toEqual([
      expect.stringContaining("what's a good board game for 6?"),
      expect.stringMatching(
        new RegExp(
          `^⟦#${answer!.id} Mira \\(you\\) · [^⟧]*⟧\n\\[↩ reply to #${first.id} \\[Alice\\]\\(tg:@alice\\)\\]\nCodenames!$`,
        ),
      ),
    ]);
  });

  it("a question in one forum topic carries no message of another topic", async () => {
    h = await Harness.start();
    const forum = h.emu.createSupergroup({
      title: "Forum",
      members: [h.account, h.alice, h.bob],
      forum: true,
    });
    const travel = h.emu.createTopic(forum, "Travel");
    const films = h.emu.createTopic(forum, "Films");
    await h.emu.post({ chat: forum, from: h.bob, text: "Porto was lovely in May", topicId: travel });
    await h.emu.post({ chat: forum, from: h.alice, text: "Dune 2 is out on Friday", topicId: films });
    await h.emu.post({
      chat: forum,
      from: h.alice,
      text: "@mira_ai when should I go to Porto?",
      topicId: travel,
    });
    h.gemini.script(plan());
    await h.pass(20_000);

    expect(h.gemini.requests).toHaveLength(1);
    expect(h.lastUserTurn()).not.toContain("Dune");
    expect(h.lastUserTurn()).toContain("Porto was lovely in May");
    expect(h.lastUserTurn()).toContain("when should I go to Porto?");
  });
});

describe("window sizes from the persona", () => {
  it("# History Window sizes every room's part, in private chats and groups alike; # Focused Window bounds the older messages that involved the persona", async () => {
    h = await Harness.start({ persona: `${TEST_PERSONA}\n# History Window\n3\n\n# Focused Window\n1\n` });
    const dm = h.emu.dm(h.account, h.carol);
    for (let i = 1; i <= 6; i++) await h.emu.post({ chat: dm, from: h.carol, text: `note number ${i}` });
    h.gemini.respondWith(withSummaries(plan({ kind: "send", text: "noted" })));
    await h.pass(20_000);
    expect(h.nowParts()).toHaveLength(6);
    await h.emu.post({ chat: dm, from: h.carol, text: "and now?" });
    await h.pass(20_000);
    // The summary (due after the first answer) covers notes 1 to 3: the window shows the rest.
    expect(h.lastUserTurn()).toContain("[Summary of this conversation up to message #");
    expect(h.historyParts()).toEqual([
      ...[4, 5, 6].map((i) => expect.stringContaining(`note number ${i}`)),
      expect.stringMatching(/⟧ noted$/),
    ]);

    await h.emu.post({ chat: h.group, from: h.alice, text: "@mira_ai first?" });
    await h.pass(20_000);
    for (let i = 1; i <= 8; i++) await h.emu.post({ chat: h.group, from: h.bob, text: `chatter ${i}` });
    await h.emu.post({ chat: h.group, from: h.alice, text: "@mira_ai second?" });
    await h.pass(20_000);
    // 10 unsummarised are more than the window reaches (twice 3): the room's summary is written
    // first (up to chatter 6); the room's newest 3, and of the older exchange with the persona
    // only its newest message (the answer).
    expect(h.historyParts()).toEqual([
      expect.stringMatching(/⟧ noted$/),
      ...[6, 7, 8].map((i) => expect.stringContaining(`chatter ${i}`)),
    ]);
  });
});

describe("the replied-to message in view", () => {
  it("a reply to a message older than the window brings it with what it answered and the flow after it, once each", async () => {
    h = await Harness.start({ persona: `${TEST_PERSONA}\n# History Window\n8\n` });
    const dm = h.emu.dm(h.account, h.carol);
    await h.emu.post({ chat: dm, from: h.carol, text: "where do we meet on saturday?" });
    await h.emu.post({ chat: dm, from: h.carol, text: "somewhere central please" });
    const first = await h.emu.post({
      chat: dm,
      from: h.carol,
      text: "the plan: meet at the old bridge at 6",
    });
    await h.emu.post({ chat: dm, from: h.carol, text: "bring the blue bag" });
    for (let i = 1; i <= 24; i++) await h.emu.post({ chat: dm, from: h.carol, text: `note number ${i}` });
    h.gemini.respondWith(withSummaries(plan()));
    await h.pass(20_000);

    const outside = await h.emu.post({ chat: dm, from: h.carol, text: "still on?", replyTo: first.id });
    await h.pass(20_000);
    const all = h.lastUserTurn();
    expect(count(all, "the plan: meet at the old bridge at 6")).toBe(1);
    // Earlier: two messages before it (what it answered), it, and what followed it.
    expect(h.historyParts().slice(0, 6)).toEqual([
      expect.stringContaining("where do we meet on saturday?"),
      expect.stringContaining("somewhere central please"),
      expect.stringMatching(
        new RegExp(`^⟦#${first.id} \\[Carol\\] · [^⟧]*⟧ the plan: meet at the old bridge at 6$`),
      ),
      expect.stringContaining("bring the blue bag"),
      expect.stringContaining("note number 1"),
      expect.stringContaining("note number 2"),
    ]);
    expect(all.indexOf("⟦earlier⟧")).toBeLessThan(all.indexOf("where do we meet"));
    expect(all.indexOf("⟦history⟧")).toBeGreaterThan(
      all.indexOf("note number 2⟧") === -1 ? all.indexOf("note number 2") : 0,
    );
    expect(h.nowParts()).toEqual([expect.stringContaining(`\n[↩ reply to #${first.id} [Carol]]\nstill on?`)]);
    expect(all).not.toContain("> the plan"); // in view: never quoted again
    expect(outside.id).toBeGreaterThan(first.id);
  });
});

describe("speaker references, mentions and quotes", () => {
  it("rewrites @mentions and text mentions (UTF-16 offsets, an emoji before them) to references", async () => {
    h = await Harness.start();
    const dan = h.emu.addUser({ firstName: "Dan" }); // no username
    h.emu.chats.addMember(h.group, dan);
    await h.emu.post({ chat: h.group, from: h.bob, text: "hi all" }); // bob is now known by name
    const text = "🎉🎉 @mira_ai tell @bob and Danny the news";
    const danny = text.indexOf("Danny"); // UTF-16 code units, as Telegram counts
    expect(danny).not.toBe(Array.from(text).indexOf("D")); // the emoji make code points differ
    await h.emu.post({
      chat: h.group,
      from: h.alice,
      text,
      entities: [
        new Api.MessageEntityMentionName({ offset: danny, length: 5, userId: returnBigInt(dan.id) }),
      ],
    });
    h.gemini.script(plan());
    await h.pass(20_000);

    expect(h.nowParts()).toEqual([
      expect.stringMatching(
        new RegExp(
          `^⟦#\\d+ \\[Alice\\]\\(tg:@alice\\) · [^⟧]*⟧ 🎉🎉 \\[Mira\\]\\(tg:@mira_ai\\) tell \\[Bob\\]\\(tg:@bob\\) and \\[Danny\\]\\(tg:user/${dan.id}\\) the news$`,
        ),
      ),
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
    const film = await h.emu.post({
      chat: h.group,
      from: h.bob,
      text: "🎬 the film starts at 8, tickets at the door",
    });
    const ask = await h.emu.post({
      chat: h.group,
      from: h.alice,
      text: "@mira_ai so, 8?",
      replyTo: film.id,
      quote: "starts at 8",
    });
    h.gemini.script(plan());
    await h.pass(20_000);

    expect(h.nowParts()).toEqual([
      expect.stringMatching(
        new RegExp(
          `⟧\\n\\[↩ reply to #${film.id} \\[Bob\\]\\(tg:@bob\\)\\]\\n> starts at 8\\n\\[Mira\\]\\(tg:@mira_ai\\) so, 8\\?$`,
        ),
      ),
    ]);
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
    for (const m of mine)
      expect(history).toContainEqual(
        expect.stringMatching(
          new RegExp(`^⟦#${m.id} Mira \\(you\\) · [^⟧]*⟧ ${m.text.replace("?", "\\?")}$`),
        ),
      );
    expect(h.nowParts()).toEqual([
      expect.stringContaining(`[↩ reply to #${mine[1]!.id} Mira (you)]\nnot much`),
    ]);
  });
});
