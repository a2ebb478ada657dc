/**
 * Forum topics as Telegram announces them: the topic's root is a service message
 * (messageActionTopicCreate {title, icon_color}) whose id is the topic id, in the channel's pts
 * stream, pushed live and replayed by getChannelDifference; a rename is messageActionTopicEdit.
 */
import { Api, type TelegramClient } from "telegram";
import { Raw } from "telegram/events/index.js";
import { describe, expect, it } from "vitest";
import { world } from "./harness";

/**
 * Every UpdateNewChannelMessage carrying a service message that reaches the client. Like a
 * running client, it has its own id and resolved handlers (GramJS awaits both on a first
 * dispatch, which would let a later update overtake it).
 */
async function serviceUpdates(client: TelegramClient): Promise<Api.UpdateNewChannelMessage[]> {
  const seen: Api.UpdateNewChannelMessage[] = [];
  const raw = new Raw({});
  client.addEventHandler((u: Api.TypeUpdate) => {
    if (u instanceof Api.UpdateNewChannelMessage && u.message instanceof Api.MessageService) seen.push(u);
  }, raw);
  await client.getMe();
  await raw.resolve(client);
  return seen;
}

describe("forum topics' service messages", () => {
  it("pushes the topic's root (messageActionTopicCreate, id = topic id) in the channel's pts stream, before later posts", async () => {
    const { emu, persona, alice, client, inbox } = world({ strictTl: true });
    const forum = emu.createSupergroup({ title: "Forum", forum: true, members: [persona, alice] });
    const seen = await serviceUpdates(client);
    const before = emu.updates.channelPts(forum);
    const travel = emu.createTopic(forum, "Travel");
    await emu.post({ chat: forum, from: alice, text: "trains?", topicId: travel });
    await emu.idle();

    expect(seen).toHaveLength(1);
    const u = seen[0]!;
    const m = u.message as Api.MessageService;
    expect(m.id).toBe(travel);
    expect(m.action).toBeInstanceOf(Api.MessageActionTopicCreate);
    expect((m.action as Api.MessageActionTopicCreate).title).toBe("Travel");
    expect((m.action as Api.MessageActionTopicCreate).iconColor).toBeTypeOf("number");
    expect(u.pts).toBe(before + 1);
    expect(u.ptsCount).toBe(1);
    // The conversation handler still sees only the post, which came after the root.
    expect(inbox.events.map((e) => e.message.message)).toEqual(["trains?"]);
    expect(emu.updates.channelPts(forum)).toBe(before + 2);
  });

  it("a rename is messageActionTopicEdit inside the topic, and getChannelDifference replays both", async () => {
    const { emu, persona, alice, client } = world({ strictTl: true });
    const forum = emu.createSupergroup({ title: "Forum", forum: true, members: [persona, alice] });
    const start = emu.updates.channelPts(forum);
    const seen = await serviceUpdates(client);
    const topic = emu.createTopic(forum, "Travel");
    const renameId = emu.chats.renameTopic(forum, topic, "Trips");
    await emu.idle();

    expect(seen.map((u) => u.message.id)).toEqual([topic, renameId]);
    const edit = seen[1]!.message as Api.MessageService;
    expect(edit.action).toBeInstanceOf(Api.MessageActionTopicEdit);
    expect((edit.action as Api.MessageActionTopicEdit).title).toBe("Trips");
    const header = edit.replyTo as Api.MessageReplyHeader;
    expect(header.forumTopic).toBe(true);
    expect(header.replyToMsgId).toBe(topic);

    const diff = await client.invoke(
      new Api.updates.GetChannelDifference({
        channel: forum.peerId,
        filter: new Api.ChannelMessagesFilterEmpty(),
        pts: start,
        limit: 100,
      }),
    );
    expect(diff).toBeInstanceOf(Api.updates.ChannelDifference);
    const titles = (diff as Api.updates.ChannelDifference).newMessages.map((m) =>
      m instanceof Api.MessageService ? (m.action as { title?: string }).title : undefined,
    );
    expect(titles).toEqual(["Travel", "Trips"]);
  });
});
