import { Api, errors } from "telegram";
import { returnBigInt } from "telegram/Helpers.js";
import { describe, expect, it } from "vitest";
import { createEmulatedClient } from "../../emulator/index";
import { inboxOf, world } from "./harness";

describe("sending from an attached client", () => {
  it("stores client.sendMessage and returns the message with its id", async () => {
    const { emu, persona, alice, client } = world();
    const group = emu.createSupergroup({ title: "G", members: [persona, alice] });
    await emu.post({ chat: group, from: alice, text: "hi" });

    const sent = await client.sendMessage(group.peerId, { message: "hello **there**" });

    expect(sent?.id).toBe(3);
    expect(sent?.out).toBe(true);
    expect(emu.traffic.methods()).toEqual(["messages.SendMessage"]);
    const last = emu.history(group).at(-1);
    expect(last).toMatchObject({ id: 3, fromId: persona.id, text: "hello there", fromName: "Mira Persona" });
  });

  it("answers a chosen randomId once and RANDOM_ID_DUPLICATE on a repeat", async () => {
    const { emu, persona, alice, client } = world();
    const group = emu.createGroup({ title: "G", members: [persona, alice] });
    const randomId = returnBigInt("8123456789012345678");
    const request = () =>
      new Api.messages.SendMessage({
        peer: new Api.InputPeerChat({ chatId: returnBigInt(group.id) }),
        message: "exactly once",
        randomId,
      });

    const result = await client.invoke(request());
    expect(result).toBeInstanceOf(Api.Updates);
    const updates = (result as Api.Updates).updates;
    const idUpdate = updates.find((u): u is Api.UpdateMessageID => u instanceof Api.UpdateMessageID);
    expect(idUpdate?.randomId?.toString()).toBe("8123456789012345678");
    expect(idUpdate?.id).toBe(1);
    expect(updates.find((u) => u instanceof Api.UpdateNewMessage)).toBeDefined();

    const error = await client.invoke(request()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(errors.RPCError);
    expect((error as errors.RPCError).errorMessage).toBe("RANDOM_ID_DUPLICATE");
    expect((error as errors.RPCError).code).toBe(400);
    expect(emu.history(group).map((m) => m.text)).toEqual(["exactly once"]);
  });

  it("in replay mode answers a repeated randomId with the original message (pts_count 0) and sends nothing new", async () => {
    const { emu, persona, alice, client } = world({ duplicates: "replay" });
    const sg = emu.createSupergroup({ title: "SG", members: [persona, alice] });
    const dm = emu.dm(persona, alice);
    await emu.post({ chat: sg, from: alice, text: "hi" });
    await emu.post({ chat: dm, from: alice, text: "hi" });
    const seen: string[] = [];
    emu.onMessage((m) => seen.push(m.text));
    for (const [chat, peer, id] of [
      [
        sg,
        new Api.InputPeerChannel({ channelId: returnBigInt(sg.id), accessHash: returnBigInt(sg.accessHash) }),
        "7123456789012345678",
      ],
      [
        dm,
        new Api.InputPeerUser({ userId: returnBigInt(alice.id), accessHash: returnBigInt(alice.accessHash) }),
        "7123456789012345679",
      ],
    ] as const) {
      const randomId = returnBigInt(id);
      const request = () => new Api.messages.SendMessage({ peer, message: "only once", randomId });
      const first = (await client.invoke(request())) as Api.Updates;
      const again = await client.invoke(request());
      expect(again).toBeInstanceOf(Api.Updates);
      const [idUpdate, newMessage] = (again as Api.Updates).updates as [
        Api.UpdateMessageID,
        Api.UpdateNewChannelMessage | Api.UpdateNewMessage,
      ];
      expect(idUpdate).toBeInstanceOf(Api.UpdateMessageID);
      expect(idUpdate.randomId?.toString()).toBe(id);
      expect(idUpdate.id).toBe((first.updates[0] as Api.UpdateMessageID).id);
      expect(newMessage.ptsCount).toBe(0);
      expect((newMessage.message as Api.Message).id).toBe(idUpdate.id);
      expect((newMessage.message as Api.Message).message).toBe("only once");
      expect(emu.history(chat).map((m) => m.text)).toEqual(["hi", "only once"]);
    }
    await emu.idle();
    expect(seen).toEqual(["only once", "only once"]); // one per chat: the replays announce nothing

    emu.faults.setDuplicateMode("error");
    const error = await client
      .invoke(
        new Api.messages.SendMessage({
          peer: sg.peerId,
          message: "only once",
          randomId: returnBigInt("7123456789012345678"),
        }),
      )
      .catch((e: unknown) => e);
    expect((error as errors.RPCError).errorMessage).toBe("RANDOM_ID_DUPLICATE");
  });

  it("stores replies and broadcasts the send to other attached member accounts", async () => {
    const { emu, persona, alice, client: personaClient } = world();
    const second = emu.addAccount({ firstName: "Otto", username: "otto_persona" });
    const ottoClient = createEmulatedClient(emu, second);
    const ottoInbox = inboxOf(ottoClient);
    const sg = emu.createSupergroup({ title: "G", members: [persona, second, alice] });
    const question = await emu.post({ chat: sg, from: alice, text: "who's there?" });

    const sent = await personaClient.sendMessage(sg.peerId, {
      message: "me, @otto_persona",
      replyTo: question.id,
    });
    await emu.idle();

    expect(emu.history(sg).at(-1)).toMatchObject({ id: sent?.id, replyTo: question.id, fromId: persona.id });
    const seenByOtto = ottoInbox.last();
    expect(seenByOtto.id).toBe(sent?.id);
    expect(seenByOtto.out).toBe(false);
    expect(seenByOtto.mentioned).toBe(true);
    expect(seenByOtto.senderId?.toString()).toBe(String(persona.id));
    expect(seenByOtto.replyToMsgId).toBe(question.id);
  });

  it("keeps basic-group and DM ids per account with two attached accounts", async () => {
    const { emu, persona, alice, client: personaClient, inbox: personaInbox } = world();
    const otto = emu.addAccount({ firstName: "Otto", username: "otto_persona" });
    const ottoClient = createEmulatedClient(emu, otto);
    const ottoInbox = inboxOf(ottoClient);
    // Two DM messages move the persona's mailbox counter ahead of Otto's.
    const dm = emu.dm(persona, alice);
    await emu.post({ chat: dm, from: alice, text: "dm 1" });
    await emu.post({ chat: dm, from: alice, text: "dm 2" });
    const group = emu.createGroup({ title: "Shared", members: [persona, otto, alice] });

    const posted = await emu.post({ chat: group, from: alice, text: "to both" });
    expect(personaInbox.last().id).toBe(3);
    expect(ottoInbox.last().id).toBe(1);
    expect(posted.id).toBe(3); // the reference account is the first attached member: the persona
    expect(posted.idFor(otto)).toBe(1);

    // Otto replies using Otto's id; the persona sees its own id space and is not mentioned.
    const ottoReply = await ottoClient.sendMessage(group.peerId, { message: "otto here", replyTo: 1 });
    expect(ottoReply?.id).toBe(2);
    await emu.idle();
    expect(personaInbox.last().id).toBe(4);
    expect(personaInbox.last().replyToMsgId).toBe(3);
    expect(personaInbox.last().mentioned).toBe(false);
    expect((await personaInbox.last().getReplyMessage())?.text).toBe("to both");

    // The persona replies to Otto's message: Otto is mentioned, in Otto's ids.
    await personaClient.sendMessage(group.peerId, { message: "hi otto", replyTo: 4 });
    await emu.idle();
    expect(ottoInbox.last()).toMatchObject({ id: 3, mentioned: true });
    expect(ottoInbox.last().replyToMsgId).toBe(2);

    expect(emu.history(group, otto).map((m) => [m.id, m.text, m.replyTo])).toEqual([
      [1, "to both", undefined],
      [2, "otto here", 1],
      [3, "hi otto", 2],
    ]);
    expect(emu.history(group).map((m) => m.id)).toEqual([3, 4, 5]);
  });

  it("sends a sticker from an added set through messages.SendMedia", async () => {
    const { emu, persona, alice, client } = world();
    const dm = emu.dm(persona, alice);
    const added = emu.addStickerSet({
      shortName: "EmuCats",
      title: "Cats",
      stickers: [{ emoji: "😺" }, { emoji: "😿" }],
    });
    await emu.post({ chat: dm, from: alice, text: "send a cat" });

    const set = await client.invoke(
      new Api.messages.GetStickerSet({
        stickerset: new Api.InputStickerSetShortName({ shortName: "emucats" }),
        hash: 0,
      }),
    );
    expect(set).toBeInstanceOf(Api.messages.StickerSet);
    const doc = (set as Api.messages.StickerSet).documents[1] as Api.Document;
    expect(doc.id.toString()).toBe(String(added.stickers[1]?.id));

    const sent = await client.sendFile(dm.peerId, {
      // Typed GramJS accepts InputMedia (or the Document itself); both become InputMediaDocument.
      file: new Api.InputMediaDocument({
        id: new Api.InputDocument({
          id: doc.id,
          accessHash: doc.accessHash,
          fileReference: doc.fileReference,
        }),
      }),
    });
    expect(sent?.media).toBeInstanceOf(Api.MessageMediaDocument);
    expect(emu.traffic.methods()).toEqual(["messages.GetStickerSet", "messages.SendMedia"]);
    expect(emu.history(dm).at(-1)).toMatchObject({ media: "sticker", stickerEmoji: "😿", text: "" });
    await client.sendFile(dm.peerId, { file: doc });
    expect(emu.history(dm).at(-1)).toMatchObject({ media: "sticker", stickerEmoji: "😿" });

    const missing = await client
      .invoke(
        new Api.messages.GetStickerSet({
          stickerset: new Api.InputStickerSetShortName({ shortName: "nope" }),
          hash: 0,
        }),
      )
      .catch((e: unknown) => e);
    expect((missing as errors.RPCError).errorMessage).toBe("STICKERSET_INVALID");
  });

  it("refuses chats the account is not in", async () => {
    const { emu, persona, alice, client } = world();
    const sg = emu.createSupergroup({ title: "SG", members: [persona, alice] });
    const group = emu.createGroup({ title: "G", members: [persona, alice] });
    await emu.post({ chat: sg, from: alice, text: "x" });
    await emu.post({ chat: group, from: alice, text: "y" });
    emu.chats.removeMember(sg, persona);
    emu.chats.removeMember(group, persona);

    const e1 = await client.sendMessage(sg.peerId, { message: "hello?" }).catch((e: unknown) => e);
    expect((e1 as errors.RPCError).errorMessage).toBe("CHANNEL_PRIVATE");
    const e2 = await client.sendMessage(group.peerId, { message: "hello?" }).catch((e: unknown) => e);
    expect((e2 as errors.RPCError).errorMessage).toBe("CHAT_WRITE_FORBIDDEN");
    expect((e2 as errors.RPCError).code).toBe(403);
  });

  it("needs the chat's access hash like Telegram (primeEntityCache provides it)", async () => {
    const { emu, persona, alice, client } = world();
    const sg = emu.createSupergroup({ title: "Unseen", members: [persona, alice] });

    await expect(client.sendMessage(sg.peerId, { message: "first!" })).rejects.toThrow();
    emu.primeEntityCache(persona);
    const sent = await client.sendMessage(sg.peerId, { message: "first!" });
    expect(sent?.id).toBe(2);
  });
});
