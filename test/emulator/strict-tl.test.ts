import { Api, errors } from "telegram";
import { NewMessage, type NewMessageEvent } from "telegram/events/index.js";
import { returnBigInt } from "telegram/Helpers.js";
import { describe, expect, it, vi } from "vitest";
import { createEmulatedClient } from "../../emulator/index";
import { roundTripResult } from "../../emulator/tl-roundtrip";
import { world } from "./harness";

describe("strictTl: everything through TL bytes", () => {
  it("runs every implemented method with valid TL answers", async () => {
    const { emu, persona, alice, client, inbox } = world({ strictTl: true });
    const otto = emu.addAccount({ firstName: "Otto", username: "otto_persona" });
    const ottoClient = createEmulatedClient(emu, otto);
    const sg = emu.createSupergroup({ title: "SG", members: [persona, otto, alice], forum: true });
    const topic = emu.createTopic(sg, "Talk");
    const group = emu.createGroup({ title: "G", members: [persona, otto, alice] });
    const dm = emu.dm(persona, alice);
    const set = emu.addStickerSet({ shortName: "StrictSet", title: "Strict", stickers: [{ emoji: "🙂" }] });

    const q = await emu.post({ chat: sg, from: alice, text: "@mira_persona question?", topicId: topic });
    expect(inbox.last().mentioned).toBe(true);
    await emu.post({ chat: group, from: alice, text: "group hello" });
    await emu.post({ chat: dm, from: alice, text: "dm hello" });

    const sent = await client.sendMessage(sg.peerId, { message: "answer", replyTo: q.id });
    expect(sent?.replyTo?.replyToTopId).toBe(topic);
    await client.sendMessage(group.peerId, { message: "group answer" });
    await emu.post({ chat: sg, from: alice, text: "thanks", replyTo: sent?.id });
    expect((await inbox.last().getReplyMessage())?.text).toBe("answer");
    await emu.post({ chat: group, from: alice, text: "reply in group", replyTo: 1 });
    expect((await inbox.last().getReplyMessage())?.text).toBe("group hello");

    await client.invoke(
      new Api.messages.SetTyping({ peer: dm.peerId, action: new Api.SendMessageTypingAction() }),
    );
    expect(await client.invoke(new Api.channels.ReadHistory({ channel: sg.peerId, maxId: 0 }))).toBe(true);
    await client.invoke(new Api.messages.ReadHistory({ peer: group.peerId, maxId: 0 }));
    await client.invoke(
      new Api.messages.SendReaction({
        peer: sg.peerId,
        msgId: q.id,
        reaction: [new Api.ReactionEmoji({ emoticon: "🔥" })],
      }),
    );
    expect(emu.chats.reactions(sg, q.id)).toEqual([{ userId: String(persona.id), emoji: "🔥" }]);
    const stickers = await client.invoke(
      new Api.messages.GetStickerSet({
        stickerset: new Api.InputStickerSetShortName({ shortName: set.shortName }),
        hash: 0,
      }),
    );
    const doc = (stickers as Api.messages.StickerSet).documents[0] as Api.Document;
    await client.sendFile(dm.peerId, {
      // Typed GramJS accepts InputMedia (or the Document itself); both become InputMediaDocument.
      file: new Api.InputMediaDocument({
        id: new Api.InputDocument({
          id: doc.id,
          accessHash: doc.accessHash,
          fileReference: doc.fileReference,
        }),
      }),
    });
    expect(await client.invoke(new Api.contacts.Block({ id: dm.peerId }))).toBe(true);
    expect(await client.invoke(new Api.contacts.Unblock({ id: dm.peerId }))).toBe(true);
    expect(((await client.getMe()) as Api.User).id.toString()).toBe(String(persona.id));
    expect(await client.isUserAuthorized()).toBe(true);
    const page = await client.getMessages(group.peerId, { limit: 10 });
    expect(Array.from(page, (m) => m.text)).toEqual(["reply in group", "group answer", "group hello"]);
    await client.invoke(new Api.contacts.ResolveUsername({ username: "alice" }));

    const duplicate = await client
      .invoke(new Api.messages.SendMessage({ peer: dm.peerId, message: "x", randomId: returnBigInt(7) }))
      .then(() =>
        client.invoke(
          new Api.messages.SendMessage({ peer: dm.peerId, message: "x", randomId: returnBigInt(7) }),
        ),
      )
      .catch((e: unknown) => e);
    expect((duplicate as errors.RPCError).errorMessage).toBe("RANDOM_ID_DUPLICATE");

    // The other account received the persona's sends, parsed from bytes too.
    const ottoSeen: string[] = [];
    ottoClient.addEventHandler(
      (ev: NewMessageEvent) => {
        ottoSeen.push(ev.message.text);
      },
      new NewMessage({ incoming: true }),
    );
    await client.sendMessage(group.peerId, { message: "for otto too" });
    await emu.idle();
    expect(ottoSeen).toEqual(["for otto too"]);
  });

  it("delivers a re-parsed copy of the prepared updates", async () => {
    const { emu, persona, alice, inbox } = world({ strictTl: true });
    const sg = emu.createSupergroup({ title: "SG", members: [persona, alice] });
    const [prepared] = emu.buildIncoming({ chat: sg, from: alice, text: "bytes" });
    if (!prepared) throw new Error("nothing prepared");

    await emu.deliver(prepared.account, prepared.updates);

    expect(inbox.last().text).toBe("bytes");
    expect(inbox.events[0]?.originalUpdate).not.toBe((prepared.updates as Api.Updates).updates[0]);
  });

  it("catches an answer that is not valid TL", () => {
    // GramJS console.errors a CastError before failing to serialise; keep the output clean.
    const consoleError = vi.spyOn(console, "error").mockImplementation(() => undefined);
    const request = new Api.channels.GetMessages({ channel: new Api.InputChannelEmpty(), id: [] });
    const invalid = new Api.messages.ChannelMessages({
      pts: 1,
      count: 0,
      messages: [],
      users: [],
      chats: [],
    } as never);
    expect(() => roundTripResult(request, invalid)).toThrow();
    expect(consoleError).toHaveBeenCalled();
    consoleError.mockRestore();
    const valid = new Api.messages.ChannelMessages({
      pts: 1,
      count: 0,
      messages: [],
      topics: [],
      users: [],
      chats: [],
    });
    expect(roundTripResult(request, valid)).toBeInstanceOf(Api.messages.ChannelMessages);
  });
  it("a bot's user object is valid TL (bot and bot_info_version share flag 14)", async () => {
    const { emu, persona, client } = world({ strictTl: true });
    const bot = emu.addUser({ firstName: "Helper", username: "helper_bot", bot: true });
    const dm = emu.dm(persona, bot);
    await emu.post({ chat: dm, from: bot, text: "Welcome!" });
    const res = await client.invoke(new Api.updates.GetDifference({ pts: 1, date: 0, qts: 0 }));
    const users = res instanceof Api.updates.Difference ? res.users : [];
    const read = users.find((u) => u instanceof Api.User && u.id.toString() === String(bot.id)) as Api.User;
    expect(read.bot).toBe(true);
    expect(typeof read.botInfoVersion).toBe("number");
    const resolved = await client.invoke(new Api.contacts.ResolveUsername({ username: "helper_bot" }));
    expect((resolved.users[0] as Api.User).bot).toBe(true);
  });
});
