import { Api, errors, type TelegramClient } from "telegram";
import { Raw } from "telegram/events/index.js";
import { describe, expect, it } from "vitest";
import { world } from "./harness";

/** Every raw update a client's handlers see, with the entities GramJS attached. */
function rawOf(client: TelegramClient): Api.TypeUpdate[] {
  const seen: Api.TypeUpdate[] = [];
  client.addEventHandler((u: Api.TypeUpdate) => {
    seen.push(u);
  }, new Raw({}));
  return seen;
}

async function rpcError(p: Promise<unknown>): Promise<{ message: string; code: number | undefined }> {
  try {
    await p;
  } catch (e) {
    if (e instanceof errors.RPCError) return { message: e.errorMessage, code: e.code };
    throw e;
  }
  throw new Error("no error");
}

describe("what members may send: banned rights and slow mode", () => {
  it("a supergroup's default bans: the channel carries default_banned_rights, updateChannel tells the members, a send answers CHAT_WRITE_FORBIDDEN (403); admins are not held", async () => {
    const { emu, persona, alice, client } = world();
    const sg = emu.createSupergroup({ title: "SG", members: [persona, alice] });
    await emu.post({ chat: sg, from: alice, text: "hi" }); // the client learns the channel
    const raw = rawOf(client);
    await emu.chats.restrict(sg, { defaultBans: { sendMessages: true } });
    const u = raw.find((x) => x instanceof Api.UpdateChannel) as Api.UpdateChannel & {
      _entities?: Map<string, Api.TypeChat>;
    };
    expect(u).toBeDefined();
    const channel = [...(u._entities?.values() ?? [])].find((c) => c instanceof Api.Channel) as Api.Channel;
    expect(channel.defaultBannedRights?.sendMessages).toBe(true);
    expect(await rpcError(client.sendMessage(sg.peerId, { message: "can I?" }))).toEqual({
      message: "CHAT_WRITE_FORBIDDEN",
      code: 403,
    });
    await emu.chats.restrict(sg, { admins: [persona] });
    await client.sendMessage(sg.peerId, { message: "admin here" });
    expect(emu.history(sg).at(-1)?.text).toBe("admin here");
  });

  it("her own restriction (banned_rights, with until_date): only her channel view shows it; stickers or plain text alone can be forbidden", async () => {
    const now = { t: Date.UTC(2026, 0, 1) };
    const { emu, persona, alice, client } = world({ now: () => now.t });
    const sg = emu.createSupergroup({ title: "SG", members: [persona, alice] });
    await emu.post({ chat: sg, from: alice, text: "hi" });
    await emu.chats.restrict(sg, {
      member: { user: persona, bans: { sendPlain: true, until: now.t + 3_600_000 } },
    });
    const res = (await client.invoke(
      new Api.channels.GetChannels({ id: [(await client.getInputEntity(sg.peerId)) as never] }),
    )) as Api.messages.Chats;
    const ch = res.chats[0] as Api.Channel;
    expect(ch.bannedRights?.sendPlain).toBe(true);
    expect(ch.bannedRights?.untilDate).toBe(Math.floor((now.t + 3_600_000) / 1000));
    expect(ch.defaultBannedRights).toBeUndefined();
    expect((await rpcError(client.sendMessage(sg.peerId, { message: "words" }))).message).toBe(
      "CHAT_SEND_PLAIN_FORBIDDEN",
    );
    now.t += 3_600_001; // the restriction lifted by itself
    await client.sendMessage(sg.peerId, { message: "words again" });
    await emu.chats.restrict(sg, {
      member: { user: persona, bans: null },
      defaultBans: { sendStickers: true },
    });
    expect(emu.history(sg).at(-1)?.text).toBe("words again");
  });

  it("slow mode: slowmode_enabled on the channel, slowmode_seconds on the full channel; a second send inside the window answers SLOWMODE_WAIT_<seconds left> (420)", async () => {
    const now = { t: Date.UTC(2026, 0, 1) };
    const { emu, persona, alice, client } = world({ now: () => now.t });
    const sg = emu.createSupergroup({ title: "SG", members: [persona, alice] });
    await emu.post({ chat: sg, from: alice, text: "hi" });
    await emu.chats.restrict(sg, { slowmodeSec: 60 });
    const input = (await client.getInputEntity(sg.peerId)) as Api.InputPeerChannel;
    const full = (await client.invoke(
      new Api.channels.GetFullChannel({
        channel: new Api.InputChannel({ channelId: input.channelId, accessHash: input.accessHash }),
      }),
    )) as Api.messages.ChatFull;
    expect((full.fullChat as Api.ChannelFull).slowmodeSeconds).toBe(60);
    expect((full.chats[0] as Api.Channel).slowmodeEnabled).toBe(true);
    await client.sendMessage(sg.peerId, { message: "one" });
    now.t += 20_000;
    const e = await client.sendMessage(sg.peerId, { message: "two" }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(errors.SlowModeWaitError);
    expect((e as errors.SlowModeWaitError).seconds).toBe(40);
    now.t += 40_000;
    await client.sendMessage(sg.peerId, { message: "two" });
    expect(
      emu
        .history(sg)
        .map((m) => m.text)
        .slice(-2),
    ).toEqual(["one", "two"]);
  });

  it("a basic group's default bans arrive as updateChatDefaultBannedRights; the chat object carries them", async () => {
    const { emu, persona, alice, client } = world();
    const g = emu.createGroup({ title: "G", members: [persona, alice] });
    await emu.post({ chat: g, from: alice, text: "hi" });
    const raw = rawOf(client);
    await emu.chats.restrict(g, { defaultBans: { sendStickers: true, sendMessages: true } });
    const u = raw.find((x) => x instanceof Api.UpdateChatDefaultBannedRights) as
      Api.UpdateChatDefaultBannedRights | undefined;
    expect(u?.defaultBannedRights.sendMessages).toBe(true);
    expect(u?.defaultBannedRights.sendStickers).toBe(true);
    expect((await rpcError(client.sendMessage(g.peerId, { message: "x" }))).code).toBe(403);
  });

  it("spam-limited in supergroups (banInGroups): sends and typing in any supergroup answer USER_BANNED_IN_CHANNEL (400); a DM goes", async () => {
    const { emu, persona, alice, client } = world();
    const sg = emu.createSupergroup({ title: "SG", members: [persona, alice] });
    const dm = emu.dm(persona, alice);
    await emu.post({ chat: sg, from: alice, text: "hi" });
    await emu.post({ chat: dm, from: alice, text: "hi" });
    emu.faults.banInGroups(persona);
    expect(await rpcError(client.sendMessage(sg.peerId, { message: "x" }))).toEqual({
      message: "USER_BANNED_IN_CHANNEL",
      code: 400,
    });
    expect(
      (
        await rpcError(
          client.invoke(
            new Api.messages.SetTyping({ peer: sg.peerId, action: new Api.SendMessageTypingAction() }),
          ),
        )
      ).message,
    ).toBe("USER_BANNED_IN_CHANNEL");
    await client.sendMessage(dm.peerId, { message: "private is fine" });
    emu.faults.banInGroups(persona, false);
    await client.sendMessage(sg.peerId, { message: "back" });
    expect(emu.history(sg).at(-1)?.text).toBe("back");
  });

  it("removed from a basic group: an updateChat carries the group as chatForbidden; a send answers CHAT_WRITE_FORBIDDEN (403)", async () => {
    const { emu, persona, alice, client } = world();
    const g = emu.createGroup({ title: "G", members: [persona, alice] });
    await emu.post({ chat: g, from: alice, text: "hi" });
    const raw = rawOf(client);
    await emu.chats.removeMember(g, persona);
    const u = raw.find((x) => x instanceof Api.UpdateChat) as
      (Api.UpdateChat & { _entities?: Map<string, Api.TypeChat> }) | undefined;
    const view = [...(u?._entities?.values() ?? [])][0];
    expect(view).toBeInstanceOf(Api.ChatForbidden);
    expect((view as Api.ChatForbidden).title).toBe("G");
    expect((await rpcError(client.sendMessage(g.peerId, { message: "x" }))).message).toBe(
      "CHAT_WRITE_FORBIDDEN",
    );
  });
});
