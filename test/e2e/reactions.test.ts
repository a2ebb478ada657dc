import { Api } from "telegram";
import { afterEach, describe, expect, it } from "vitest";
import { toLong } from "../../src/telegram/emulator/long";
import { Harness, plan } from "../support/harness";

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
    const [requests, calls] = [h.emu.requests.length, h.gemini.requests.length];

    await h.emu.react(h.bob, h.group, mine, "👍");
    await h.emu.react(h.carol, h.group, mine, "🔥");
    expect(stored(h.group.peerId, mine)).toEqual([
      [String(h.bob.id), "👍", false],
      [String(h.carol.id), "🔥", false],
    ]);
    const bob = h.runtime.reactions.forMessage(h.group.peerId, mine)[0]!;
    expect(bob.date).toBe(Math.floor(h.clock.now() / 1000) * 1000);

    await h.emu.react(h.bob, h.group, mine, null); // bob takes his back
    await h.emu.react(h.carol, h.group, mine, "❤"); // carol changes hers
    expect(stored(h.group.peerId, mine)).toEqual([[String(h.carol.id), "❤", false]]);

    await h.pass(20_000);
    expect(h.emu.requests.length).toBe(requests);
    expect(h.gemini.requests.length).toBe(calls); // a reaction never makes the persona answer
  });

  it("in a DM too: the reactor is the DM partner, under the persona's own message id", async () => {
    h = await Harness.start();
    const dm = h.emu.dm(h.account, h.carol);
    await h.emu.post({ chat: dm, from: h.carol, text: "are you coming?" });
    h.gemini.script(plan({ kind: "send", text: "Yes!" }));
    await h.pass(20_000);
    const yes = h.sent(dm).find((m) => m.text === "Yes!")!.id;

    await h.emu.react(h.carol, dm, yes, "🥰");

    expect(stored(dm.peerId, yes)).toEqual([[String(h.carol.id), "🥰", false]]);
  });

  it("reactions to other people's messages cost nothing: no store write, no request", async () => {
    h = await Harness.start();
    const a = await h.emu.post({ chat: h.group, from: h.alice, text: "cats are better" });
    const requests = h.emu.requests.length;
    await h.emu.react(h.bob, h.group, a.id, "👎"); // Telegram pushes it to alice only
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
              results: [new Api.ReactionCount({ reaction: new Api.ReactionEmoji({ emoticon: "👎" }), count: 1 })],
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
    expect(h.emu.requests.length).toBe(requests);
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
    await h.emu.react(h.bob, h.group, mine, "👍");
    await h.emu.react(h.carol, h.group, mine, "🔥");
    const counted = (emoji: string) => new Api.ReactionCount({ reaction: new Api.ReactionEmoji({ emoticon: emoji }), count: 1 });
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
    await h.emu.react(h.bob, h.group, mine, "👌");
    await h.pass(1000);
    h.crash();
    h.boot();
    await h.runtime.caughtUp;
    expect(stored(h.group.peerId, mine)).toEqual([[String(h.bob.id), "👌", false]]);
  });
});
