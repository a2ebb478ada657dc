import { Api, errors, type TelegramClient } from "telegram";
import { Raw } from "telegram/events/index.js";
import { returnBigInt } from "telegram/Helpers.js";
import { describe, expect, it } from "vitest";
import { createEmulatedClient, type EmuUser, type TelegramEmulator } from "../../emulator/index";
import { world } from "./harness";

/** The account goes offline (its process dies), `fn` runs, a fresh client attaches. */
async function whileOffline(
  emu: TelegramEmulator,
  client: TelegramClient,
  account: EmuUser,
  fn: () => Promise<void>,
): Promise<TelegramClient> {
  emu.detach(client);
  await fn();
  return createEmulatedClient(emu, account);
}

const difference = (
  client: TelegramClient,
  pts: number,
  extra: { ptsLimit?: number; ptsTotalLimit?: number } = {},
) => client.invoke(new Api.updates.GetDifference({ pts, date: 0, qts: 0, ...extra }));

const texts = (messages: Api.TypeMessage[]): string[] =>
  messages.map((m) => (m instanceof Api.Message ? m.message : m.className));

describe("update state: pts, getState, getDifference", () => {
  it("gives every delivered update the account's next pts with pts_count 1, and sends move pts too", async () => {
    const { emu, persona, alice, inbox, client } = world();
    const dm = emu.dm(persona, alice);
    const group = emu.createGroup({ title: "G", members: [persona, alice] });
    const start = emu.updates.state(persona).pts;

    await emu.post({ chat: dm, from: alice, text: "one" });
    await emu.post({ chat: group, from: alice, text: "two" });
    const sent = (await client.invoke(
      new Api.messages.SendMessage({ peer: dm.peerId, message: "three", randomId: returnBigInt(11) }),
    )) as Api.Updates;
    await emu.post({ chat: dm, from: alice, text: "four" });

    const ptsOf = inbox.events
      .map((e) => e.originalUpdate as Api.UpdateNewMessage)
      .map((u) => [u.pts, u.ptsCount]);
    expect(ptsOf).toEqual([
      [start + 1, 1],
      [start + 2, 1],
      [start + 4, 1],
    ]);
    // The answer to a send carries the pts its own message took.
    const own = sent.updates.find((u) => u instanceof Api.UpdateNewMessage) as Api.UpdateNewMessage;
    expect([own.pts, own.ptsCount]).toEqual([start + 3, 1]);
    expect(emu.updates.state(persona).pts).toBe(start + 4);
    const state = (await client.invoke(new Api.updates.GetState())) as Api.updates.State;
    expect(state.pts).toBe(start + 4);
  });

  it("keeps one pts per supergroup, shared by members, separate from the account's", async () => {
    const { emu, persona, alice, inbox, client } = world();
    const sg = emu.createSupergroup({ title: "SG", members: [persona, alice] });
    const accountPts = emu.updates.state(persona).pts;
    const before = emu.updates.channelPts(sg);

    await emu.post({ chat: sg, from: alice, text: "a" });
    await client.sendMessage(sg.peerId, { message: "b" });
    await emu.post({ chat: sg, from: alice, text: "c" });

    const updates = inbox.events.map((e) => e.originalUpdate as Api.UpdateNewChannelMessage);
    expect(updates.map((u) => [u.pts, u.ptsCount])).toEqual([
      [before + 1, 1],
      [before + 3, 1],
    ]);
    expect(emu.updates.channelPts(sg)).toBe(before + 3);
    expect(emu.updates.state(persona).pts).toBe(accountPts);
  });

  it("answers differenceEmpty when the client is up to date", async () => {
    const { emu, persona, alice, client } = world();
    await emu.post({ chat: emu.dm(persona, alice), from: alice, text: "hi" });
    const diff = await difference(client, emu.updates.state(persona).pts);
    expect(diff).toBeInstanceOf(Api.updates.DifferenceEmpty);
  });

  it("returns what an offline account missed, with the users and chats the messages need", async () => {
    const { emu, persona, alice, bob, client } = world();
    const group = emu.createGroup({ title: "Book club", members: [persona, alice, bob] });
    const dm = emu.dm(persona, bob);
    await emu.post({ chat: group, from: alice, text: "seen live" });
    const seen = emu.updates.state(persona).pts;

    const fresh = await whileOffline(emu, client, persona, async () => {
      await emu.post({ chat: group, from: alice, text: "missed 1" });
      await emu.post({ chat: dm, from: bob, text: "missed 2" });
    });
    expect(emu.updates.state(persona).pts).toBe(seen + 2);

    const diff = await difference(fresh, seen);
    expect(diff).toBeInstanceOf(Api.updates.Difference);
    const d = diff as Api.updates.Difference;
    expect(texts(d.newMessages)).toEqual(["missed 1", "missed 2"]);
    expect((d.state as Api.updates.State).pts).toBe(seen + 2);
    expect(d.users.map((u) => (u as Api.User).firstName).sort()).toEqual(["Alice", "Bob", "Mira"]);
    expect(d.chats.map((c) => (c as Api.Chat).title)).toEqual(["Book club"]);
    expect(await difference(fresh, seen + 2)).toBeInstanceOf(Api.updates.DifferenceEmpty);
  });

  it("cuts a long difference into slices with an intermediate state, and honours ptsLimit", async () => {
    const { emu, persona, alice, client } = world({ updateLimits: { differenceSlice: 3 } });
    const dm = emu.dm(persona, alice);
    const from = emu.updates.state(persona).pts;
    const fresh = await whileOffline(emu, client, persona, async () => {
      for (let i = 1; i <= 7; i++) await emu.post({ chat: dm, from: alice, text: `m${i}` });
    });

    const got: string[] = [];
    const kinds: string[] = [];
    let pts = from;
    for (;;) {
      const d = await difference(fresh, pts);
      kinds.push(d.className);
      if (d instanceof Api.updates.DifferenceSlice) {
        got.push(...texts(d.newMessages));
        pts = (d.intermediateState as Api.updates.State).pts;
      } else if (d instanceof Api.updates.Difference) {
        got.push(...texts(d.newMessages));
        pts = (d.state as Api.updates.State).pts;
        break;
      } else throw new Error(`unexpected ${d.className}`);
    }
    expect(kinds).toEqual(["updates.DifferenceSlice", "updates.DifferenceSlice", "updates.Difference"]);
    expect(got).toEqual(["m1", "m2", "m3", "m4", "m5", "m6", "m7"]);
    expect(pts).toBe(emu.updates.state(persona).pts);

    const limited = await difference(fresh, from, { ptsLimit: 2 });
    expect(limited).toBeInstanceOf(Api.updates.DifferenceSlice);
    expect(texts((limited as Api.updates.DifferenceSlice).newMessages)).toEqual(["m1", "m2"]);
  });

  it("answers differenceTooLong past the configured gap or the request's ptsTotalLimit", async () => {
    const { emu, persona, alice, client } = world({ updateLimits: { differenceTooLongAfter: 5 } });
    const dm = emu.dm(persona, alice);
    const from = emu.updates.state(persona).pts;
    for (let i = 0; i < 6; i++) await emu.post({ chat: dm, from: alice, text: `m${i}` });

    const tooLong = await difference(client, from);
    expect(tooLong).toBeInstanceOf(Api.updates.DifferenceTooLong);
    expect((tooLong as Api.updates.DifferenceTooLong).pts).toBe(emu.updates.state(persona).pts);
    expect(await difference(client, from + 1)).toBeInstanceOf(Api.updates.Difference);
    expect(await difference(client, from + 1, { ptsTotalLimit: 4 })).toBeInstanceOf(
      Api.updates.DifferenceTooLong,
    );
    const ahead = await difference(client, from + 100).catch((e: unknown) => e);
    expect((ahead as errors.RPCError).errorMessage).toBe("PERSISTENT_TIMESTAMP_INVALID");
  });

  it("logs a read as UpdateReadHistoryInbox that moves pts and comes back in the difference", async () => {
    const { emu, persona, alice, client } = world();
    const dm = emu.dm(persona, alice);
    const posted = await emu.post({ chat: dm, from: alice, text: "read me" });
    const from = emu.updates.state(persona).pts;

    const affected = (await client.invoke(
      new Api.messages.ReadHistory({ peer: dm.peerId, maxId: 0 }),
    )) as Api.messages.AffectedMessages;
    expect([affected.pts, affected.ptsCount]).toEqual([from + 1, 1]);
    const d = (await difference(client, from)) as Api.updates.Difference;
    expect(d.newMessages).toEqual([]);
    const read = d.otherUpdates[0] as Api.UpdateReadHistoryInbox;
    expect(read).toBeInstanceOf(Api.UpdateReadHistoryInbox);
    expect([read.maxId, read.pts, read.ptsCount]).toEqual([posted.id, from + 1, 1]);
  });
});

describe("update state: getChannelDifference and updateChannelTooLong", () => {
  const channelDifference = (client: TelegramClient, peer: string, pts: number, limit = 100) =>
    client.invoke(
      new Api.updates.GetChannelDifference({
        channel: peer,
        filter: new Api.ChannelMessagesFilterEmpty(),
        pts,
        limit,
      }),
    );

  it("answers empty, then the missed messages with final and a timeout", async () => {
    const { emu, persona, alice, client } = world();
    const sg = emu.createSupergroup({ title: "SG", members: [persona, alice] });
    await emu.post({ chat: sg, from: alice, text: "seen" });
    const seen = emu.updates.channelPts(sg);
    expect(await channelDifference(client, sg.peerId, seen)).toBeInstanceOf(
      Api.updates.ChannelDifferenceEmpty,
    );

    const fresh = await whileOffline(emu, client, persona, async () => {
      await emu.post({ chat: sg, from: alice, text: "missed a" });
      await emu.post({ chat: sg, from: alice, text: "missed b" });
    });
    emu.primeEntityCache(persona);
    const d = (await channelDifference(fresh, sg.peerId, seen)) as Api.updates.ChannelDifference;
    expect(d).toBeInstanceOf(Api.updates.ChannelDifference);
    expect(d.final).toBe(true);
    expect(d.pts).toBe(emu.updates.channelPts(sg));
    expect(d.timeout).toBe(30);
    expect(texts(d.newMessages)).toEqual(["missed a", "missed b"]);
    expect(d.users.some((u) => (u as Api.User).firstName === "Alice")).toBe(true);
  });

  it("answers channelDifferenceTooLong past the user limit of 100, with the dialog's pts and the latest messages", async () => {
    const { emu, persona, alice, client } = world();
    const sg = emu.createSupergroup({ title: "SG", members: [persona, alice] });
    const from = emu.updates.channelPts(sg);
    for (let i = 1; i <= 101; i++) emu.buildIncoming({ chat: sg, from: alice, text: `m${i}` });
    emu.primeEntityCache(persona);

    const tooLong = (await channelDifference(
      client,
      sg.peerId,
      from,
      1000,
    )) as Api.updates.ChannelDifferenceTooLong;
    expect(tooLong).toBeInstanceOf(Api.updates.ChannelDifferenceTooLong);
    const dialog = tooLong.dialog as Api.Dialog;
    expect(dialog.pts).toBe(emu.updates.channelPts(sg));
    expect(dialog.topMessage).toBe(emu.history(sg).at(-1)?.id);
    expect(tooLong.messages).toHaveLength(100);
    expect(texts(tooLong.messages).slice(0, 2)).toEqual(["m101", "m100"]);
    // One message less and it fits.
    const fits = (await channelDifference(client, sg.peerId, from + 1)) as Api.updates.ChannelDifference;
    expect(fits).toBeInstanceOf(Api.updates.ChannelDifference);
    expect(fits.newMessages).toHaveLength(100);
  });

  it("pages with final:false when TooLong is configured further out", async () => {
    const { emu, persona, alice, client } = world({ updateLimits: { channelTooLongAfter: 1000 } });
    const sg = emu.createSupergroup({ title: "SG", members: [persona, alice] });
    const from = emu.updates.channelPts(sg);
    for (let i = 1; i <= 5; i++) emu.buildIncoming({ chat: sg, from: alice, text: `m${i}` });
    emu.primeEntityCache(persona);

    const first = (await channelDifference(client, sg.peerId, from, 3)) as Api.updates.ChannelDifference;
    expect([first.final, first.pts, texts(first.newMessages)]).toEqual([false, from + 3, ["m1", "m2", "m3"]]);
    const second = (await channelDifference(
      client,
      sg.peerId,
      first.pts,
      3,
    )) as Api.updates.ChannelDifference;
    expect([second.final, second.pts, texts(second.newMessages)]).toEqual([
      true,
      emu.updates.channelPts(sg),
      ["m4", "m5"],
    ]);
  });

  it("refuses a channel the account is not in, and a pts from the future", async () => {
    const { emu, persona, alice, client } = world();
    const sg = emu.createSupergroup({ title: "SG", members: [persona, alice] });
    emu.primeEntityCache(persona);
    const future = await channelDifference(client, sg.peerId, emu.updates.channelPts(sg) + 5).catch(
      (e: unknown) => e,
    );
    expect((future as errors.RPCError).errorMessage).toBe("PERSISTENT_TIMESTAMP_INVALID");
    emu.chats.removeMember(sg, persona);
    const gone = await channelDifference(client, sg.peerId, 1).catch((e: unknown) => e);
    expect((gone as errors.RPCError).errorMessage).toBe("CHANNEL_PRIVATE");
  });

  it("pushes updateChannelTooLong with the channel's pts", async () => {
    const { emu, persona, alice, client } = world();
    const sg = emu.createSupergroup({ title: "SG", members: [persona, alice] });
    emu.buildIncoming({ chat: sg, from: alice, text: "not delivered" });
    const seen: Api.TypeUpdate[] = [];
    client.addEventHandler(
      (u: Api.TypeUpdate) => {
        seen.push(u);
      },
      new Raw({ types: [Api.UpdateChannelTooLong] }),
    );

    await emu.updates.pushChannelTooLong(persona, sg);

    expect(seen).toHaveLength(1);
    const u = seen[0] as Api.UpdateChannelTooLong;
    expect(u.channelId.toString()).toBe(String(sg.id));
    expect(u.pts).toBe(emu.updates.channelPts(sg));
  });
});

describe("update state: updates kept for an account that is offline", () => {
  it("updateChannelTooLong pushed while no client is attached comes in the next difference, with the channel, once", async () => {
    const { emu, persona, alice, client } = world();
    const sg = emu.createSupergroup({ title: "Joined", members: [alice] });
    const pts = emu.updates.state(persona).pts;
    const fresh = await whileOffline(emu, client, persona, async () => {
      await emu.chats.addMember(sg, persona);
      await emu.post({ chat: sg, from: alice, text: "while away" });
      await emu.updates.pushChannelTooLong(persona, sg);
    });
    const d = (await difference(fresh, pts)) as Api.updates.Difference;
    expect(d).toBeInstanceOf(Api.updates.Difference);
    expect(d.newMessages).toEqual([]);
    const u = d.otherUpdates.find((x) => x instanceof Api.UpdateChannelTooLong) as Api.UpdateChannelTooLong;
    expect(u.channelId.toString()).toBe(String(sg.id));
    expect(u.pts).toBe(emu.updates.channelPts(sg) - 1); // where the account joined: the message after it is to fetch
    expect(d.chats.map((c) => (c as Api.Channel).title)).toEqual(["Joined"]);
    expect((d.chats[0] as Api.Channel).left).toBeFalsy();
    expect(d.state.pts).toBe(pts);
    // Handed over once.
    expect(await difference(fresh, pts)).toBeInstanceOf(Api.updates.DifferenceEmpty);
  });
});

describe("update state: strictTl", () => {
  it("round-trips getState, every difference shape and channel differences through TL bytes", async () => {
    const { emu, persona, alice, client } = world({
      strictTl: true,
      updateLimits: { differenceSlice: 1, channelTooLongAfter: 1000 },
    });
    const dm = emu.dm(persona, alice);
    const sg = emu.createSupergroup({ title: "SG", members: [persona, alice] });
    const from = emu.updates.state(persona).pts;
    const chFrom = emu.updates.channelPts(sg);
    await emu.post({ chat: dm, from: alice, text: "x" });
    await emu.post({ chat: dm, from: alice, text: "y" });
    await emu.post({ chat: sg, from: alice, text: "z" });
    await emu.post({ chat: sg, from: alice, text: "w" });

    expect(((await client.invoke(new Api.updates.GetState())) as Api.updates.State).pts).toBe(from + 2);
    expect(await difference(client, from)).toBeInstanceOf(Api.updates.DifferenceSlice);
    expect(await difference(client, from + 1)).toBeInstanceOf(Api.updates.Difference);
    expect(await difference(client, from + 2)).toBeInstanceOf(Api.updates.DifferenceEmpty);
    expect(await difference(client, from, { ptsTotalLimit: 1 })).toBeInstanceOf(
      Api.updates.DifferenceTooLong,
    );
    expect(await channelDifference(client, sg.peerId, chFrom, 1)).toBeInstanceOf(
      Api.updates.ChannelDifference,
    );
    expect(await channelDifference(client, sg.peerId, chFrom + 2)).toBeInstanceOf(
      Api.updates.ChannelDifferenceEmpty,
    );
    const strictDefault = world({ strictTl: true });
    const sg2 = strictDefault.emu.createSupergroup({
      title: "S2",
      members: [strictDefault.persona, strictDefault.alice],
    });
    const p2 = strictDefault.emu.updates.channelPts(sg2);
    for (let i = 0; i < 101; i++)
      strictDefault.emu.buildIncoming({ chat: sg2, from: strictDefault.alice, text: `n${i}` });
    strictDefault.emu.primeEntityCache(strictDefault.persona);
    expect(await channelDifference(strictDefault.client, sg2.peerId, p2)).toBeInstanceOf(
      Api.updates.ChannelDifferenceTooLong,
    );
  });

  function channelDifference(client: TelegramClient, peer: string, pts: number, limit = 100) {
    return client.invoke(
      new Api.updates.GetChannelDifference({
        channel: peer,
        filter: new Api.ChannelMessagesFilterEmpty(),
        pts,
        limit,
      }),
    );
  }
});

describe("update state: others reading the account's messages", () => {
  it("pushes UpdateReadHistoryOutbox with the account's next pts for a DM, once per new mark", async () => {
    const { emu, persona, alice, client } = world({ strictTl: true });
    const dm = emu.dm(persona, alice);
    await emu.post({ chat: dm, from: alice, text: "hi" });
    await client.sendMessage(dm.peerId, { message: "one" });
    const second = await client.sendMessage(dm.peerId, { message: "two" });
    const seen: Api.TypeUpdate[] = [];
    client.addEventHandler(
      (u: Api.TypeUpdate) => {
        seen.push(u);
      },
      new Raw({ types: [Api.UpdateReadHistoryOutbox, Api.UpdateReadChannelOutbox] }),
    );
    const before = emu.updates.state(persona).pts;

    await emu.chats.readBy(dm, alice);
    await emu.chats.readBy(dm, alice);

    expect(seen).toHaveLength(1);
    const u = seen[0] as Api.UpdateReadHistoryOutbox;
    expect([u.maxId, u.pts, u.ptsCount]).toEqual([second?.id, before + 1, 1]);
    expect(emu.updates.state(persona).pts).toBe(before + 1);
    const d = (await difference(client, before)) as Api.updates.Difference;
    expect(d.otherUpdates.map((x) => x.className)).toEqual(["UpdateReadHistoryOutbox"]);
  });

  it("pushes UpdateReadChannelOutbox (no pts) for a supergroup", async () => {
    const { emu, persona, alice, client } = world();
    const sg = emu.createSupergroup({ title: "SG", members: [persona, alice] });
    await emu.post({ chat: sg, from: alice, text: "hi" });
    const mine = await client.sendMessage(sg.peerId, { message: "mine" });
    const seen: Api.TypeUpdate[] = [];
    client.addEventHandler(
      (u: Api.TypeUpdate) => {
        seen.push(u);
      },
      new Raw({ types: [Api.UpdateReadChannelOutbox] }),
    );
    const accountPts = emu.updates.state(persona).pts;
    const channelPts = emu.updates.channelPts(sg);

    await emu.chats.readBy(sg, alice);

    expect((seen[0] as Api.UpdateReadChannelOutbox).maxId).toBe(mine?.id);
    expect([emu.updates.state(persona).pts, emu.updates.channelPts(sg)]).toEqual([accountPts, channelPts]);
  });
});
