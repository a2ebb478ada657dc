import { Api, errors } from "telegram";
import { returnBigInt } from "telegram/Helpers.js";
import { describe, expect, it } from "vitest";
import { isStandardReaction } from "../../emulator/index";
import { world } from "./harness";

const rpcMessage = (e: unknown): string | undefined =>
  e instanceof errors.RPCError ? e.errorMessage : undefined;

describe("typing, read, react, block, history", () => {
  it("records SetTyping and answers true", async () => {
    const { emu, persona, alice, client } = world();
    const forum = emu.createSupergroup({ title: "F", members: [persona, alice], forum: true });
    const topic = emu.createTopic(forum, "T");
    await emu.post({ chat: forum, from: alice, text: "hi", topicId: topic });

    const ok = await client.invoke(
      new Api.messages.SetTyping({
        peer: forum.peerId,
        topMsgId: topic,
        action: new Api.SendMessageTypingAction(),
      }),
    );
    expect(ok).toBe(true);
    expect(emu.traffic.typing(forum)).toEqual([
      expect.objectContaining({
        account: persona,
        chat: forum,
        action: "SendMessageTypingAction",
        topicId: topic,
      }),
    ]);
  });

  it("tracks read marks: channels.ReadHistory for supergroups, messages.ReadHistory otherwise", async () => {
    const { emu, persona, alice, client } = world();
    const sg = emu.createSupergroup({ title: "SG", members: [persona, alice] });
    const group = emu.createGroup({ title: "G", members: [persona, alice] });
    const a = await emu.post({ chat: sg, from: alice, text: "a" });
    await emu.post({ chat: sg, from: alice, text: "b" });
    const g1 = await emu.post({ chat: group, from: alice, text: "g1" });
    const g2 = await emu.post({ chat: group, from: alice, text: "g2" });

    const channelAnswer = await client.invoke(
      new Api.channels.ReadHistory({ channel: sg.peerId, maxId: a.id }),
    );
    expect(channelAnswer).toBe(true);
    expect(emu.chats.readMaxId(sg, persona)).toBe(a.id);

    const groupAnswer = await client.invoke(
      new Api.messages.ReadHistory({ peer: group.peerId, maxId: g1.id }),
    );
    expect(groupAnswer).toBeInstanceOf(Api.messages.AffectedMessages);
    expect(emu.chats.readMaxId(group, persona)).toBe(g1.id);
    await client.markAsRead(group.peerId); // maxId 0 = everything
    expect(emu.chats.readMaxId(group, persona)).toBe(g2.id);
    await client.invoke(new Api.messages.ReadHistory({ peer: group.peerId, maxId: g1.id }));
    expect(emu.chats.readMaxId(group, persona)).toBe(g2.id); // never moves backwards
  });

  it("stores standard reactions and refuses others with REACTION_INVALID", async () => {
    const { emu, persona, alice, client } = world();
    const sg = emu.createSupergroup({ title: "SG", members: [persona, alice] });
    const msg = await emu.post({ chat: sg, from: alice, text: "react to me" });
    const react = (emoticon?: string) =>
      client.invoke(
        new Api.messages.SendReaction({
          peer: sg.peerId,
          msgId: msg.id,
          reaction: emoticon === undefined ? [] : [new Api.ReactionEmoji({ emoticon })],
        }),
      );

    const answer = await react("👍");
    expect(answer).toBeInstanceOf(Api.Updates);
    const update = (answer as Api.Updates).updates[0];
    expect(update).toBeInstanceOf(Api.UpdateMessageReactions);
    expect(emu.chats.reactions(sg, msg.id)).toEqual([{ userId: String(persona.id), emoji: "👍" }]);

    expect(rpcMessage(await react("🦖").catch((e: unknown) => e))).toBe("REACTION_INVALID");
    // Telegram's heart is U+2764 without the U+FE0F variation selector.
    expect(isStandardReaction("❤")).toBe(true);
    expect(rpcMessage(await react("❤\uFE0F").catch((e: unknown) => e))).toBe("REACTION_INVALID");
    await react("❤");
    expect(emu.chats.reactions(sg, msg.id)).toEqual([{ userId: String(persona.id), emoji: "❤" }]);

    await react(undefined);
    expect(emu.chats.reactions(sg, msg.id)).toEqual([]);
    const missing = await client
      .invoke(
        new Api.messages.SendReaction({
          peer: sg.peerId,
          msgId: 999,
          reaction: [new Api.ReactionEmoji({ emoticon: "👍" })],
        }),
      )
      .catch((e: unknown) => e);
    expect(rpcMessage(missing)).toBe("MESSAGE_ID_INVALID");
  });

  it("blocks and unblocks users; a blocked user's DMs never arrive", async () => {
    const { emu, persona, alice, client, inbox } = world();
    const dm = emu.dm(persona, alice);
    await emu.post({ chat: dm, from: alice, text: "hello" });

    expect(await client.invoke(new Api.contacts.Block({ id: alice.id.toString() }))).toBe(true);
    expect(emu.chats.isBlocked(persona, alice)).toBe(true);
    await emu.post({ chat: dm, from: alice, text: "are you there?" });
    expect(inbox.events.map((e) => e.message.text)).toEqual(["hello"]);
    const refused = await client.sendMessage(dm.peerId, { message: "no" }).catch((e: unknown) => e);
    expect(rpcMessage(refused)).toBe("YOU_BLOCKED_USER");

    expect(await client.invoke(new Api.contacts.Unblock({ id: alice.id.toString() }))).toBe(true);
    expect(emu.chats.isBlocked(persona, alice)).toBe(false);
  });

  it("pages messages.GetHistory newest first with offsetId, limit and minId", async () => {
    const { emu, persona, alice, client } = world();
    const sg = emu.createSupergroup({ title: "SG", members: [persona, alice] });
    for (let i = 1; i <= 6; i++) await emu.post({ chat: sg, from: alice, text: `m${i}` });
    const history = (args: { offsetId?: number; limit: number; minId?: number }) =>
      client.invoke(
        new Api.messages.GetHistory({
          peer: sg.peerId,
          offsetId: args.offsetId ?? 0,
          offsetDate: 0,
          addOffset: 0,
          limit: args.limit,
          maxId: 0,
          minId: args.minId ?? 0,
          hash: returnBigInt(0),
        }),
      );
    const texts = (r: Api.messages.TypeMessages) =>
      "messages" in r
        ? r.messages.map((m) => (m instanceof Api.Message ? m.message : `<${m.className}>`))
        : [];

    const newest = await history({ limit: 3 });
    expect(newest).toBeInstanceOf(Api.messages.ChannelMessages);
    expect(texts(newest)).toEqual(["m6", "m5", "m4"]);
    // Ids: 1 is the creation service message, so m1..m6 are 2..7.
    expect(texts(await history({ offsetId: 5, limit: 2 }))).toEqual(["m3", "m2"]);
    expect(texts(await history({ limit: 100, minId: 5 }))).toEqual(["m6", "m5"]);
    // The supergroup's creation service message is part of the history, as on Telegram.
    expect(texts(await history({ offsetId: 3, limit: 10 }))).toEqual(["m1", "<MessageService>"]);

    // GramJS's own iterator works on top of it.
    const viaGramJs = await client.getMessages(sg.peerId, { limit: 2 });
    expect(Array.from(viaGramJs, (m) => m.text)).toEqual(["m6", "m5"]);
  });

  it("answers users.GetUsers, updates.GetState and connect() without a network", async () => {
    const { emu, persona, client } = world();

    await client.connect();
    expect(await client.isUserAuthorized()).toBe(true);
    const me = await client.getMe();
    expect(me).toBeInstanceOf(Api.User);
    expect((me as Api.User).self).toBe(true);
    expect((me as Api.User).username).toBe(persona.username);
    expect(emu.traffic.methods()).toEqual(["updates.GetState", "users.GetUsers"]);
    await client.disconnect();
  });
});
