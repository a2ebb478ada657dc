import { Api } from "telegram";
import { returnBigInt } from "telegram/Helpers.js";
import { EditedMessage, type EditedMessageEvent } from "telegram/events/EditedMessage.js";
import { describe, expect, it } from "vitest";
import { createEmulatedClient } from "../../emulator/index";
import { rawOf, world } from "./harness";

describe("edits, deletions and other users' typing", () => {
  it("an edit in a supergroup arrives as UpdateEditChannelMessage with the channel's next pts, through GramJS's EditedMessage event", async () => {
    const { emu, persona, alice, client } = world();
    const sg = emu.createSupergroup({ title: "SG", members: [persona, alice] });
    const m = await emu.post({ chat: sg, from: alice, text: "see you at 5" });
    const raw = rawOf(client);
    const edited: EditedMessageEvent[] = [];
    client.addEventHandler((e: EditedMessageEvent) => {
      edited.push(e);
    }, new EditedMessage({}));
    const ptsBefore = emu.updates.channelPts(sg);

    await emu.chats.editMessage(sg, m.id, "see you at 6, @mira_persona");

    expect(raw).toHaveLength(1);
    const u = raw[0] as Api.UpdateEditChannelMessage;
    expect(u).toBeInstanceOf(Api.UpdateEditChannelMessage);
    expect([u.pts, u.ptsCount]).toEqual([ptsBefore + 1, 1]);
    expect(emu.updates.channelPts(sg)).toBe(ptsBefore + 1);
    expect(edited.map((e) => [e.message.id, e.message.message, e.message.mentioned])).toEqual([
      [m.id, "see you at 6, @mira_persona", true],
    ]);
    expect(edited[0]!.message.editDate).toBeGreaterThan(0);
    expect(emu.history(sg).map((x) => x.text)).toEqual(["see you at 6, @mira_persona"]);
  });

  it("an edit replaces the message's entities: the new text's mentions, given text mentions, and none for plain text", async () => {
    const { emu, persona, alice, client } = world();
    const sg = emu.createSupergroup({ title: "SG", members: [persona, alice] });
    const m = await emu.post({ chat: sg, from: alice, text: "ok, @mira_persona see this" });
    const raw = rawOf(client);
    const entitiesOf = (u: Api.TypeUpdate | undefined) =>
      ((u as Api.UpdateEditChannelMessage).message as Api.Message).entities ?? [];

    await emu.chats.editMessage(sg, m.id, "totally new words, Mira", {
      entities: [
        new Api.MessageEntityMentionName({ offset: 19, length: 4, userId: returnBigInt(persona.id) }),
      ],
    });
    expect(entitiesOf(raw[0]).map((e) => [e.className, e.offset, e.length])).toEqual([
      ["MessageEntityMentionName", 19, 4],
    ]);
    await emu.chats.editMessage(sg, m.id, "totally new words");
    expect(entitiesOf(raw[1])).toEqual([]);
    await emu.chats.editMessage(sg, m.id, "hey @alice_x");
    expect(entitiesOf(raw[2]).map((e) => [e.className, e.offset, e.length])).toEqual([
      ["MessageEntityMention", 4, 8],
    ]);
  });

  it("an edit in a basic group arrives as UpdateEditMessage with each account's own id and pts", async () => {
    const { emu, persona, alice, client } = world();
    const otto = emu.addAccount({ firstName: "Otto" });
    const ottoClient = createEmulatedClient(emu, otto);
    const group = emu.createGroup({ title: "G", members: [persona, otto, alice] });
    await emu.post({ chat: emu.dm(otto, alice), from: alice, text: "moves otto's ids ahead" });
    const m = await emu.post({ chat: group, from: alice, text: "draft" });
    const mine = rawOf(client);
    const ottos = rawOf(ottoClient);
    const [p0, o0] = [emu.updates.state(persona).pts, emu.updates.state(otto).pts];

    await emu.chats.editMessage(group, m.id, "final");

    const a = mine[0] as Api.UpdateEditMessage;
    const b = ottos[0] as Api.UpdateEditMessage;
    expect(a).toBeInstanceOf(Api.UpdateEditMessage);
    expect([(a.message as Api.Message).id, (a.message as Api.Message).message, a.pts, a.ptsCount]).toEqual([
      m.idFor(persona),
      "final",
      p0 + 1,
      1,
    ]);
    expect([(b.message as Api.Message).id, b.pts]).toEqual([m.idFor(otto), o0 + 1]);
    expect(m.idFor(otto)).not.toBe(m.idFor(persona));
  });

  it("deletions arrive as UpdateDeleteChannelMessages / UpdateDeleteMessages, one pts per message, and leave the history", async () => {
    const { emu, persona, alice, client } = world();
    const sg = emu.createSupergroup({ title: "SG", members: [persona, alice] });
    const dm = emu.dm(persona, alice);
    const s1 = await emu.post({ chat: sg, from: alice, text: "one" });
    const s2 = await emu.post({ chat: sg, from: alice, text: "two" });
    const d1 = await emu.post({ chat: dm, from: alice, text: "oops" });
    const raw = rawOf(client);
    const [cp, ap] = [emu.updates.channelPts(sg), emu.updates.state(persona).pts];

    await emu.chats.deleteMessages(sg, [s1.id, s2.id]);
    await emu.chats.deleteMessages(dm, [d1.id]);
    await emu.chats.deleteMessages(dm, [d1.id]); // already gone: nothing more

    expect(raw).toHaveLength(2);
    const c = raw[0] as Api.UpdateDeleteChannelMessages;
    expect(c).toBeInstanceOf(Api.UpdateDeleteChannelMessages);
    expect([String(c.channelId), c.messages, c.pts, c.ptsCount]).toEqual([
      String(sg.id),
      [s1.id, s2.id],
      cp + 2,
      2,
    ]);
    const p = raw[1] as Api.UpdateDeleteMessages;
    expect(p).toBeInstanceOf(Api.UpdateDeleteMessages);
    expect([p.messages, p.pts, p.ptsCount]).toEqual([[d1.id], ap + 1, 1]);
    expect(emu.history(sg)).toEqual([]);
    expect(emu.history(dm)).toEqual([]);
  });

  it("other users' typing arrives as UpdateUserTyping, UpdateChatUserTyping and UpdateChannelUserTyping (top_msg_id in a forum topic), without pts", async () => {
    const { emu, persona, alice, client } = world();
    const dm = emu.dm(persona, alice);
    const group = emu.createGroup({ title: "G", members: [persona, alice] });
    const forum = emu.createSupergroup({ title: "F", members: [persona, alice], forum: true });
    const topic = emu.createTopic(forum, "Travel");
    await emu.idle(); // the topic's root (a service message with pts) is pushed too
    const raw = rawOf(client);
    const before = [emu.updates.state(persona).pts, emu.updates.channelPts(forum)];

    await emu.chats.userTyping(dm, alice);
    await emu.chats.userTyping(group, alice, { action: "cancel" });
    await emu.chats.userTyping(forum, alice, { topicId: topic });

    const [u, g, f] = raw as [Api.UpdateUserTyping, Api.UpdateChatUserTyping, Api.UpdateChannelUserTyping];
    expect(u).toBeInstanceOf(Api.UpdateUserTyping);
    expect([String(u.userId), u.action.className]).toEqual([String(alice.id), "SendMessageTypingAction"]);
    expect(g).toBeInstanceOf(Api.UpdateChatUserTyping);
    expect([String(g.chatId), String((g.fromId as Api.PeerUser).userId), g.action.className]).toEqual([
      String(group.id),
      String(alice.id),
      "SendMessageCancelAction",
    ]);
    expect(f).toBeInstanceOf(Api.UpdateChannelUserTyping);
    expect([String(f.channelId), f.topMsgId, f.action.className]).toEqual([
      String(forum.id),
      topic,
      "SendMessageTypingAction",
    ]);
    expect([emu.updates.state(persona).pts, emu.updates.channelPts(forum)]).toEqual(before);
    await expect(emu.chats.userTyping(group, emu.addUser({ firstName: "Stranger" }))).rejects.toThrow(
      /not a member/,
    );
  });
});
