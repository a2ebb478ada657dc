import { Api, type TelegramClient } from "telegram";
import { Raw } from "telegram/events/index.js";
import { describe, expect, it } from "vitest";
import { createEmulatedClient } from "../../emulator/index";
import { world } from "./harness";

/** Every UpdateMessageReactions a client's handlers see, with the entities GramJS attached. */
function reactionUpdatesOf(client: TelegramClient): Api.UpdateMessageReactions[] {
  const seen: Api.UpdateMessageReactions[] = [];
  client.addEventHandler(
    (u: Api.UpdateMessageReactions) => {
      seen.push(u);
    },
    new Raw({ types: [Api.UpdateMessageReactions] }),
  );
  return seen;
}

const emojiOf = (r: Api.TypeReaction) => (r instanceof Api.ReactionEmoji ? r.emoticon : r.className);
const counts = (u: Api.UpdateMessageReactions) =>
  u.reactions.results.map((c) => [emojiOf(c.reaction), c.count]);
const recent = (u: Api.UpdateMessageReactions) =>
  (u.reactions.recentReactions ?? []).map((r) => [
    (r.peerId as Api.PeerUser).userId.toJSNumber(),
    emojiOf(r.reaction),
    Boolean(r.my),
    Boolean(r.unread),
  ]);

describe("reactions", () => {
  it("a user reacting to the account's message in a supergroup pushes updateMessageReactions to it: counts, the reactor named, no pts", async () => {
    const { emu, persona, alice, bob, client } = world();
    const sg = emu.createSupergroup({ title: "SG", members: [persona, alice, bob] });
    const mine = await emu.post({ chat: sg, from: persona, text: "who's in for lunch?" });
    const seen = reactionUpdatesOf(client);
    const pts = emu.updates.channelPts(sg);

    await emu.chats.react(alice, sg, mine.id, "👍");
    await emu.chats.react(bob, sg, mine.id, "👍");

    expect(seen).toHaveLength(2);
    const u = seen[1]!;
    expect(u.peer).toBeInstanceOf(Api.PeerChannel);
    expect((u.peer as Api.PeerChannel).channelId.toJSNumber()).toBe(sg.id);
    expect(u.msgId).toBe(mine.id);
    expect(u.topMsgId ?? undefined).toBeUndefined();
    expect(counts(u)).toEqual([["👍", 2]]);
    // Newest first; others' reactions to the account's own message are unread.
    expect(recent(u)).toEqual([
      [bob.id, "👍", false, true],
      [alice.id, "👍", false, true],
    ]);
    expect(u.reactions.canSeeList).toBe(true);
    expect((u as unknown as { pts?: number }).pts).toBeUndefined();
    expect(emu.updates.channelPts(sg)).toBe(pts);
    expect(emu.chats.reactions(sg, mine.id)).toEqual([
      { userId: String(alice.id), emoji: "👍" },
      { userId: String(bob.id), emoji: "👍" },
    ]);
  });

  it("a new reaction replaces the user's old one; removing it pushes the summary without it", async () => {
    const { emu, persona, alice, bob, client } = world();
    const sg = emu.createSupergroup({ title: "SG", members: [persona, alice, bob] });
    const mine = await emu.post({ chat: sg, from: persona, text: "done!" });
    const seen = reactionUpdatesOf(client);

    await emu.chats.react(alice, sg, mine.id, "👍");
    await emu.chats.react(bob, sg, mine.id, "🔥");
    await emu.chats.react(alice, sg, mine.id, "❤");
    expect(counts(seen.at(-1)!)).toEqual([
      ["🔥", 1],
      ["❤", 1],
    ]);
    expect(recent(seen.at(-1)!).map((r) => r.slice(0, 2))).toEqual([
      [alice.id, "❤"],
      [bob.id, "🔥"],
    ]);

    await emu.chats.react(alice, sg, mine.id, null);
    expect(counts(seen.at(-1)!)).toEqual([["🔥", 1]]);
    expect(recent(seen.at(-1)!).map((r) => r[0])).toEqual([bob.id]);
    await emu.chats.react(bob, sg, mine.id, null);
    expect(seen.at(-1)!.reactions.results).toEqual([]);
    expect(seen.at(-1)!.reactions.recentReactions).toEqual([]);
    expect(seen).toHaveLength(5);

    // Reacting the same way twice, or removing what is not there, changes nothing and pushes nothing.
    await emu.chats.react(bob, sg, mine.id, null);
    await emu.chats.react(alice, sg, mine.id, "👍");
    await emu.chats.react(alice, sg, mine.id, "👍");
    expect(seen).toHaveLength(6);
  });

  it("reactions to other people's messages are not pushed to the account", async () => {
    const { emu, persona, alice, bob, client } = world();
    const sg = emu.createSupergroup({ title: "SG", members: [persona, alice, bob] });
    const group = emu.createGroup({ title: "G", members: [persona, alice, bob] });
    const seen = reactionUpdatesOf(client);
    const a = await emu.post({ chat: sg, from: alice, text: "cats > dogs" });
    const g = await emu.post({ chat: group, from: alice, text: "pizza?" });

    await emu.chats.react(bob, sg, a.id, "👎");
    await emu.chats.react(bob, group, g.id, "👍");

    expect(seen).toEqual([]);
    expect(emu.chats.reactions(sg, a.id)).toEqual([{ userId: String(bob.id), emoji: "👎" }]);
  });

  it("in a DM the peer is the other user and the message id the account's own; in a basic group its own id too", async () => {
    const { emu, persona, alice, bob, client } = world();
    const dm = emu.dm(persona, bob);
    const group = emu.createGroup({ title: "G", members: [persona, alice, bob] });
    const seen = reactionUpdatesOf(client);
    const d = await emu.post({ chat: dm, from: persona, text: "see you" });
    const g = await emu.post({ chat: group, from: persona, text: "hello group" });

    await emu.chats.react(bob, dm, d.id, "❤");
    await emu.chats.react(alice, group, g.id, "🔥");

    const [du, gu] = seen;
    expect(du!.peer).toBeInstanceOf(Api.PeerUser);
    expect((du!.peer as Api.PeerUser).userId.toJSNumber()).toBe(bob.id);
    expect(du!.msgId).toBe(d.idFor(persona));
    expect(du!.reactions.canSeeList ?? false).toBe(false);
    expect(recent(du!)).toEqual([[bob.id, "❤", false, true]]);
    expect(gu!.peer).toBeInstanceOf(Api.PeerChat);
    expect(gu!.msgId).toBe(g.idFor(persona));
    expect(recent(gu!)).toEqual([[alice.id, "🔥", false, true]]);
  });

  it("the update carries the reactor's user, so GramJS can name it (min in a supergroup the account never resolved it in)", async () => {
    const { emu, persona, alice, client } = world({ updateShapes: "telegram" });
    const sg = emu.createSupergroup({ title: "SG", members: [persona, alice] });
    const mine = await emu.post({ chat: sg, from: persona, text: "poll: tea or coffee?" });
    const entities: (Api.TypeUser | Api.TypeChat)[][] = [];
    client.addEventHandler(
      (u: Api.UpdateMessageReactions & { _entities?: Map<string, Api.TypeUser | Api.TypeChat> }) => {
        entities.push([...(u._entities?.values() ?? [])]);
      },
      new Raw({ types: [Api.UpdateMessageReactions] }),
    );

    await emu.chats.react(alice, sg, mine.id, "🤔");

    const alices = entities[0]!.filter(
      (e): e is Api.User => e instanceof Api.User && e.id.toJSNumber() === alice.id,
    );
    expect(alices).toHaveLength(1);
    expect(alices[0]!.min).toBe(true);
    expect(alices[0]!.username).toBe("alice");
  });

  it("in a forum topic the update names the topic (top_msg_id)", async () => {
    const { emu, persona, alice, client } = world();
    const forum = emu.createSupergroup({ title: "F", members: [persona, alice], forum: true });
    const topic = emu.createTopic(forum, "Trips");
    const mine = await emu.post({ chat: forum, from: persona, text: "Rome?", topicId: topic });
    const seen = reactionUpdatesOf(client);

    await emu.chats.react(alice, forum, mine.id, "🎉");

    expect(seen[0]!.topMsgId).toBe(topic);
  });

  it("the account's own messages.SendReaction: the answer names its reaction (`my`), the author is pushed the change, and messages carry reactions", async () => {
    const { emu, persona, alice, client } = world();
    const otto = emu.addAccount({ firstName: "Otto", username: "otto" });
    const ottoClient = createEmulatedClient(emu, otto);
    const sg = emu.createSupergroup({ title: "SG", members: [persona, alice, otto] });
    const ottos = await emu.post({ chat: sg, from: otto, text: "new bike!" });
    await emu.chats.react(alice, sg, ottos.id, "🔥");
    const ottoSeen = reactionUpdatesOf(ottoClient);

    const answer = (await client.invoke(
      new Api.messages.SendReaction({
        peer: sg.peerId,
        msgId: ottos.id,
        reaction: [new Api.ReactionEmoji({ emoticon: "👍" })],
      }),
    )) as Api.Updates;
    await emu.idle();

    const u = answer.updates[0] as Api.UpdateMessageReactions;
    expect(u).toBeInstanceOf(Api.UpdateMessageReactions);
    expect(counts(u)).toEqual([
      ["🔥", 1],
      ["👍", 1],
    ]);
    expect(u.reactions.results.find((c) => emojiOf(c.reaction) === "👍")?.chosenOrder).toBe(0);
    expect(recent(u)).toEqual([
      [persona.id, "👍", true, false],
      [alice.id, "🔥", false, false],
    ]);
    expect(ottoSeen).toHaveLength(1);
    expect(recent(ottoSeen[0]!)).toEqual([
      [persona.id, "👍", false, true],
      [alice.id, "🔥", false, true],
    ]);

    const [fetched] = await client.getMessages(sg.peerId, { ids: [ottos.id] });
    expect(fetched!.reactions?.results.map((c) => [emojiOf(c.reaction), c.count])).toEqual([
      ["🔥", 1],
      ["👍", 1],
    ]);
  });

  it("with strictTl the push and the answer survive a TL round trip", async () => {
    const { emu, persona, alice, client } = world({ strictTl: true });
    const sg = emu.createSupergroup({ title: "SG", members: [persona, alice] });
    const mine = await emu.post({ chat: sg, from: persona, text: "hi" });
    const seen = reactionUpdatesOf(client);
    await emu.chats.react(alice, sg, mine.id, "👌");
    expect(recent(seen[0]!)).toEqual([[alice.id, "👌", false, true]]);
    const answer = (await client.invoke(
      new Api.messages.SendReaction({
        peer: sg.peerId,
        msgId: mine.id,
        reaction: [new Api.ReactionEmoji({ emoticon: "😁" })],
      }),
    )) as Api.Updates;
    expect(recent(answer.updates[0] as Api.UpdateMessageReactions)).toEqual([
      [persona.id, "😁", true, false],
      [alice.id, "👌", false, true],
    ]);
  });

  it("refuses a reaction outside Telegram's standard list, by someone outside the chat, or to a missing message", async () => {
    const { emu, persona, alice, bob } = world();
    const sg = emu.createSupergroup({ title: "SG", members: [persona, alice] });
    const mine = await emu.post({ chat: sg, from: persona, text: "hi" });
    await expect(emu.chats.react(alice, sg, mine.id, "❤\uFE0F")).rejects.toThrow(
      /not a standard Telegram reaction/,
    );
    await expect(emu.chats.react(bob, sg, mine.id, "👍")).rejects.toThrow(/not a member/);
    await expect(emu.chats.react(alice, sg, 999, "👍")).rejects.toThrow(/no message 999/);
    expect(emu.chats.reactions(sg, mine.id)).toEqual([]);
  });
});

describe("what a chat allows", () => {
  it("the full chat names the allowed reactions; a change pushes updateChannel / updateChat; a reaction outside them is REACTION_INVALID", async () => {
    const { emu, persona, alice, client } = world();
    const sg = emu.createSupergroup({ title: "SG", members: [persona, alice] });
    const group = emu.createGroup({ title: "G", members: [persona, alice] });
    emu.primeEntityCache(persona);
    const changes: string[] = [];
    client.addEventHandler(
      (u: Api.TypeUpdate) => void changes.push(u.className),
      new Raw({ types: [Api.UpdateChannel, Api.UpdateChat] }),
    );
    const full = async (chat: typeof sg) =>
      (
        (chat.kind === "supergroup"
          ? await client.invoke(new Api.channels.GetFullChannel({ channel: chat.peerId }))
          : await client.invoke(
              new Api.messages.GetFullChat({ chatId: BigInt(chat.id) as never }),
            )) as Api.messages.ChatFull
      ).fullChat.availableReactions;

    expect(await full(sg)).toBeInstanceOf(Api.ChatReactionsAll);
    await emu.chats.setAllowedReactions(sg, ["👍", "❤"]);
    await emu.chats.setAllowedReactions(group, "none");
    expect(changes).toEqual(["UpdateChannel", "UpdateChat"]);
    const some = (await full(sg)) as Api.ChatReactionsSome;
    expect(some.reactions.map(emojiOf)).toEqual(["👍", "❤"]);
    expect(await full(group)).toBeInstanceOf(Api.ChatReactionsNone);

    const posted = await emu.post({ chat: sg, from: alice, text: "hi" });
    const react = (emoji: string, chat = sg, id = posted.id) =>
      client.invoke(
        new Api.messages.SendReaction({
          peer: chat.peerId,
          msgId: id,
          reaction: [new Api.ReactionEmoji({ emoticon: emoji })],
        }),
      );
    await expect(react("🔥")).rejects.toMatchObject({ errorMessage: "REACTION_INVALID" });
    await expect(react("👍")).resolves.toBeInstanceOf(Api.Updates);
    const inGroup = await emu.post({ chat: group, from: alice, text: "hi" });
    await expect(react("👍", group, inGroup.idFor(persona)!)).rejects.toMatchObject({
      errorMessage: "REACTION_INVALID",
    });
  });
});

describe("what a chat allows, changed while the account does not hear", () => {
  it("a change the push cannot deliver (dropped link) comes in the next getDifference: updateChat / updateChannel with the chat, once", async () => {
    const { emu, persona, alice, client } = world();
    const sg = emu.createSupergroup({ title: "SG", members: [persona, alice] });
    const group = emu.createGroup({ title: "G", members: [persona, alice] });
    emu.primeEntityCache(persona);
    const pts = emu.updates.state(persona).pts;
    const changes: string[] = [];
    client.addEventHandler(
      (u: Api.TypeUpdate) => void changes.push(u.className),
      new Raw({ types: [Api.UpdateChannel, Api.UpdateChat] }),
    );
    await emu.net.dropConnection(persona, { reconnect: "manual" });
    await emu.chats.setAllowedReactions(group, ["❤"]);
    await emu.chats.setAllowedReactions(sg, "none");
    await emu.net.restoreConnection(persona);
    expect(await client.connect()).toBe(true);
    expect(changes).toEqual([]); // nothing was pushed while the link was down

    const diff = (await client.invoke(
      new Api.updates.GetDifference({ pts, date: 0, qts: 0 }),
    )) as Api.updates.Difference;
    expect(diff).toBeInstanceOf(Api.updates.Difference);
    expect(diff.otherUpdates.map((u) => u.className)).toEqual(["UpdateChat", "UpdateChannel"]);
    expect((diff.otherUpdates[0] as Api.UpdateChat).chatId.toString()).toBe(String(group.id));
    expect(diff.chats.map((c) => (c as Api.Chat | Api.Channel).title).sort()).toEqual(["G", "SG"]);
    expect(diff.state.pts).toBe(pts);
    expect(await client.invoke(new Api.updates.GetDifference({ pts, date: 0, qts: 0 }))).toBeInstanceOf(
      Api.updates.DifferenceEmpty,
    );

    // Heard live: nothing is kept for the difference.
    await emu.chats.setAllowedReactions(group, "all");
    expect(changes).toEqual(["UpdateChat"]);
    expect(await client.invoke(new Api.updates.GetDifference({ pts, date: 0, qts: 0 }))).toBeInstanceOf(
      Api.updates.DifferenceEmpty,
    );
  });
});
