/**
 * The emulator is as unkind as Telegram where catching up is concerned: a difference names the
 * channels with news instead of carrying them, big supergroups are not pushed, flood waits hold a
 * method for their whole window, faults strike per method and per peer, persistent-timestamp
 * errors carry Telegram's codes, and channelDifferenceTooLong carries the newest messages.
 */
import { Api, errors, type TelegramClient } from "telegram";
import { Raw } from "telegram/events/index.js";
import { returnBigInt } from "telegram/Helpers.js";
import { describe, expect, it } from "vitest";
import { createEmulatedClient, type EmuUser, type TelegramEmulator } from "../../emulator/index";
import { world } from "./harness";

const difference = (client: TelegramClient, pts: number) =>
  client.invoke(new Api.updates.GetDifference({ pts, date: 0, qts: 0 }));

const channelDifference = (client: TelegramClient, peer: string, pts: number) =>
  client.invoke(
    new Api.updates.GetChannelDifference({
      channel: peer,
      filter: new Api.ChannelMessagesFilterEmpty(),
      pts,
      limit: 100,
    }),
  );

const history = (client: TelegramClient, peer: string) =>
  client.invoke(
    new Api.messages.GetHistory({
      peer,
      offsetId: 0,
      offsetDate: 0,
      addOffset: 0,
      limit: 10,
      maxId: 0,
      minId: 0,
      hash: returnBigInt(0),
    }),
  );

const texts = (messages: Api.TypeMessage[]): string[] =>
  messages.map((m) => (m instanceof Api.Message ? m.message : m.className));

const named = (d: Api.updates.TypeDifference): { id: string; pts: number | undefined }[] =>
  (d instanceof Api.updates.Difference ? d.otherUpdates : [])
    .filter((u): u is Api.UpdateChannelTooLong => u instanceof Api.UpdateChannelTooLong)
    .map((u) => ({ id: u.channelId.toString(), pts: u.pts ?? undefined }));

/** The account's process dies, `fn` runs, a fresh client attaches (entities primed). */
async function whileDown(
  emu: TelegramEmulator,
  client: TelegramClient,
  account: EmuUser,
  fn: () => Promise<void>,
): Promise<TelegramClient> {
  emu.detach(client);
  await fn();
  const fresh = createEmulatedClient(emu, account);
  emu.primeEntityCache(account);
  return fresh;
}

describe("getDifference names the channels with news", () => {
  it("after downtime: one updateChannelTooLong per supergroup that had news, with its pts and the channel; quiet ones and the messages themselves are not in it; once", async () => {
    const { emu, persona, alice, client } = world();
    const groups = Array.from({ length: 5 }, (_, i) =>
      emu.createSupergroup({ title: `G${i}`, members: [persona, alice] }),
    );
    for (const g of groups) await emu.post({ chat: g, from: alice, text: "seen live" });
    const pts = emu.updates.state(persona).pts;
    const fresh = await whileDown(emu, client, persona, async () => {
      await emu.post({ chat: groups[1]!, from: alice, text: "news 1" });
      await emu.post({ chat: groups[1]!, from: alice, text: "news 2" });
      await emu.post({ chat: groups[3]!, from: alice, text: "news 3" });
    });

    const d = (await difference(fresh, pts)) as Api.updates.Difference;
    expect(d).toBeInstanceOf(Api.updates.Difference);
    expect(d.newMessages).toEqual([]); // channel messages are not carried: only named
    expect(named(d)).toEqual([
      { id: String(groups[1]!.id), pts: emu.updates.channelPts(groups[1]!) },
      { id: String(groups[3]!.id), pts: emu.updates.channelPts(groups[3]!) },
    ]);
    expect(d.chats.map((c) => (c as Api.Channel).title).sort()).toEqual(["G1", "G3"]);
    expect(d.state.pts).toBe(pts); // the account's own box did not move
    expect(await difference(fresh, pts)).toBeInstanceOf(Api.updates.DifferenceEmpty);
  });

  it("news pushed live is not named again; a dead link or a silenced session is like a dead process", async () => {
    const { emu, persona, alice, client } = world();
    const live = emu.createSupergroup({ title: "Live", members: [persona, alice] });
    const dead = emu.createSupergroup({ title: "Dead", members: [persona, alice] });
    const quiet = emu.createSupergroup({ title: "Quiet", members: [persona, alice] });
    const pts = emu.updates.state(persona).pts;
    await emu.post({ chat: live, from: alice, text: "pushed" });
    await emu.net.dropConnection(persona, { reconnect: "manual" });
    await emu.post({ chat: dead, from: alice, text: "lost on the dead link" });
    await emu.net.restoreConnection(persona);
    await client.connect();
    emu.net.silenceUpdates(persona);
    await emu.post({ chat: quiet, from: alice, text: "not pushed to a silenced session" });
    emu.net.resumeUpdates(persona);

    const d = (await difference(client, pts)) as Api.updates.Difference;
    expect(named(d).map((n) => n.id)).toEqual([String(dead.id), String(quiet.id)]);
  });

  it("edits and deletions while away name the channel too; a channel the account was removed from is not named", async () => {
    const { emu, persona, alice, client } = world();
    const edited = emu.createSupergroup({ title: "Edited", members: [persona, alice] });
    const kicked = emu.createSupergroup({ title: "Kicked", members: [persona, alice] });
    const first = await emu.post({ chat: edited, from: alice, text: "typo" });
    const pts = emu.updates.state(persona).pts;
    const fresh = await whileDown(emu, client, persona, async () => {
      await emu.chats.editMessage(edited, first.id, "fixed");
      await emu.post({ chat: kicked, from: alice, text: "before the kick" });
      await emu.chats.removeMember(kicked, persona);
    });
    const d = (await difference(fresh, pts)) as Api.updates.Difference;
    expect(named(d).map((n) => n.id)).toEqual([String(edited.id)]);
  });
});

describe("big supergroups are not pushed", () => {
  it("above pushedMembersMax a message is neither pushed nor named in a difference; getChannelDifference has it, with the server's timeout", async () => {
    const { emu, persona, alice, bob, client } = world({
      updateLimits: { pushedMembersMax: 2, channelTimeout: 7 },
    });
    const small = emu.createSupergroup({ title: "Small", members: [persona, alice] });
    const big = emu.createSupergroup({ title: "Big", members: [persona, alice, bob] });
    const seen: string[] = [];
    client.addEventHandler(
      (u: Api.TypeUpdate) => {
        if (u instanceof Api.UpdateNewChannelMessage && u.message instanceof Api.Message)
          seen.push(u.message.message);
      },
      new Raw({ types: [Api.UpdateNewChannelMessage] }),
    );
    const from = emu.updates.channelPts(big);
    const pts = emu.updates.state(persona).pts;
    await emu.post({ chat: small, from: alice, text: "small talk" });
    await emu.post({ chat: big, from: alice, text: "@mira_persona in the big group" });
    await emu.idle();
    expect(seen).toEqual(["small talk"]);

    // Not named either, online or after downtime.
    const fresh = await whileDown(emu, client, persona, () =>
      emu.post({ chat: big, from: bob, text: "still not pushed" }).then(() => undefined),
    );
    expect(await difference(fresh, pts)).toBeInstanceOf(Api.updates.DifferenceEmpty);
    const d = (await channelDifference(fresh, big.peerId, from)) as Api.updates.ChannelDifference;
    expect(texts(d.newMessages)).toEqual(["@mira_persona in the big group", "still not pushed"]);
    expect([d.final, d.timeout]).toEqual([true, 7]);
    const empty = (await channelDifference(fresh, big.peerId, d.pts)) as Api.updates.ChannelDifferenceEmpty;
    expect([empty.className, empty.timeout]).toEqual(["updates.ChannelDifferenceEmpty", 7]);
  });
});

describe("channelDifferenceTooLong carries the channel's newest messages", () => {
  it("the newest `limit` messages, newest first, with the dialog's pts and top message", async () => {
    const { emu, persona, alice, client } = world();
    const sg = emu.createSupergroup({ title: "SG", members: [persona, alice] });
    const from = emu.updates.channelPts(sg);
    for (let i = 1; i <= 250; i++) emu.buildIncoming({ chat: sg, from: alice, text: `m${i}` });
    emu.primeEntityCache(persona);
    const res = (await channelDifference(client, sg.peerId, from)) as Api.updates.ChannelDifferenceTooLong;
    expect(res).toBeInstanceOf(Api.updates.ChannelDifferenceTooLong);
    expect(texts(res.messages)).toEqual(Array.from({ length: 100 }, (_, i) => `m${250 - i}`));
    expect((res.dialog as Api.Dialog).pts).toBe(emu.updates.channelPts(sg));
    expect((res.dialog as Api.Dialog).topMessage).toBe(emu.history(sg).at(-1)!.id);
    expect(res.users.some((u) => (u as Api.User).firstName === "Alice")).toBe(true);
  });
});

describe("flood waits and faults per method and per peer", () => {
  it("floodWait holds a method for its whole window: each call meanwhile gets FLOOD_WAIT with the seconds left; other methods and, per peer, other chats work", async () => {
    let now = Date.UTC(2026, 0, 1);
    const { emu, persona, alice, client } = world({ now: () => now });
    const a = emu.createSupergroup({ title: "A", members: [persona, alice] });
    const b = emu.createSupergroup({ title: "B", members: [persona, alice] });
    emu.primeEntityCache(persona);
    emu.faults.floodWait("updates.GetChannelDifference", 30);
    const first = await channelDifference(client, a.peerId, 1).catch((e: unknown) => e);
    expect(first).toBeInstanceOf(errors.FloodWaitError);
    expect((first as errors.FloodWaitError).seconds).toBe(30);
    now += 20_500;
    const again = (await channelDifference(client, b.peerId, 1).catch(
      (e: unknown) => e,
    )) as errors.FloodWaitError;
    expect(again.seconds).toBe(10); // the same window, account-wide, with what is left
    expect(await history(client, a.peerId)).toBeInstanceOf(Api.messages.ChannelMessages);
    now += 10_000;
    expect(await channelDifference(client, a.peerId, 1)).toBeInstanceOf(Api.updates.ChannelDifference);

    emu.faults.floodWait("messages.GetHistory", 60, { peer: a });
    expect(await history(client, a.peerId).catch((e: unknown) => e)).toBeInstanceOf(errors.FloodWaitError);
    expect(await history(client, b.peerId)).toBeInstanceOf(Api.messages.ChannelMessages);
  });

  it("every method the catch-up uses can be flooded: getDifference, getDialogs, resolveUsername, getUsers", async () => {
    const { emu, persona, alice, client } = world();
    const dm = emu.dm(persona, alice);
    await emu.post({ chat: dm, from: alice, text: "hi" });
    for (const m of [
      "updates.GetDifference",
      "messages.GetDialogs",
      "contacts.ResolveUsername",
      "users.GetUsers",
    ])
      emu.faults.floodWait(m, 5);
    const calls: Promise<unknown>[] = [
      difference(client, 1),
      client.invoke(
        new Api.messages.GetDialogs({
          offsetDate: 0,
          offsetId: 0,
          offsetPeer: new Api.InputPeerEmpty(),
          limit: 10,
          hash: returnBigInt(0),
        }),
      ),
      client.invoke(new Api.contacts.ResolveUsername({ username: "alice" })),
      client.invoke(
        new Api.users.GetUsers({
          id: [
            new Api.InputUser({ userId: returnBigInt(alice.id), accessHash: returnBigInt(alice.accessHash) }),
          ],
        }),
      ),
    ];
    const outcomes = await Promise.all(calls.map((c) => c.catch((e: unknown) => e)));
    for (const o of outcomes) expect(o).toBeInstanceOf(errors.FloodWaitError);
  });

  it("failNext and hang take a peer: only requests about that chat (or username) meet them", async () => {
    const { emu, persona, alice, client } = world();
    const a = emu.createSupergroup({ title: "A", members: [persona, alice] });
    const b = emu.createSupergroup({ title: "B", members: [persona, alice] });
    emu.primeEntityCache(persona);
    emu.faults.failNext("messages.GetHistory", "FLOOD_WAIT_7", { peer: b });
    emu.faults.failNext("contacts.ResolveUsername", "FLOOD_WAIT_9", { peer: alice });
    expect(await history(client, a.peerId)).toBeInstanceOf(Api.messages.ChannelMessages);
    expect(
      ((await history(client, b.peerId).catch((e: unknown) => e)) as errors.FloodWaitError).seconds,
    ).toBe(7);
    const resolved = client.invoke(new Api.contacts.ResolveUsername({ username: "ALICE" }));
    expect(((await resolved.catch((e: unknown) => e)) as errors.FloodWaitError).seconds).toBe(9);

    emu.faults.hang("updates.GetChannelDifference", { when: "before-apply", peer: b });
    let answered = false;
    void channelDifference(client, b.peerId, 1).finally(() => (answered = true));
    expect(await channelDifference(client, a.peerId, 1)).toBeInstanceOf(Api.updates.ChannelDifference);
    await new Promise((r) => setTimeout(r, 50));
    expect(answered).toBe(false); // never answered, never rejected
  });

  it("persistent timestamps: INVALID and EMPTY are 400; OUTDATED is 500 and GramJS hands it over at once, without retrying", async () => {
    const { emu, persona, alice, client } = world();
    const sg = emu.createSupergroup({ title: "SG", members: [persona, alice] });
    emu.primeEntityCache(persona);
    const invalid = (await difference(client, 10_000).catch((e: unknown) => e)) as errors.RPCError;
    expect([invalid.code, invalid.errorMessage]).toEqual([400, "PERSISTENT_TIMESTAMP_INVALID"]);
    const empty = (await channelDifference(client, sg.peerId, 0).catch((e: unknown) => e)) as errors.RPCError;
    expect([empty.code, empty.errorMessage]).toEqual([400, "PERSISTENT_TIMESTAMP_EMPTY"]);

    emu.faults.failNext("updates.GetChannelDifference", "PERSISTENT_TIMESTAMP_OUTDATED", { peer: sg });
    emu.traffic.clearRequests();
    const outdated = (await channelDifference(client, sg.peerId, 1).catch(
      (e: unknown) => e,
    )) as errors.RPCError;
    expect([outdated.code, outdated.errorMessage]).toEqual([500, "PERSISTENT_TIMESTAMP_OUTDATED"]);
    expect(outdated).not.toBeInstanceOf(errors.ServerError); // GramJS retries only that class
    expect(emu.traffic.methods()).toEqual(["updates.GetChannelDifference"]);
  });
});
