import { Api } from "telegram";
import { returnBigInt } from "telegram/Helpers.js";
import { describe, expect, it } from "vitest";
import { createEmulatedClient, TelegramEmulator } from "../../emulator/index";
import { inboxOf, world } from "./harness";

describe("update shapes as Telegram sends them (updateShapes: 'telegram')", () => {
  it("delivers a DM as UpdateShortMessage: ids only, no users, the account's next pts", async () => {
    const { emu, persona, alice, inbox, client } = world({ updateShapes: "telegram" });
    const dm = emu.dm(persona, alice);
    const pts = emu.updates.state(persona).pts;

    await emu.post({ chat: dm, from: alice, text: "psst @mira_persona" });

    const update = inbox.events[0]?.originalUpdate as Api.UpdateShortMessage;
    expect(update).toBeInstanceOf(Api.UpdateShortMessage);
    expect([update.pts, update.ptsCount, update.userId.toString(), update.mentioned]).toEqual([
      pts + 1,
      1,
      String(alice.id),
      true,
    ]);
    const m = inbox.last();
    expect(m.text).toBe("psst @mira_persona");
    expect(m.senderId?.toString()).toBe(String(alice.id));
    expect(m.chatId?.toString()).toBe(String(alice.id));
    // GramJS's NewMessage.build made a Message with ids only: nothing to address the sender with.
    expect(m.sender).toBeUndefined();
    expect(emu.traffic.methods()).toEqual([]);
    // Resolving it by id alone fails: GramJS's users.GetUsers with hash 0 finds nothing.
    await expect(client.getInputEntity(alice.id)).rejects.toThrow(/Could not find the input entity/);
  });

  it("delivers a basic-group message as UpdateShortChatMessage without users or chats", async () => {
    const { emu, persona, alice, inbox } = world({ updateShapes: "telegram" });
    const group = emu.createGroup({ title: "Book club", members: [persona, alice] });

    await emu.post({ chat: group, from: alice, text: "hello all" });

    const update = inbox.events[0]?.originalUpdate as Api.UpdateShortChatMessage;
    expect(update).toBeInstanceOf(Api.UpdateShortChatMessage);
    expect([update.fromId.toString(), update.chatId.toString(), update.ptsCount]).toEqual([
      String(alice.id),
      String(group.id),
      1,
    ]);
    expect(inbox.last().chatId?.toString()).toBe(group.peerId);
    expect(inbox.last().senderId?.toString()).toBe(String(alice.id));
    expect(inbox.last().sender).toBeUndefined();
  });

  it("keeps stickers in the full Updates shape", async () => {
    const { emu, persona, alice, client, inbox } = world({ updateShapes: "telegram" });
    const otto = emu.addAccount({ firstName: "Otto" });
    const ottoClient = createEmulatedClient(emu, otto);
    const ottoInbox = inboxOf(ottoClient);
    const set = emu.addStickerSet({ shortName: "S", title: "S", stickers: [{ emoji: "🙂" }] });
    const group = emu.createGroup({ title: "G", members: [persona, otto, alice] });
    await emu.post({ chat: group, from: alice, text: "hi" });
    const doc = set.stickers[0];
    if (!doc) throw new Error("no sticker");
    await client.sendFile(group.peerId, {
      file: new Api.InputMediaDocument({
        id: new Api.InputDocument({
          id: returnBigInt(doc.id),
          accessHash: returnBigInt(doc.accessHash),
          fileReference: doc.fileReference,
        }),
      }),
    });
    await emu.idle();
    expect(ottoInbox.events.at(-1)?.originalUpdate).toBeInstanceOf(Api.UpdateNewMessage);
    expect(inbox.events[0]?.originalUpdate).toBeInstanceOf(Api.UpdateShortChatMessage);
  });

  it("answers text sends to DMs and basic groups with UpdateShortSentMessage carrying pts", async () => {
    const { emu, persona, alice, client } = world({ updateShapes: "telegram" });
    const dm = emu.dm(persona, alice);
    const sg = emu.createSupergroup({ title: "SG", members: [persona, alice] });
    await emu.post({ chat: dm, from: alice, text: "hi" });
    emu.primeEntityCache(persona);
    const pts = emu.updates.state(persona).pts;

    const raw = await client.invoke(
      new Api.messages.SendMessage({ peer: dm.peerId, message: "short answer", randomId: returnBigInt(5) }),
    );
    expect(raw).toBeInstanceOf(Api.UpdateShortSentMessage);
    expect([(raw as Api.UpdateShortSentMessage).pts, (raw as Api.UpdateShortSentMessage).ptsCount]).toEqual([
      pts + 1,
      1,
    ]);
    const sent = await client.sendMessage(dm.peerId, { message: "through sendMessage" });
    expect([sent?.id, sent?.text]).toEqual([emu.history(dm).at(-1)?.id, "through sendMessage"]);
    // Supergroups keep the Updates answer (UpdateMessageID + UpdateNewChannelMessage).
    const inGroup = await client.invoke(
      new Api.messages.SendMessage({ peer: sg.peerId, message: "sg", randomId: returnBigInt(6) }),
    );
    expect(inGroup).toBeInstanceOf(Api.Updates);
  });

  it("sends supergroup senders the account never resolved as min users, full once it has", async () => {
    const { emu, persona, alice, client, inbox } = world({ updateShapes: "telegram" });
    const sg = emu.createSupergroup({ title: "SG", members: [persona, alice] });

    await emu.post({ chat: sg, from: alice, text: "who am I" });
    const first = inbox.last();
    expect(inbox.events.at(-1)?.originalUpdate).toBeInstanceOf(Api.UpdateNewChannelMessage);
    const sender = (await first.getSender()) as Api.User | undefined;
    expect(sender?.min).toBe(true);
    expect(sender?.accessHash).toBeUndefined();
    // GramJS caches nothing for a min user.
    await expect(client.getInputEntity(alice.id)).rejects.toThrow(/Could not find the input entity/);

    // Resolving the user (here by username) gives the account the full user from then on.
    await client.invoke(new Api.contacts.ResolveUsername({ username: "alice" }));
    await emu.post({ chat: sg, from: alice, text: "now you know" });
    const again = (await inbox.last().getSender()) as Api.User;
    expect(again.min).toBeFalsy();
    expect(again.accessHash?.toString()).toBe(String(alice.accessHash));
  });

  it("speaks Telegram's shapes by default", async () => {
    const emu = new TelegramEmulator();
    const persona = emu.addAccount({ firstName: "Mira", username: "mira_persona" });
    const alice = emu.addUser({ firstName: "Alice", username: "alice" });
    const inbox = inboxOf(createEmulatedClient(emu, persona));
    await emu.post({ chat: emu.dm(persona, alice), from: alice, text: "hi" });
    expect(inbox.events.at(-1)?.originalUpdate).toBeInstanceOf(Api.UpdateShortMessage);
  });

  it("keeps the full shape when asked", async () => {
    const { emu, persona, alice, inbox, client } = world({ updateShapes: "full" });
    const dm = emu.dm(persona, alice);
    await emu.post({ chat: dm, from: alice, text: "hi" });
    expect(inbox.events.at(-1)?.originalUpdate).toBeInstanceOf(Api.UpdateNewMessage);
    expect(((await inbox.last().getSender()) as Api.User).firstName).toBe("Alice");
    const raw = await client.invoke(
      new Api.messages.SendMessage({ peer: dm.peerId, message: "x", randomId: returnBigInt(9) }),
    );
    expect(raw).toBeInstanceOf(Api.Updates);
  });
});

describe("messages sent as a chat", () => {
  it("delivers an anonymous admin's post with from_id the group itself", async () => {
    const { emu, persona, alice, inbox } = world();
    const sg = emu.createSupergroup({ title: "Club", members: [persona, alice] });

    const posted = await emu.post({ chat: sg, from: alice, text: "rules updated", sendAs: sg });

    const m = inbox.last();
    expect(m.fromId).toBeInstanceOf(Api.PeerChannel);
    expect(m.senderId?.toString()).toBe(sg.peerId);
    const update = inbox.events.at(-1)?.originalUpdate as Api.UpdateNewChannelMessage;
    expect(update).toBeInstanceOf(Api.UpdateNewChannelMessage);
    expect(posted.fromName).toBe("Club");
    expect(posted.senderChatId).toBe(sg.peerId);
    // The admin behind it is not revealed.
    expect(emu.history(sg).at(-1)?.senderChatId).toBe(sg.peerId);
  });

  it("delivers a linked channel's post as the group's automatic forward, sender the channel", async () => {
    const { emu, persona, alice, inbox } = world({ strictTl: true });
    const sg = emu.createSupergroup({ title: "Discussion", members: [persona, alice] });
    const channel = emu.createChannel({ title: "News", members: [alice], discussion: sg });

    await emu.post({ chat: sg, from: alice, text: "new episode out", sendAs: channel });

    const m = inbox.last();
    expect(m.senderId?.toString()).toBe(channel.peerId);
    expect(m.fwdFrom?.channelPost).toBe(emu.history(channel, alice).at(-1)?.id);
    expect((m.fwdFrom?.fromId as Api.PeerChannel).channelId.toString()).toBe(String(channel.id));
    const chat = (await m.getSender()) as Api.Channel;
    expect([chat.broadcast, chat.title]).toEqual([true, "News"]);
  });
});

describe("update shapes under strictTl", () => {
  it("round-trips short updates, short sent answers and min users through TL bytes", async () => {
    const { emu, persona, alice, client, inbox } = world({ strictTl: true, updateShapes: "telegram" });
    const dm = emu.dm(persona, alice);
    const group = emu.createGroup({ title: "G", members: [persona, alice] });
    const sg = emu.createSupergroup({ title: "SG", members: [persona, alice] });
    await emu.post({ chat: dm, from: alice, text: "a" });
    await emu.post({ chat: group, from: alice, text: "b" });
    await emu.post({ chat: sg, from: alice, text: "c" });
    expect(inbox.events.map((e) => e.originalUpdate.className)).toEqual([
      "UpdateShortMessage",
      "UpdateShortChatMessage",
      "UpdateNewChannelMessage",
    ]);
    expect(((await inbox.last().getSender()) as Api.User).min).toBe(true);
    const sent = await client.invoke(
      new Api.messages.SendMessage({ peer: group.peerId, message: "ok", randomId: returnBigInt(3) }),
    );
    expect(sent).toBeInstanceOf(Api.UpdateShortSentMessage);
  });
});
