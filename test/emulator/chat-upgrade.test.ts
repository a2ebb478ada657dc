/**
 * A basic group upgraded to a supergroup as Telegram's server does it (docs/telegram-facts.md):
 * messageActionChatMigrateTo in the old group, messageActionChannelMigrateFrom in the new
 * supergroup, the old chat deactivated with migrated_to, the supergroup's channelFull naming the old
 * group, and the old group refusing sends.
 */
import { Api, type TelegramClient } from "telegram";
import { Raw } from "telegram/events/index.js";
import { describe, expect, it } from "vitest";
import { world } from "./harness";

/** Every service message that reaches the client, in order (resolved handlers, like a running client). */
async function serviceMessages(client: TelegramClient): Promise<Api.MessageService[]> {
  const seen: Api.MessageService[] = [];
  const raw = new Raw({});
  client.addEventHandler((u: Api.TypeUpdate) => {
    if (
      (u instanceof Api.UpdateNewChannelMessage || u instanceof Api.UpdateNewMessage) &&
      u.message instanceof Api.MessageService
    )
      seen.push(u.message);
  }, raw);
  await client.getMe();
  await raw.resolve(client);
  return seen;
}

describe("a basic group upgraded to a supergroup", () => {
  it("pushes migrate-to in the old group, then migrate-from in the new supergroup with the same members", async () => {
    const { emu, persona, alice, bob, client } = world({ strictTl: true });
    const group = emu.createGroup({ title: "Book club", members: [persona, alice, bob] });
    await emu.post({ chat: group, from: alice, text: "before" });
    const seen = await serviceMessages(client);
    const sg = emu.chats.upgrade(group);
    await emu.idle();

    expect(sg.kind).toBe("supergroup");
    expect(sg.title).toBe("Book club");
    expect(
      emu.chats
        .members(sg)
        .map((u) => u.id)
        .sort(),
    ).toEqual([persona.id, alice.id, bob.id].sort());
    expect(seen).toHaveLength(2);
    const [to, from] = seen as [Api.MessageService, Api.MessageService];
    expect(to.peerId).toBeInstanceOf(Api.PeerChat);
    expect(to.action).toBeInstanceOf(Api.MessageActionChatMigrateTo);
    expect((to.action as Api.MessageActionChatMigrateTo).channelId.toString()).toBe(String(sg.id));
    expect(from.peerId).toBeInstanceOf(Api.PeerChannel);
    expect(from.action).toBeInstanceOf(Api.MessageActionChannelMigrateFrom);
    const f = from.action as Api.MessageActionChannelMigrateFrom;
    expect(f.chatId.toString()).toBe(String(group.id));
    expect(f.title).toBe("Book club");
  });

  it("the old chat is deactivated with migrated_to; channelFull names the old group and its last message", async () => {
    const { emu, persona, alice, client } = world({ strictTl: true });
    const group = emu.createGroup({ title: "Book club", members: [persona, alice] });
    await emu.post({ chat: group, from: alice, text: "one" });
    await emu.post({ chat: group, from: alice, text: "two" });
    const sg = emu.chats.upgrade(group);
    await emu.idle();

    const oldFull = await client.invoke(new Api.messages.GetChats({ id: [BigInt(group.id) as never] }));
    const old = oldFull.chats[0] as Api.Chat;
    expect(old).toBeInstanceOf(Api.Chat);
    expect(old.deactivated).toBe(true);
    expect((old.migratedTo as Api.InputChannel).channelId.toString()).toBe(String(sg.id));

    const full = await client.invoke(new Api.channels.GetFullChannel({ channel: sg.peerId }));
    const cf = full.fullChat as Api.ChannelFull;
    expect(cf.migratedFromChatId?.toString()).toBe(String(group.id));
    // The persona's own id space: "one", "two", then the migrate-to service message.
    const history = (await client.invoke(
      new Api.messages.GetHistory({ peer: group.peerId, limit: 10 }),
    )) as Api.messages.Messages;
    expect(cf.migratedFromMaxId).toBe(Math.max(...history.messages.map((m) => m.id)));
  });

  it("the dialogs list the old group as a deactivated chat with migrated_to (the supergroup's access hash), its top message the migrate-to service message", async () => {
    const { emu, persona, alice, client } = world({ strictTl: true });
    const group = emu.createGroup({ title: "Book club", members: [persona, alice] });
    await emu.post({ chat: group, from: alice, text: "one" });
    const sg = emu.chats.upgrade(group);
    await emu.idle();
    const res = (await client.invoke(
      new Api.messages.GetDialogs({
        offsetPeer: new Api.InputPeerEmpty(),
        limit: 100,
        hash: BigInt(0) as never,
      }),
    )) as Api.messages.Dialogs;
    const old = res.chats.find(
      (c) => c instanceof Api.Chat && c.id.toString() === String(group.id),
    ) as Api.Chat;
    expect(old.deactivated).toBe(true);
    const to = old.migratedTo as Api.InputChannel;
    expect(to.channelId.toString()).toBe(String(sg.id));
    // The hash it names addresses the supergroup.
    await client.invoke(
      new Api.messages.SendMessage({
        peer: new Api.InputPeerChannel({ channelId: to.channelId, accessHash: to.accessHash }),
        message: "by the migrated_to hash",
        randomId: BigInt(7) as never,
      }),
    );
    expect(emu.history(sg).at(-1)?.text).toBe("by the migrated_to hash");
    const dialog = res.dialogs.find(
      (d) =>
        d instanceof Api.Dialog &&
        d.peer instanceof Api.PeerChat &&
        d.peer.chatId.toString() === String(group.id),
    ) as Api.Dialog;
    const top = res.messages.find((m) => m.id === dialog.topMessage && m.peerId instanceof Api.PeerChat);
    expect((top as Api.MessageService).action).toBeInstanceOf(Api.MessageActionChatMigrateTo);
  });

  it("refuses a send to the old group (PEER_ID_INVALID); the supergroup takes it", async () => {
    const { emu, persona, alice, client } = world({ strictTl: true });
    const group = emu.createGroup({ title: "Book club", members: [persona, alice] });
    await client.getMe();
    const sg = emu.chats.upgrade(group);
    await emu.idle();

    await expect(client.sendMessage(group.peerId, { message: "hello?" })).rejects.toThrow(/PEER_ID_INVALID/);
    const sent = await client.sendMessage(sg.peerId, { message: "hello" });
    expect(sent.message).toBe("hello");
    expect(emu.history(group).map((m) => m.text)).not.toContain("hello?");
  });
});
