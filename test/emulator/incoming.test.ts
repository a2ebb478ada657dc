import { Api } from "telegram";
import { NewMessage } from "telegram/events/index.js";
import { returnBigInt } from "telegram/Helpers.js";
import { describe, expect, it } from "vitest";
import type { EmuMessageEvent } from "../../emulator/index";
import { inboxOf, world } from "./harness";

describe("incoming messages through GramJS's update pipeline", () => {
  it("delivers a basic-group message with chat id, sender and text, not mentioned", async () => {
    const { emu, persona, alice, inbox } = world();
    const group = emu.createGroup({ title: "Book club", members: [persona, alice] });

    const posted = await emu.post({ chat: group, from: alice, text: "hello everyone" });

    expect(inbox.events).toHaveLength(1);
    const m = inbox.last();
    expect(m.chatId?.toString()).toBe(group.peerId);
    expect(group.peerId).toBe(`-${group.id}`);
    expect(m.senderId?.toString()).toBe(String(alice.id));
    expect(m.text).toBe("hello everyone");
    expect(m.mentioned).toBe(false);
    expect(m.out).toBe(false);
    expect(m.id).toBe(posted.id);
    expect(m.isGroup).toBe(true);
    expect(m.peerId).toBeInstanceOf(Api.PeerChat);
    // Sender and chat come from the Updates' users/chats: no request needed.
    const sender = await m.getSender();
    expect(sender).toBeInstanceOf(Api.User);
    expect((sender as Api.User).firstName).toBe("Alice");
    expect(((await m.getChat()) as Api.Chat).title).toBe("Book club");
    expect(emu.traffic.methods()).toEqual([]);
  });

  it("resolves post() only after an async handler has finished", async () => {
    const { emu, persona, alice, client } = world();
    const group = emu.createSupergroup({ title: "Slow", members: [persona, alice] });
    let finished = false;
    client.addEventHandler(async () => {
      await new Promise((r) => setTimeout(r, 30));
      await Promise.resolve();
      finished = true;
    }, new NewMessage({}));

    await emu.post({ chat: group, from: alice, text: "wait for me" });
    expect(finished).toBe(true);
  });

  it("delivers supergroup messages as UpdateNewChannelMessage with a -100 marked id", async () => {
    const { emu, persona, alice, inbox } = world();
    const sg = emu.createSupergroup({ title: "Big", members: [persona, alice] });

    const first = await emu.post({ chat: sg, from: alice, text: "one" });
    const second = await emu.post({ chat: sg, from: alice, text: "two" });

    expect(sg.peerId).toBe(`-100${sg.id}`);
    expect(inbox.last().chatId?.toString()).toBe(sg.peerId);
    expect(inbox.events[0]?.originalUpdate).toBeInstanceOf(Api.UpdateNewChannelMessage);
    // Message 1 is the supergroup's creation service message, as on Telegram.
    expect([first.id, second.id]).toEqual([2, 3]);
    expect(inbox.last().isChannel).toBe(true);
  });

  it("delivers a DM with the sender as the chat", async () => {
    const { emu, persona, alice, inbox } = world();
    const dm = emu.dm(persona, alice);
    expect(emu.dm(alice, persona)).toBe(dm);

    await emu.post({ chat: dm, from: alice, text: "psst" });

    expect(dm.peerId).toBe(String(alice.id));
    expect(emu.chats.peerIdFor(dm, alice)).toBe(String(persona.id));
    expect(inbox.last().chatId?.toString()).toBe(String(alice.id));
    expect(inbox.last().isPrivate).toBe(true);
  });

  it("sets mentioned and a MessageEntityMention for an @mention of the account's username", async () => {
    const { emu, persona, alice, inbox } = world();
    const group = emu.createSupergroup({ title: "G", members: [persona, alice] });

    await emu.post({ chat: group, from: alice, text: "hey @Mira_Persona, thoughts?" });
    const m = inbox.last();
    expect(m.mentioned).toBe(true);
    expect(m.entities).toEqual([expect.any(Api.MessageEntityMention)]);
    expect(m.entities?.[0]?.offset).toBe(4);
    expect(m.entities?.[0]?.length).toBe("@Mira_Persona".length);

    // Only the whole handle counts; an e-mail address is not a mention.
    await emu.post({ chat: group, from: alice, text: "@mira_personal and mira@mira_persona.com" });
    expect(inbox.last().mentioned).toBe(false);
    await emu.post({ chat: group, from: alice, text: "ping @alice" });
    expect(inbox.last().mentioned).toBe(false);
  });

  it("sets mentioned for a MessageEntityMentionName naming the account", async () => {
    const { emu, persona, alice, inbox } = world();
    const group = emu.createGroup({ title: "G", members: [persona, alice] });

    await emu.post({
      chat: group,
      from: alice,
      text: "Mira, look",
      entities: [
        new Api.MessageEntityMentionName({ offset: 0, length: 4, userId: returnBigInt(persona.id) }),
      ],
    });
    expect(inbox.last().mentioned).toBe(true);
  });

  it("sets mentioned for a reply to the account's own message, not for other replies", async () => {
    const { emu, persona, alice, bob, client, inbox } = world();
    const group = emu.createGroup({ title: "G", members: [persona, alice, bob] });
    const bobMsg = await emu.post({ chat: group, from: bob, text: "from bob" });
    const mine = await client.sendMessage(group.peerId, { message: "from the persona" });
    expect(mine).toBeDefined();

    await emu.post({ chat: group, from: alice, text: "replying to you", replyTo: mine?.id });
    expect(inbox.last().mentioned).toBe(true);
    expect(inbox.last().replyToMsgId).toBe(mine?.id);

    await emu.post({ chat: group, from: alice, text: "replying to bob", replyTo: bobMsg.id });
    expect(inbox.last().mentioned).toBe(false);
    expect(inbox.last().replyToMsgId).toBe(bobMsg.id);
  });

  it("puts forum messages in their topic with Telegram's reply header", async () => {
    const { emu, persona, alice, inbox } = world();
    const forum = emu.createSupergroup({ title: "Forum", members: [persona, alice], forum: true });
    const topic = emu.createTopic(forum, "Books");

    const plain = await emu.post({ chat: forum, from: alice, text: "in the topic", topicId: topic });
    let header = inbox.last().replyTo;
    expect(header?.forumTopic).toBe(true);
    expect(header?.replyToMsgId).toBe(topic);
    expect(header?.replyToTopId).toBeUndefined();
    expect(plain.topicId).toBe(topic);
    expect(plain.replyTo).toBeUndefined();

    const reply = await emu.post({
      chat: forum,
      from: alice,
      text: "a reply in the topic",
      replyTo: plain.id,
    });
    header = inbox.last().replyTo;
    expect(header?.forumTopic).toBe(true);
    expect(header?.replyToMsgId).toBe(plain.id);
    expect(header?.replyToTopId).toBe(topic);
    expect(reply.topicId).toBe(topic);
    expect(reply.replyTo).toBe(plain.id);
  });

  it("reports every message once to onMessage, including the account's own sends", async () => {
    const { emu, persona, alice, client } = world();
    const group = emu.createGroup({ title: "G", members: [persona, alice] });
    const seen: EmuMessageEvent[] = [];
    const off = emu.onMessage((m) => seen.push(m));

    const posted = await emu.post({ chat: group, from: alice, text: "one" });
    const sent = await client.sendMessage(group.peerId, { message: "two", replyTo: posted.id });
    off();
    await emu.post({ chat: group, from: alice, text: "after unsubscribe" });

    expect(seen.map((m) => [m.id, m.text, m.fromName, m.replyTo])).toEqual([
      [posted.id, "one", "Alice", undefined],
      [sent?.id, "two", "Mira Persona", posted.id],
    ]);
    expect(emu.history(group).map((m) => m.text)).toEqual(["one", "two", "after unsubscribe"]);
  });

  it("splits post() into buildIncoming() and deliver() for the benchmark", async () => {
    const { emu, persona, alice, inbox } = world();
    const sg = emu.createSupergroup({ title: "Bench", members: [persona, alice] });

    const prepared = emu.buildIncoming({ chat: sg, from: alice, text: "prepared" });
    expect(prepared).toHaveLength(1);
    expect(prepared[0]?.account).toBe(persona);
    expect(inbox.events).toHaveLength(0);
    expect(emu.history(sg).map((m) => m.text)).toEqual(["prepared"]);

    for (const d of prepared) await emu.deliver(d.account, d.updates);
    expect(inbox.last().text).toBe("prepared");
  });

  it("does not deliver to the sender's own client unless asked (then out:true)", async () => {
    const { emu, persona, alice, client } = world();
    const group = emu.createSupergroup({ title: "G", members: [persona, alice] });
    const everything = inboxOf(client, { all: true });

    await emu.post({ chat: group, from: persona, text: "typed on my phone" });
    expect(everything.events).toHaveLength(0);
    await emu.post({ chat: group, from: persona, text: "typed on my phone", deliverToSender: true });
    expect(everything.events).toHaveLength(1);
    expect(everything.last().out).toBe(true);
  });
});
