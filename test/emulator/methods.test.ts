import { Api, errors, utils } from "telegram";
import { returnBigInt } from "telegram/Helpers.js";
import { describe, expect, it } from "vitest";
import { world } from "./harness";

const texts = (r: unknown): string[] =>
  (r as Api.messages.ChannelMessages).messages.map((m) =>
    m instanceof Api.Message ? m.message : m.className,
  );

describe("messages.getHistory with Telegram's limits", () => {
  it("caps a page at 100, pages by offset_id and add_offset, and bounds by min_id / max_id", async () => {
    const { emu, persona, alice, client } = world();
    const sg = emu.createSupergroup({ title: "SG", members: [persona, alice] });
    for (let i = 1; i <= 150; i++) emu.buildIncoming({ chat: sg, from: alice, text: `m${i}` });
    emu.primeEntityCache(persona);
    // Message ids: 1 is the creation service message, m<i> has id i + 1.
    const history = (o: Partial<ConstructorParameters<typeof Api.messages.GetHistory>[0]>) =>
      client.invoke(
        new Api.messages.GetHistory({
          peer: sg.peerId,
          offsetId: 0,
          offsetDate: 0,
          addOffset: 0,
          limit: 100,
          maxId: 0,
          minId: 0,
          hash: returnBigInt(0),
          ...o,
        }),
      );

    const first = (await history({ limit: 500 })) as Api.messages.ChannelMessages;
    expect(first.messages).toHaveLength(100);
    expect(first.count).toBe(151);
    expect(texts(first).slice(0, 2)).toEqual(["m150", "m149"]);
    expect(texts(await history({ offsetId: 11, limit: 3 }))).toEqual(["m9", "m8", "m7"]);
    // A negative add_offset reaches the newer side of offset_id.
    expect(texts(await history({ offsetId: 11, addOffset: -3, limit: 3 }))).toEqual(["m12", "m11", "m10"]);
    // Near the newest message the window is cut, not shifted.
    expect(texts(await history({ offsetId: 148, addOffset: -5, limit: 5 }))).toEqual([
      "m150",
      "m149",
      "m148",
      "m147",
    ]);
    expect(texts(await history({ maxId: 51, limit: 3 }))).toEqual(["m49", "m48", "m47"]);
    expect(texts(await history({ minId: 146 }))).toEqual(["m150", "m149", "m148", "m147", "m146"]);
  });

  it("serves GramJS's own backward and forward scans", async () => {
    const { emu, persona, alice, client } = world();
    const dm = emu.dm(persona, alice);
    for (let i = 1; i <= 230; i++) emu.buildIncoming({ chat: dm, from: alice, text: `d${i}` });
    emu.primeEntityCache(persona);
    emu.traffic.clearRequests();

    const all = await client.getMessages(dm.peerId, { limit: undefined });
    expect(all.length).toBe(230);
    expect(emu.traffic.methods().filter((m) => m === "messages.GetHistory").length).toBeGreaterThanOrEqual(3);
    const newer = await client.getMessages(dm.peerId, { minId: 225, reverse: true, limit: undefined });
    expect(Array.from(newer, (m) => m.text)).toEqual(["d226", "d227", "d228", "d229", "d230"]);
  });
});

describe("messages.getDialogs", () => {
  it("lists the account's chats newest first with top messages, unread counts and channel pts", async () => {
    let clock = 1_700_000_000_000;
    const { emu, persona, alice, bob, client } = world({ now: () => clock });
    const group = emu.createGroup({ title: "Book club", members: [persona, alice, bob] });
    const sg = emu.createSupergroup({ title: "SG", members: [persona, alice] });
    const dm = emu.dm(persona, bob);
    emu.dm(persona, alice); // nobody wrote: not a dialog
    await emu.post({ chat: sg, from: alice, text: "oldest" });
    clock += 5000;
    await emu.post({ chat: group, from: alice, text: "middle" });
    clock += 5000;
    await emu.post({ chat: dm, from: bob, text: "newest 1" });
    await emu.post({ chat: dm, from: bob, text: "newest 2" });

    const raw = (await client.invoke(
      new Api.messages.GetDialogs({
        offsetDate: 0,
        offsetId: 0,
        offsetPeer: new Api.InputPeerEmpty(),
        limit: 100,
        hash: returnBigInt(0),
      }),
    )) as Api.messages.Dialogs;
    expect(raw).toBeInstanceOf(Api.messages.Dialogs);
    const dialogs = raw.dialogs as Api.Dialog[];
    expect(dialogs.map((d) => d.peer.className)).toEqual(["PeerUser", "PeerChat", "PeerChannel"]);
    expect(dialogs[0]?.unreadCount).toBe(2);
    expect(dialogs[2]?.pts).toBe(emu.updates.channelPts(sg));
    expect((raw.messages as Api.Message[]).map((m) => m.message)).toEqual(["newest 2", "middle", "oldest"]);

    const viaGramJs = await client.getDialogs({});
    expect(Array.from(viaGramJs, (d) => d.title)).toEqual(["Bob Stone", "Book club", "SG"]);
  });

  it("lists a subscribed broadcast channel (broadcast flag, pts) beside supergroups, and not a supergroup the account was removed from", async () => {
    const { emu, persona, alice, client } = world();
    const news = emu.createChannel({ title: "News", members: [persona, alice] });
    const sg = emu.createSupergroup({ title: "SG", members: [persona, alice] });
    const gone = emu.createSupergroup({ title: "Gone", members: [persona, alice] });
    await emu.post({ chat: gone, from: alice, text: "bye" });
    await emu.post({ chat: news, from: alice, text: "news" });
    await emu.post({ chat: sg, from: alice, text: "chat" });
    await emu.chats.removeMember(gone, persona);

    const raw = (await client.invoke(
      new Api.messages.GetDialogs({
        offsetDate: 0,
        offsetId: 0,
        offsetPeer: new Api.InputPeerEmpty(),
        limit: 100,
        hash: returnBigInt(0),
      }),
    )) as Api.messages.Dialogs;
    const dialogs = raw.dialogs as Api.Dialog[];
    const titles = dialogs.map((d) => {
      const c = raw.chats.find((x) => utils.getPeerId(x) === utils.getPeerId(d.peer)) as Api.Channel;
      return `${c.title}${c.broadcast ? " (broadcast)" : ""}${c.megagroup ? " (megagroup)" : ""}`;
    });
    expect(titles).toEqual(["SG (megagroup)", "News (broadcast)"]);
    expect(dialogs[1]?.pts).toBe(emu.updates.channelPts(news));
  });

  it("pages 150 chats in slices of at most 100, as GramJS's iterDialogs asks", async () => {
    const { emu, persona, alice, client } = world();
    for (let i = 0; i < 150; i++) {
      const g = emu.createSupergroup({ title: `g${i}`, members: [persona, alice] });
      emu.buildIncoming({ chat: g, from: alice, text: `hello ${i}` });
    }
    emu.traffic.clearRequests();

    const dialogs = await client.getDialogs({ limit: 150 });

    expect(dialogs.length).toBe(150);
    expect(new Set(dialogs.map((d) => d.title)).size).toBe(150);
    expect(emu.traffic.methods().filter((m) => m === "messages.GetDialogs")).toHaveLength(2);
  });
});

describe("users.getUsers, channels.getChannels, contacts.resolveUsername", () => {
  it("answers users.getUsers for known access hashes and leaves the rest out; InputUserFromMessage reaches a min user", async () => {
    const { emu, persona, alice, bob, client } = world({ updateShapes: "telegram" });
    const sg = emu.createSupergroup({ title: "SG", members: [persona, alice, bob] });
    const posted = await emu.post({ chat: sg, from: alice, text: "min me" });
    emu.primeEntityCache(persona);

    const byHash = await client.invoke(
      new Api.users.GetUsers({
        id: [
          new Api.InputUser({ userId: returnBigInt(bob.id), accessHash: returnBigInt(bob.accessHash) }),
          new Api.InputUser({ userId: returnBigInt(alice.id), accessHash: returnBigInt(1) }),
        ],
      }),
    );
    expect(byHash.map((u) => (u as Api.User).firstName)).toEqual(["Bob"]);

    const channel = new Api.InputPeerChannel({
      channelId: returnBigInt(sg.id),
      accessHash: returnBigInt(sg.accessHash),
    });
    const fromMessage = await client.invoke(
      new Api.users.GetUsers({
        id: [
          new Api.InputUserFromMessage({ peer: channel, msgId: posted.id, userId: returnBigInt(alice.id) }),
        ],
      }),
    );
    expect((fromMessage[0] as Api.User).accessHash?.toString()).toBe(String(alice.accessHash));
    // The message must be the user's own.
    const wrong = await client.invoke(
      new Api.users.GetUsers({
        id: [new Api.InputUserFromMessage({ peer: channel, msgId: posted.id, userId: returnBigInt(bob.id) })],
      }),
    );
    expect(wrong).toEqual([]);
  });

  it("answers channels.getChannels with ChannelForbidden for a channel the account left", async () => {
    const { emu, persona, alice, client } = world({ strictTl: true });
    const sg = emu.createSupergroup({ title: "Left", members: [persona, alice] });
    emu.primeEntityCache(persona);
    emu.chats.removeMember(sg, persona);

    const r = (await client.invoke(new Api.channels.GetChannels({ id: [sg.peerId] }))) as Api.messages.Chats;
    expect(r.chats[0]).toBeInstanceOf(Api.ChannelForbidden);
    expect((r.chats[0] as Api.ChannelForbidden).title).toBe("Left");
    const bad = await client
      .invoke(
        new Api.channels.GetChannels({
          id: [new Api.InputChannel({ channelId: returnBigInt(sg.id), accessHash: returnBigInt(7) })],
        }),
      )
      .catch((e: unknown) => e);
    expect((bad as errors.RPCError).errorMessage).toBe("CHANNEL_INVALID");
  });

  it("resolves usernames, USERNAME_NOT_OCCUPIED for free ones, USERNAME_INVALID for malformed ones", async () => {
    const { client } = world();
    const ok = (await client.invoke(
      new Api.contacts.ResolveUsername({ username: "@Alice" }),
    )) as Api.contacts.ResolvedPeer;
    expect((ok.users[0] as Api.User).firstName).toBe("Alice");
    const free = await client
      .invoke(new Api.contacts.ResolveUsername({ username: "nobody_here" }))
      .catch((e: unknown) => e);
    expect((free as errors.RPCError).errorMessage).toBe("USERNAME_NOT_OCCUPIED");
    const bad = await client
      .invoke(new Api.contacts.ResolveUsername({ username: "not a name" }))
      .catch((e: unknown) => e);
    expect((bad as errors.RPCError).errorMessage).toBe("USERNAME_INVALID");
  });

  it("round-trips getDialogs slices through TL bytes", async () => {
    const { emu, persona, alice, client } = world({ strictTl: true });
    for (let i = 0; i < 3; i++)
      emu.buildIncoming({
        chat: emu.createGroup({ title: `g${i}`, members: [persona, alice] }),
        from: alice,
        text: "x",
      });
    const r = await client.invoke(
      new Api.messages.GetDialogs({
        offsetDate: 0,
        offsetId: 0,
        offsetPeer: new Api.InputPeerEmpty(),
        limit: 2,
        hash: returnBigInt(0),
      }),
    );
    expect(r).toBeInstanceOf(Api.messages.DialogsSlice);
    expect((r as Api.messages.DialogsSlice).count).toBe(3);
  });
});
