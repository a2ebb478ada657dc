import { Api } from "telegram";
import { returnBigInt } from "telegram/Helpers.js";
import { describe, expect, it } from "vitest";
import { createEmulatedClient } from "../../emulator/index";
import { inboxOf, world } from "./harness";

describe("Saved Messages and the owner's other devices", () => {
  it("delivers what the owner types in Saved Messages as out:true in the account's chat with itself", async () => {
    const { emu, persona, alice, client } = world();
    const everything = inboxOf(client, { all: true });
    const saved = emu.savedMessages(persona);

    const posted = await emu.post({ chat: saved, from: persona, text: "/status", deliverToSender: true });

    expect(everything.events).toHaveLength(1);
    const m = everything.last();
    expect(m.out).toBe(true);
    expect(m.peerId).toBeInstanceOf(Api.PeerUser);
    expect(m.chatId?.toString()).toBe(String(persona.id));
    expect(m.senderId?.toString()).toBe(String(persona.id));
    expect(m.text).toBe("/status");
    expect(m.id).toBe(posted.id);
    // Nobody else sees it, and it is the same chat whichever way it is named.
    expect(emu.savedMessages(persona)).toBe(saved);
    expect(emu.dm(persona, persona)).toBe(saved);
    expect(emu.chats.members(saved).map((u) => u.id)).toEqual([persona.id]);
    expect(emu.chats.peerIdFor(saved, alice)).toBe(String(persona.id));
  });

  it("stores the account's own sends to Saved Messages (InputPeerSelf) without echoing them back", async () => {
    const { emu, persona, client } = world();
    const everything = inboxOf(client, { all: true });
    const saved = emu.savedMessages(persona);
    await emu.post({ chat: saved, from: persona, text: "/help", deliverToSender: true });

    const res = await client.invoke(
      new Api.messages.SendMessage({
        peer: new Api.InputPeerSelf(),
        message: "Commands: …",
        randomId: returnBigInt("77"),
      }),
    );

    expect(res).toBeInstanceOf(Api.Updates);
    await emu.idle();
    expect(everything.events).toHaveLength(1); // only the owner's /help
    expect(emu.history(saved).map((x) => [x.fromId, x.text])).toEqual([
      [persona.id, "/help"],
      [persona.id, "Commands: …"],
    ]);
  });

  it("marks the users in the account's contact list with contact:true, and only for that account", async () => {
    const { emu, persona, alice, bob, inbox } = world();
    const other = emu.addAccount({ firstName: "Other" });
    const group = emu.createSupergroup({ title: "G", members: [persona, other, alice, bob] });
    const otherClient = createEmulatedClient(emu, other);
    const otherInbox = inboxOf(otherClient);
    emu.addContact(persona, alice);

    await emu.post({ chat: group, from: alice, text: "hi" });
    await emu.post({ chat: group, from: bob, text: "hey" });

    const senders = inbox.events.map((e) => e.message.sender as Api.User);
    expect(senders.map((u) => [u.firstName, Boolean(u.contact)])).toEqual([
      ["Alice", true],
      ["Bob", false],
    ]);
    expect(otherInbox.events.map((e) => Boolean((e.message.sender as Api.User).contact))).toEqual([
      false,
      false,
    ]);
  });
});

describe("redelivery of stored messages", () => {
  it("brings the account's own send back to its client as out:true, as catch-up would", async () => {
    const { emu, persona, alice, client } = world();
    const everything = inboxOf(client, { all: true });
    const group = emu.createSupergroup({ title: "G", members: [persona, alice] });
    await emu.post({ chat: group, from: alice, text: "hi" });
    const sent = await client.sendMessage(group.peerId, { message: "hello" });
    expect(everything.events).toHaveLength(1);

    await emu.redeliver(group, sent.id, persona);

    expect(everything.events).toHaveLength(2);
    expect(everything.last()).toMatchObject({ id: sent.id, out: true, message: "hello" });
    await expect(emu.redeliver(group, 99, persona)).rejects.toThrow(/no message 99/);
  });
});

describe("forwards, inline bots and replies to another chat", () => {
  it("a forward into Saved Messages carries fwd_from: the original's sender and date, the chat and id it was saved from", async () => {
    const { emu, persona, alice, client } = world();
    const everything = inboxOf(client, { all: true });
    const group = emu.createSupergroup({ title: "G", members: [persona, alice] });
    const original = await emu.post({ chat: group, from: alice, text: "/pause everywhere" });
    const saved = emu.savedMessages(persona);

    await emu.post({
      chat: saved,
      from: persona,
      text: "",
      forward: { chat: group, id: original.id },
      deliverToSender: true,
    });

    const m = everything.last();
    expect(m.out).toBe(true);
    expect(m.text).toBe("/pause everywhere");
    expect(m.fwdFrom).toBeInstanceOf(Api.MessageFwdHeader);
    expect((m.fwdFrom!.fromId as Api.PeerUser).userId.toString()).toBe(String(alice.id));
    expect(m.fwdFrom!.date).toBe(Math.floor(original.date / 1000));
    expect((m.fwdFrom!.savedFromPeer as Api.PeerChannel).channelId.toString()).toBe(
      group.peerId.replace(/^-100/, ""),
    );
    expect(m.fwdFrom!.savedFromMsgId).toBe(original.id);
    // The forward names the original's sender among the update's users.
    expect((await client.getEntity(alice.id)) as Api.User).toMatchObject({ firstName: "Alice" });
    // A forward's text is the original's.
    await expect(
      emu.post({ chat: saved, from: persona, text: "other", forward: { chat: group, id: original.id } }),
    ).rejects.toThrow(/carries the original's text/);
  });

  it("a message sent through an inline bot carries via_bot_id", async () => {
    const { emu, persona, alice, client } = world();
    const everything = inboxOf(client, { all: true });
    const bot = emu.addUser({ firstName: "Gif", username: "gif", bot: true });
    const saved = emu.savedMessages(persona);

    await emu.post({
      chat: saved,
      from: persona,
      text: "/share 1 everywhere",
      viaBot: bot,
      deliverToSender: true,
    });

    const m = everything.last();
    expect(m.viaBotId?.toString()).toBe(String(bot.id));
    expect(m.text).toBe("/share 1 everywhere");
    await expect(emu.post({ chat: saved, from: persona, text: "x", viaBot: alice })).rejects.toThrow(
      /not a bot/,
    );
  });

  it("a reply to a message of another chat carries reply_to_peer_id, reply_from and the quote", async () => {
    const { emu, persona, alice, bob, inbox } = world();
    const group = emu.createSupergroup({ title: "G", members: [persona, alice, bob] });
    const elsewhere = emu.createSupergroup({ title: "Alice's own", members: [alice] });
    const there = await emu.post({ chat: elsewhere, from: alice, text: "Bob said: I owe Alice 100 EUR" });
    // The same id exists in the group too: the header must say which chat it is in.
    for (let i = 0; i < there.id; i++) await emu.post({ chat: group, from: bob, text: `filler ${i}` });

    await emu.post({
      chat: group,
      from: alice,
      text: "see?",
      replyElsewhere: { chat: elsewhere, id: there.id, quote: "I owe Alice 100 EUR" },
    });

    const h = inbox.last().replyTo as Api.MessageReplyHeader;
    expect(h.replyToMsgId).toBe(there.id);
    expect((h.replyToPeerId as Api.PeerChannel).channelId.toString()).toBe(
      elsewhere.peerId.replace(/^-100/, ""),
    );
    expect((h.replyFrom!.fromId as Api.PeerUser).userId.toString()).toBe(String(alice.id));
    expect(h.quote).toBe(true);
    expect(h.quoteText).toBe("I owe Alice 100 EUR");
    // A quote must be in the original (QUOTE_TEXT_INVALID); the other chat must be another.
    await expect(
      emu.post({
        chat: group,
        from: alice,
        text: "x",
        replyElsewhere: { chat: elsewhere, id: there.id, quote: "I owe Bob" },
      }),
    ).rejects.toThrow(/not in the replied-to message/);
    await expect(
      emu.post({ chat: group, from: alice, text: "x", replyElsewhere: { chat: group, id: 2 } }),
    ).rejects.toThrow(/use replyTo/);
  });
});
