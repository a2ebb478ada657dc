/**
 * Telegram's edges of membership and update delivery, as the emulator shows them to a real
 * GramJS client: an account removed from or leaving a supergroup, joining one, a session whose
 * update queue overflows (updatesTooLong), and updateChannelTooLong's pts.
 */
import { Api, errors, type TelegramClient } from "telegram";
import { Raw } from "telegram/events/index.js";
import { describe, expect, it } from "vitest";
import { createEmulatedClient } from "../../emulator/index";
import { world } from "./harness";

/** Every raw update the client's handlers see. */
function rawLog(client: TelegramClient): Api.TypeUpdate[] {
  const seen: Api.TypeUpdate[] = [];
  client.addEventHandler((u: Api.TypeUpdate) => void seen.push(u), new Raw({}));
  return seen;
}

const channelDifference = (client: TelegramClient, channel: Api.TypeInputChannel, pts: number) =>
  client.invoke(
    new Api.updates.GetChannelDifference({
      channel,
      filter: new Api.ChannelMessagesFilterEmpty(),
      pts,
      limit: 100,
    }),
  );

const inputChannel = (chat: { id: number; accessHash: number }) =>
  new Api.InputChannel({ channelId: BigInt(chat.id) as never, accessHash: BigInt(chat.accessHash) as never });

describe("membership of a supergroup", () => {
  it("a removed account is pushed updateChannel with ChannelForbidden; one that left, the channel with left set; both get CHANNEL_PRIVATE", async () => {
    const { emu, persona, alice, client } = world();
    const kicked = emu.createSupergroup({ title: "Kicked from", members: [persona, alice] });
    const left = emu.createSupergroup({ title: "Left", members: [persona, alice] });
    const seen = rawLog(client);
    const chats: Api.TypeChat[] = [];
    client.addEventHandler(
      (u: Api.TypeUpdate & { _entities?: Map<string, Api.TypeChat> }) => {
        if (u instanceof Api.UpdateChannel) chats.push(...(u._entities?.values() ?? []));
      },
      new Raw({ types: [Api.UpdateChannel] }),
    );

    await emu.chats.removeMember(kicked, persona);
    await emu.chats.removeMember(left, persona, { how: "left" });

    expect(
      seen
        .filter((u) => u instanceof Api.UpdateChannel)
        .map((u) => (u as Api.UpdateChannel).channelId.toString()),
    ).toEqual([String(kicked.id), String(left.id)]);
    expect(chats[0]).toBeInstanceOf(Api.ChannelForbidden);
    expect(chats[1]).toBeInstanceOf(Api.Channel);
    expect((chats[1] as Api.Channel).left).toBe(true);
    for (const chat of [kicked, left]) {
      const e = await channelDifference(client, inputChannel(chat), 1).catch((x: unknown) => x);
      expect((e as errors.RPCError).errorMessage).toBe("CHANNEL_PRIVATE");
      const got = (await client.invoke(
        new Api.channels.GetChannels({ id: [inputChannel(chat)] }),
      )) as Api.messages.Chats;
      expect(got.chats[0]?.className).toBe(chat === kicked ? "ChannelForbidden" : "Channel");
    }
    // Nothing more is pushed from there.
    const before = seen.length;
    await emu.post({ chat: kicked, from: alice, text: "after the kick" });
    expect(seen.length).toBe(before);
  });

  it("an account added again is pushed updateChannel with the channel as a member sees it, and messages reach it again", async () => {
    const { emu, persona, alice, client, inbox } = world();
    const sg = emu.createSupergroup({ title: "SG", members: [persona, alice] });
    await emu.chats.removeMember(sg, persona);
    await emu.chats.addMember(sg, persona);
    const got = (await client.invoke(
      new Api.channels.GetChannels({ id: [inputChannel(sg)] }),
    )) as Api.messages.Chats;
    expect(got.chats[0]).toBeInstanceOf(Api.Channel);
    expect((got.chats[0] as Api.Channel).left).toBeFalsy();
    await emu.post({ chat: sg, from: alice, text: "welcome back" });
    expect(inbox.events.map((e) => e.message.text)).toEqual(["welcome back"]);
  });
});

describe("updateChannelTooLong's pts", () => {
  it("names where the account joined, so a client without the channel's state fetches everything since", async () => {
    const { emu, persona, alice, client } = world();
    const sg = emu.createSupergroup({ title: "SG", members: [alice] });
    emu.detach(client); // joined on another device while this client was away
    await emu.chats.addMember(sg, persona);
    const joinedAt = emu.updates.channelPts(sg);
    for (let i = 0; i < 3; i++) await emu.post({ chat: sg, from: alice, text: `m${i}` });
    const again = createEmulatedClient(emu, persona);
    const seen = rawLog(again);

    await emu.updates.pushChannelTooLong(persona, sg);

    const u = seen.find((x): x is Api.UpdateChannelTooLong => x instanceof Api.UpdateChannelTooLong);
    expect(u?.pts).toBe(joinedAt);
    const diff = (await channelDifference(again, inputChannel(sg), u!.pts!)) as Api.updates.ChannelDifference;
    expect(diff.newMessages.map((m) => (m as Api.Message).message)).toEqual(["m0", "m1", "m2"]);
    // Asked for explicitly, any pts.
    await emu.updates.pushChannelTooLong(persona, sg, { pts: joinedAt + 1 });
    expect(
      seen
        .filter((x) => x instanceof Api.UpdateChannelTooLong)
        .map((x) => (x as Api.UpdateChannelTooLong).pts),
    ).toEqual([joinedAt, joinedAt + 1]);
  });
});

describe("an overflowing update queue", () => {
  it("replaces the next push by one updatesTooLong and pushes nothing more until getDifference, which has it all", async () => {
    const { emu, persona, alice, client, inbox } = world();
    const dm = emu.dm(persona, alice);
    const seen = rawLog(client);
    const from = emu.updates.state(persona).pts;
    emu.net.overflowUpdates(persona);

    await emu.post({ chat: dm, from: alice, text: "one" });
    await emu.post({ chat: dm, from: alice, text: "two" });

    expect(seen.map((u) => u.className)).toEqual(["UpdatesTooLong"]);
    expect(inbox.events).toHaveLength(0);
    const diff = (await client.invoke(
      new Api.updates.GetDifference({ pts: from, date: 0, qts: 0 }),
    )) as Api.updates.Difference;
    expect(diff.newMessages.map((m) => (m as Api.Message).message)).toEqual(["one", "two"]);
    // Pushes resume after the difference.
    await emu.post({ chat: dm, from: alice, text: "three" });
    expect(inbox.events.map((e) => e.message.text)).toEqual(["three"]);
  });
});
