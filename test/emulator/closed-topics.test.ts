/**
 * A forum topic an admin closed (docs/telegram-facts.md): messageActionTopicEdit {closed} inside
 * the topic, and sends there by a member who is not an admin answer TOPIC_CLOSED until it reopens.
 */
import { Api } from "telegram";
import { Raw } from "telegram/events/index.js";
import { describe, expect, it } from "vitest";
import { world } from "./harness";

describe("a closed forum topic", () => {
  it("pushes messageActionTopicEdit {closed} in the topic, refuses sends there with TOPIC_CLOSED, takes them again once reopened", async () => {
    const { emu, persona, alice, client } = world({ strictTl: true });
    const forum = emu.createSupergroup({ title: "Forum", forum: true, members: [persona, alice] });
    const seen: Api.MessageService[] = [];
    const raw = new Raw({});
    client.addEventHandler((u: Api.TypeUpdate) => {
      if (u instanceof Api.UpdateNewChannelMessage && u.message instanceof Api.MessageService)
        seen.push(u.message);
    }, raw);
    await client.getMe();
    await raw.resolve(client);
    const travel = emu.createTopic(forum, "Travel");
    const other = emu.createTopic(forum, "Food");
    emu.chats.closeTopic(forum, travel);
    await emu.idle();

    const edit = seen.at(-1)!;
    expect(edit.action).toBeInstanceOf(Api.MessageActionTopicEdit);
    expect((edit.action as Api.MessageActionTopicEdit).closed).toBe(true);
    expect((edit.action as Api.MessageActionTopicEdit).title ?? undefined).toBeUndefined();
    expect((edit.replyTo as Api.MessageReplyHeader).replyToMsgId).toBe(travel);

    await expect(client.sendMessage(forum.peerId, { message: "trains?", replyTo: travel })).rejects.toThrow(
      /TOPIC_CLOSED/,
    );
    await expect(
      client.sendMessage(forum.peerId, { message: "pizza", replyTo: other }),
    ).resolves.toBeDefined();

    emu.chats.closeTopic(forum, travel, false);
    await emu.idle();
    expect((seen.at(-1)!.action as Api.MessageActionTopicEdit).closed).toBe(false);
    await expect(
      client.sendMessage(forum.peerId, { message: "trains?", replyTo: travel }),
    ).resolves.toBeDefined();
  });

  it("an admin with manage_topics may post in a closed topic and sees that right on the channel; an admin without it is refused TOPIC_CLOSED", async () => {
    const { emu, persona, alice, client } = world({ strictTl: true });
    const forum = emu.createSupergroup({ title: "Forum", forum: true, members: [persona, alice] });
    await emu.post({ chat: forum, from: alice, text: "hi" }); // the client learns the channel
    const travel = emu.createTopic(forum, "Travel");
    emu.chats.closeTopic(forum, travel);
    await emu.idle();
    const channel = async () =>
      (
        (await client.invoke(
          new Api.channels.GetChannels({ id: [(await client.getInputEntity(forum.peerId)) as never] }),
        )) as Api.messages.Chats
      ).chats[0] as Api.Channel;
    expect((await channel()).adminRights ?? undefined).toBeUndefined();

    await emu.chats.restrict(forum, { adminsWithoutTopicRights: [persona] });
    expect((await channel()).adminRights?.manageTopics ?? false).toBe(false);
    expect((await channel()).adminRights?.deleteMessages).toBe(true);
    await expect(client.sendMessage(forum.peerId, { message: "trains?", replyTo: travel })).rejects.toThrow(
      /TOPIC_CLOSED/,
    );

    await emu.chats.restrict(forum, { admins: [persona] });
    expect((await channel()).adminRights?.manageTopics).toBe(true);
    await expect(
      client.sendMessage(forum.peerId, { message: "trains, as the admin", replyTo: travel }),
    ).resolves.toBeDefined();
    expect(emu.history(forum).at(-1)?.text).toBe("trains, as the admin");
  });

  it("closes the General topic (1): its service message carries no topic header, and a send naming no topic (or replying in General) answers TOPIC_CLOSED until it reopens", async () => {
    const { emu, persona, alice, client } = world({ strictTl: true });
    const forum = emu.createSupergroup({ title: "Forum", forum: true, members: [persona, alice] });
    const seen: Api.MessageService[] = [];
    const raw = new Raw({});
    client.addEventHandler((u: Api.TypeUpdate) => {
      if (u instanceof Api.UpdateNewChannelMessage && u.message instanceof Api.MessageService)
        seen.push(u.message);
    }, raw);
    await client.getMe();
    await raw.resolve(client);
    const travel = emu.createTopic(forum, "Travel");
    const hello = await emu.post({ chat: forum, from: alice, text: "hello all" }); // in General
    emu.chats.closeTopic(forum, 1);
    await emu.idle();

    const edit = seen.at(-1)!;
    expect((edit.action as Api.MessageActionTopicEdit).closed).toBe(true);
    expect(edit.replyTo ?? undefined).toBeUndefined(); // General: no topic header
    await expect(client.sendMessage(forum.peerId, { message: "hi" })).rejects.toThrow(/TOPIC_CLOSED/);
    await expect(client.sendMessage(forum.peerId, { message: "hi", replyTo: hello.id })).rejects.toThrow(
      /TOPIC_CLOSED/,
    );
    await expect(
      client.sendMessage(forum.peerId, { message: "trains?", replyTo: travel }),
    ).resolves.toBeDefined(); // other topics take messages

    emu.chats.closeTopic(forum, 1, false);
    await emu.idle();
    expect((seen.at(-1)!.action as Api.MessageActionTopicEdit).closed).toBe(false);
    await expect(client.sendMessage(forum.peerId, { message: "hi again" })).resolves.toBeDefined();
    expect(emu.history(forum).at(-1)?.topicId).toBeUndefined();
  });
});
