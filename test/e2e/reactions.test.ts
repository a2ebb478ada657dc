import { Api } from "telegram";
import { afterEach, describe, expect, it } from "vitest";
import { toLong } from "../../emulator/long";
import { SUMMARY_INSTRUCTION } from "../../src/summary/summariser";
import { isPlanRequest } from "../support/gemini-fake";
import { Harness, plan, TEST_PERSONA } from "../support/harness";

let h: Harness;
afterEach(async () => {
  await h?.close();
});

/** The persona answers alice in the group; returns the id of its message. */
async function personaSays(text: string): Promise<number> {
  await h.emu.post({ chat: h.group, from: h.alice, text: `@mira_ai ${text}?` });
  h.gemini.script(plan({ kind: "send", text }));
  await h.pass(20_000);
  const mine = h.sent(h.group).find((m) => m.text === text);
  if (!mine) throw new Error(`the persona did not say "${text}"`);
  return mine.id;
}

const stored = (chatId: string, messageId: number) =>
  h.runtime.reactions.forMessage(chatId, messageId).map((r) => [r.reactorId, r.emoji, r.isAgent]);

describe("reactions", () => {
  it("people's reactions to the persona's message are stored, replaced as a whole, and cost no request and no LLM call", async () => {
    h = await Harness.start();
    const mine = await personaSays("Lunch at noon");
    // The persona's own polls of the group it is active in (channel-watch.ts) aside.
    const asked = () => h.emu.traffic.methods(h.account).filter((m) => m !== "updates.GetChannelDifference");
    const [requests, calls] = [asked().length, h.gemini.requests.length];

    await h.emu.chats.react(h.bob, h.group, mine, "👍");
    await h.emu.chats.react(h.carol, h.group, mine, "🔥");
    expect(stored(h.group.peerId, mine)).toEqual([
      [String(h.bob.id), "👍", false],
      [String(h.carol.id), "🔥", false],
    ]);
    const bob = h.runtime.reactions.forMessage(h.group.peerId, mine)[0]!;
    expect(bob.date).toBe(Math.floor(h.clock.now() / 1000) * 1000);

    await h.emu.chats.react(h.bob, h.group, mine, null); // bob takes his back
    await h.emu.chats.react(h.carol, h.group, mine, "❤"); // carol changes hers
    expect(stored(h.group.peerId, mine)).toEqual([[String(h.carol.id), "❤", false]]);

    await h.pass(20_000);
    expect(asked().length).toBe(requests);
    expect(h.gemini.requests.length).toBe(calls); // a reaction never makes the persona answer
  });

  it("in a DM too: the reactor is the DM partner, under the persona's own message id", async () => {
    h = await Harness.start();
    const dm = h.emu.dm(h.account, h.carol);
    await h.emu.post({ chat: dm, from: h.carol, text: "are you coming?" });
    h.gemini.script(plan({ kind: "send", text: "Yes!" }));
    await h.pass(20_000);
    const yes = h.sent(dm).find((m) => m.text === "Yes!")!.id;

    await h.emu.chats.react(h.carol, dm, yes, "🥰");

    expect(stored(dm.peerId, yes)).toEqual([[String(h.carol.id), "🥰", false]]);
  });

  it("reactions to other people's messages cost nothing: no store write, no request", async () => {
    h = await Harness.start();
    const a = await h.emu.post({ chat: h.group, from: h.alice, text: "cats are better" });
    const requests = h.emu.traffic.requests.length;
    await h.emu.chats.react(h.bob, h.group, a.id, "👎"); // Telegram pushes it to alice only
    // Were one pushed anyway (a client that polled, another session), it is still not stored.
    const sg = new Api.PeerChannel({ channelId: toLong(h.group.id) });
    await h.emu.deliver(
      h.account,
      new Api.Updates({
        updates: [
          new Api.UpdateMessageReactions({
            peer: sg,
            msgId: a.id,
            reactions: new Api.MessageReactions({
              results: [
                new Api.ReactionCount({ reaction: new Api.ReactionEmoji({ emoticon: "👎" }), count: 1 }),
              ],
              recentReactions: [
                new Api.MessagePeerReaction({
                  peerId: new Api.PeerUser({ userId: toLong(h.bob.id) }),
                  date: 1,
                  reaction: new Api.ReactionEmoji({ emoticon: "👎" }),
                }),
              ],
            }),
          }),
        ],
        users: [],
        chats: [],
        date: 1,
        seq: 0,
      }),
    );
    const rows = h.db.prepare("SELECT count(*) FROM reactions").pluck().get();
    expect(rows).toBe(0);
    expect(h.emu.traffic.requests.length).toBe(requests);
  });

  it("the persona's own reaction is stored once its react task completed", async () => {
    h = await Harness.start();
    const m = await h.emu.post({ chat: h.group, from: h.alice, text: "@mira_ai I passed my exam!" });
    h.gemini.script(plan({ kind: "react", emoji: "🎉", message_id: m.id }));
    await h.pass(20_000);
    expect(stored(h.group.peerId, m.id)).toEqual([[String(h.account.id), "🎉", true]]);
  });

  it("an update that only counts (no reactors named) keeps the known reactors whose emoji is still counted", async () => {
    h = await Harness.start();
    const mine = await personaSays("Pizza or sushi");
    await h.emu.chats.react(h.bob, h.group, mine, "👍");
    await h.emu.chats.react(h.carol, h.group, mine, "🔥");
    const counted = (emoji: string) =>
      new Api.ReactionCount({ reaction: new Api.ReactionEmoji({ emoticon: emoji }), count: 1 });
    await h.emu.deliver(
      h.account,
      new Api.Updates({
        updates: [
          new Api.UpdateMessageReactions({
            peer: new Api.PeerChannel({ channelId: toLong(h.group.id) }),
            msgId: mine,
            reactions: new Api.MessageReactions({ min: true, results: [counted("🔥")] }),
          }),
        ],
        users: [],
        chats: [],
        date: 1,
        seq: 0,
      }),
    );
    expect(stored(h.group.peerId, mine)).toEqual([[String(h.carol.id), "🔥", false]]);
  });

  it("survives a restart: the stored reactions are read from the database", async () => {
    h = await Harness.start();
    const mine = await personaSays("See you at 6");
    await h.emu.chats.react(h.bob, h.group, mine, "👌");
    await h.pass(1000);
    h.crash();
    h.boot();
    await h.runtime.caughtUp;
    expect(stored(h.group.peerId, mine)).toEqual([[String(h.bob.id), "👌", false]]);
  });
});

/** A history part that is the reaction item `⟦reaction <who> · <time>⟧ <emoji> to #<id>`. */
const reactionLine = (who: string, emoji: string, id: number) =>
  expect.stringMatching(
    new RegExp(
      `^⟦reaction ${who.replace(/[[\]()]/g, "\\$&")} · (\\w{3} \\d+ \\w{3} )?\\d\\d:\\d\\d⟧ ${emoji} to #${id}$`,
    ),
  );

describe("reactions in the planner's history", () => {
  it("a person reacts to the persona's message: the next plan request carries the reaction, with the reactor and the message id, in time order", async () => {
    h = await Harness.start();
    const mine = await personaSays("Lunch at noon");
    await h.pass(60_000);
    await h.emu.chats.react(h.bob, h.group, mine, "👍");
    await h.pass(60_000);
    await h.emu.post({ chat: h.group, from: h.alice, text: "@mira_ai where?", replyTo: mine });
    h.gemini.script(plan());
    await h.pass(20_000);

    const history = h.historyParts();
    expect(history).toContainEqual(reactionLine("[Bob](tg:@bob)", "👍", mine));
    // After the message it reacts to; the question itself is the current request.
    const at = (pred: (p: string) => boolean) => history.findIndex(pred);
    expect(at((p) => p.startsWith(`⟦#${mine} Mira (you)`))).toBeLessThan(
      at((p) => p.startsWith("⟦reaction")),
    );
    expect(h.nowParts()).toEqual([expect.stringContaining("where?")]);
  });

  it("a removed reaction disappears from the next request", async () => {
    h = await Harness.start();
    const mine = await personaSays("Movie at 8");
    await h.emu.chats.react(h.carol, h.group, mine, "🔥");
    await h.emu.chats.react(h.bob, h.group, mine, "👍");
    await h.emu.chats.react(h.carol, h.group, mine, null);
    await h.emu.post({ chat: h.group, from: h.alice, text: "@mira_ai which cinema?", replyTo: mine });
    h.gemini.script(plan());
    await h.pass(20_000);

    const reactions = h.historyParts().filter((p) => p.startsWith("⟦reaction"));
    expect(reactions).toEqual([reactionLine("[Bob](tg:@bob)", "👍", mine)]);
  });

  it("the persona's own reaction shows up as its own reaction, labelled with its name, in the next request", async () => {
    h = await Harness.start();
    const exam = await h.emu.post({ chat: h.group, from: h.alice, text: "@mira_ai I passed my exam!" });
    h.gemini.script(plan({ kind: "react", emoji: "🎉", message_id: exam.id }));
    await h.pass(20_000);
    await h.emu.post({
      chat: h.group,
      from: h.alice,
      text: "@mira_ai thanks! guess my grade",
      replyTo: exam.id,
    });
    h.gemini.script(plan());
    await h.pass(20_000);

    expect(h.gemini.requests).toHaveLength(2);
    expect(h.historyParts()).toContainEqual(reactionLine("Mira (you)", "🎉", exam.id));
  });

  it("only reactions to messages in view are shown, and at most the newest 10", async () => {
    h = await Harness.start({ persona: `${TEST_PERSONA}\n# History Window\n4\n\n# Focused Window\n0\n` });
    // The persona's message gets a reaction, then the chat moves on past the window; the question is about something else.
    const a = await personaSays("Snacks: chips");
    await h.emu.chats.react(h.bob, h.group, a, "😁");
    for (let i = 0; i < 10; i++) await h.emu.post({ chat: h.group, from: h.bob, text: `chatter ${i}` });
    const b = await h.emu.post({ chat: h.group, from: h.carol, text: "different topic: the match?" });
    await h.emu.post({ chat: h.group, from: h.alice, text: "@mira_ai who wins tonight?", replyTo: b.id });
    // Plans; the room's summary (written first: 12 messages are more than twice so small a window
    // reaches) gets empty notes, so the persona's old message is covered by it, not in view.
    const plans = [plan({ kind: "send", text: "The home team", reply_to: b.id })];
    const notes = {
      goals_and_open_questions: [],
      decisions: [],
      facts: [],
      outcomes: [],
      pending_actions: [],
    };
    h.gemini.respondWith((body) =>
      isPlanRequest(body)
        ? (plans.shift() ?? plan())
        : body.systemInstruction?.parts?.[0]?.text === SUMMARY_INSTRUCTION
          ? { json: notes }
          : plan(),
    );
    await h.pass(20_000);
    expect(h.lastUserTurn()).not.toContain("⟦reaction");

    // Twelve reactions to the persona's message in view: the newest ten are shown.
    const mine = h.sent(h.group).find((m) => m.text === "The home team")!.id;
    const people = Array.from({ length: 12 }, (_, k) =>
      h.emu.addUser({ firstName: `Fan${k}`, username: `fan_${k}` }),
    );
    for (const p of people) h.emu.chats.addMember(h.group, p);
    for (const [k, p] of people.entries()) {
      await h.emu.chats.react(p, h.group, mine, "👍");
      await h.pass(1000 + k);
    }
    await h.emu.post({ chat: h.group, from: h.alice, text: "@mira_ai sure?", replyTo: mine });
    await h.pass(20_000);
    const shown = h.historyParts().filter((p) => p.startsWith("⟦reaction"));
    expect(shown).toHaveLength(10);
    expect(shown[0]).toContain("fan_2");
    expect(shown[9]).toContain("fan_11");
  });
});

describe("the chat's allowed reactions", () => {
  /** What a planning request's schema lets `react.emoji` be: the chat's allowed reactions as its enum, "any", or "no react". */
  const offered = (i = h.gemini.requests.length - 1): string[] | "any" | "no react" => {
    type Variant = { properties: { kind: { enum: string[] }; emoji?: { enum?: string[] } } };
    const variants = (
      h.gemini.requests[i]!.body.generationConfig!.responseJsonSchema as {
        properties: { tasks: { items: { anyOf: Variant[] } } };
      }
    ).properties.tasks.items.anyOf;
    const react = variants.find((v) => v.properties.kind.enum[0] === "react");
    return react === undefined ? "no react" : (react.properties.emoji?.enum ?? "any");
  };
  /** The chat part of a planning request (its first part). */
  const chatPart = (i = h.gemini.requests.length - 1) =>
    h.gemini.requests[i]!.body.contents?.[0]?.parts?.[0]?.text ?? "";
  const reactionsSent = () =>
    h.emu.traffic.requests
      .filter((r) => r.method === "messages.SendReaction")
      .map((r) => ((r.request as Api.messages.SendReaction).reaction?.[0] as Api.ReactionEmoji).emoticon);
  const fullChatRequests = () =>
    h.emu.traffic.requests.filter((r) => r.method === "channels.GetFullChannel").length;

  it("are listed in the chat part of the request; a disallowed choice becomes the closest allowed one, or nothing — never a failed task", async () => {
    h = await Harness.start();
    await h.emu.chats.setAllowedReactions(h.group, ["👍", "❤"]);
    const q = await h.emu.post({ chat: h.group, from: h.alice, text: "@mira_ai I passed!" });
    h.gemini.script(plan({ kind: "react", emoji: "😍", message_id: q.id }));
    await h.pass(20_000);
    expect(offered()).toEqual(["👍", "❤"]); // the schema's enum; the request's text does not repeat it
    expect(chatPart()).not.toMatch(/Reactions/);
    expect(reactionsSent()).toEqual(["❤"]); // 😍 is not allowed; ❤ says the same
    expect(stored(h.group.peerId, q.id)).toEqual([[String(h.account.id), "❤", true]]);

    const joke = await h.emu.post({ chat: h.group, from: h.bob, text: "@mira_ai knock knock" });
    h.gemini.script(plan({ kind: "react", emoji: "🤣", message_id: joke.id }));
    await h.pass(20_000);
    expect(reactionsSent()).toEqual(["❤"]); // nothing laughing is allowed: no reaction at all
    expect(h.runtime.status().lastError).toBeUndefined();
    expect(fullChatRequests()).toBe(1); // read once for the chat, then cached
  });

  it("are read again when Telegram says the chat changed (updateChannel)", async () => {
    h = await Harness.start();
    const q = await h.emu.post({ chat: h.group, from: h.alice, text: "@mira_ai how was it?" });
    h.gemini.script(plan({ kind: "send", text: "fine" }));
    await h.pass(20_000);
    expect(offered()).toBe("any");

    await h.emu.chats.setAllowedReactions(h.group, "none"); // updateChannel: forget what was read
    const again = await h.emu.post({ chat: h.group, from: h.alice, text: "@mira_ai and now?" });
    h.gemini.script(plan({ kind: "react", emoji: "👍", message_id: again.id }));
    await h.pass(20_000);
    expect(offered()).toBe("no react"); // reactions off: the schema offers none
    expect(reactionsSent()).toEqual([]);
    expect(fullChatRequests()).toBe(2);

    await h.emu.chats.setAllowedReactions(h.group, ["🔥"]);
    h.gemini.script(plan({ kind: "react", emoji: "⚡", message_id: q.id }));
    await h.emu.post({ chat: h.group, from: h.alice, text: "@mira_ai react now" });
    await h.pass(20_000);
    expect(reactionsSent()).toEqual(["🔥"]);
  });

  it("in a basic group: read with messages.getFullChat, listed in the request, the closest allowed one chosen; updateChat makes it read again", async () => {
    h = await Harness.start();
    const fullChats = () => h.emu.traffic.requests.filter((r) => r.method === "messages.GetFullChat").length;
    await h.emu.chats.setAllowedReactions(h.club, ["👍", "❤"]);
    const q = await h.emu.post({ chat: h.club, from: h.alice, text: "@mira_ai we won the match!" });
    h.gemini.script(plan({ kind: "react", emoji: "😍", message_id: q.id }));
    await h.pass(20_000);
    expect(offered()).toEqual(["👍", "❤"]); // the schema's enum; the request's text does not repeat it
    expect(chatPart()).not.toMatch(/Reactions/);
    expect(reactionsSent()).toEqual(["❤"]);
    expect(stored(h.club.peerId, q.id)).toEqual([[String(h.account.id), "❤", true]]);
    expect(fullChats()).toBe(1);
    expect(fullChatRequests()).toBe(0); // a basic group is not a channel

    await h.emu.chats.setAllowedReactions(h.club, "none"); // updateChat: forget what was read
    const again = await h.emu.post({ chat: h.club, from: h.bob, text: "@mira_ai and the next one?" });
    h.gemini.script(plan({ kind: "react", emoji: "👍", message_id: again.id }));
    await h.pass(20_000);
    expect(offered()).toBe("no react"); // reactions off: the schema offers none
    expect(reactionsSent()).toEqual(["❤"]); // nothing more: reactions are off
    expect(fullChats()).toBe(2);
    expect(h.runtime.status().lastError).toBeUndefined();
  });

  it("a change of the settings that arrives inside the catch-up's getDifference (the link was down) makes them read again: no refused reaction", async () => {
    h = await Harness.start();
    const fullChats = () => h.emu.traffic.requests.filter((r) => r.method === "messages.GetFullChat").length;
    const q = await h.emu.post({ chat: h.club, from: h.alice, text: "@mira_ai hi" });
    h.gemini.script(plan({ kind: "send", text: "hi" }));
    await h.pass(20_000); // the club's settings (all) are read and cached
    expect(fullChats()).toBe(1);

    await h.emu.net.dropConnection(h.account, { reconnect: "manual" });
    await h.emu.chats.setAllowedReactions(h.club, ["❤"]); // updateChat cannot reach the dead link
    await h.emu.net.restoreConnection(h.account);
    await h.client.connect();
    await h.runtime.catchUp(); // its getDifference carries the updateChat

    h.gemini.script(plan({ kind: "react", emoji: "😍", message_id: q.id }));
    await h.emu.post({ chat: h.club, from: h.alice, text: "@mira_ai love it?" });
    await h.pass(20_000);
    expect(reactionsSent()).toEqual(["❤"]); // chosen from the new settings at once, never refused
    expect(h.emu.traffic.requests.filter((r) => r.method === "messages.SendReaction")).toHaveLength(1);
    expect(fullChats()).toBe(2);
    expect(offered()).toEqual(["❤"]);
  });

  it("a reaction refused by Telegram (settings changed unseen) is chosen again from the chat's current settings", async () => {
    h = await Harness.start();
    const q = await h.emu.post({ chat: h.group, from: h.alice, text: "@mira_ai hi" });
    h.gemini.script(plan({ kind: "send", text: "hi" }));
    await h.pass(20_000); // the chat's settings (all) are read and cached
    h.emu.net.silenceUpdates(h.account);
    await h.emu.chats.setAllowedReactions(h.group, ["❤"]); // the persona does not hear of it
    h.emu.net.resumeUpdates(h.account);
    h.gemini.script(plan({ kind: "react", emoji: "😍", message_id: q.id }));
    await h.emu.post({ chat: h.group, from: h.alice, text: "@mira_ai love it?" });
    await h.pass(20_000);
    expect(reactionsSent()).toEqual(["😍", "❤"]); // refused, read again, the closest allowed
    expect(stored(h.group.peerId, q.id)).toEqual([[String(h.account.id), "❤", true]]);
    expect(h.runtime.status().lastError).toBeUndefined();
  });
});
