import { Api, errors } from "telegram";
import { returnBigInt } from "telegram/Helpers.js";
import { describe, expect, it } from "vitest";
import { world } from "./harness";

/** What a request threw, as Telegram answered it: error message and code. */
async function rpcError(p: Promise<unknown>): Promise<{ message: string; code: number | undefined }> {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  if (!(e instanceof errors.RPCError)) throw new Error(`expected an RPC error, got ${String(e)}`);
  return { message: e.errorMessage, code: e.code };
}

const history = (peer: string) =>
  new Api.messages.GetHistory({
    peer,
    limit: 10,
    offsetId: 0,
    offsetDate: 0,
    addOffset: 0,
    maxId: 0,
    minId: 0,
    hash: returnBigInt(0),
  });

describe("a frozen account", () => {
  it("answers every write FROZEN_METHOD_INVALID (420) and nothing reaches the chat; reads go on", async () => {
    const { emu, persona, alice, client } = world();
    const dm = emu.dm(persona, alice);
    const hi = await emu.post({ chat: dm, from: alice, text: "hi" });
    emu.faults.freeze(persona);

    expect(await rpcError(client.sendMessage(dm.peerId, { message: "hello" }))).toEqual({
      message: "FROZEN_METHOD_INVALID",
      code: 420,
    });
    expect(
      await rpcError(
        client.invoke(
          new Api.messages.SendReaction({
            peer: dm.peerId,
            msgId: hi.id,
            reaction: [new Api.ReactionEmoji({ emoticon: "👍" })],
          }),
        ),
      ),
    ).toEqual({ message: "FROZEN_METHOD_INVALID", code: 420 });
    expect(
      await rpcError(
        client.invoke(
          new Api.messages.SetTyping({ peer: dm.peerId, action: new Api.SendMessageTypingAction() }),
        ),
      ),
    ).toEqual({ message: "FROZEN_METHOD_INVALID", code: 420 });
    expect(emu.history(dm).map((m) => m.text)).toEqual(["hi"]);
    expect(emu.chats.reactions(dm, hi.id)).toEqual([]);
    expect(emu.traffic.typing(dm)).toEqual([]);

    // Reading works: history, state, read marks; and messages keep arriving.
    const h = (await client.invoke(history(dm.peerId))) as Api.messages.Messages;
    expect(h.messages.map((m) => (m as Api.Message).message)).toEqual(["hi"]);
    expect(((await client.invoke(new Api.updates.GetState())) as Api.updates.State).pts).toBe(
      emu.updates.state(persona).pts,
    );
    await client.invoke(new Api.messages.ReadHistory({ peer: dm.peerId, maxId: hi.id }));
    await emu.post({ chat: dm, from: alice, text: "still there?" });
    expect(emu.history(dm).map((m) => m.text)).toEqual(["hi", "still there?"]);
  });

  it("tells help.getAppConfig when it was frozen, when it will be deleted and where to appeal", async () => {
    const { emu, persona, client } = world();
    const plain = (await client.invoke(new Api.help.GetAppConfig({ hash: 0 }))) as Api.help.AppConfig;
    expect((plain.config as Api.JsonObject).value.map((v) => v.key)).not.toContain("freeze_since_date");

    emu.faults.freeze(persona, {
      since: Date.UTC(2026, 0, 10),
      until: Date.UTC(2026, 1, 9),
      appealUrl: "https://t.me/spambot?start=appeal",
    });
    const cfg = (await client.invoke(new Api.help.GetAppConfig({ hash: 0 }))) as Api.help.AppConfig;
    const fields = Object.fromEntries(
      (cfg.config as Api.JsonObject).value.map((v) => [
        v.key,
        (v.value as Api.JsonNumber | Api.JsonString).value,
      ]),
    );
    expect(fields).toEqual({
      freeze_since_date: Date.UTC(2026, 0, 10) / 1000,
      freeze_until_date: Date.UTC(2026, 1, 9) / 1000,
      freeze_appeal_url: "https://t.me/spambot?start=appeal",
    });
  });

  it("answers FROZEN_PARTICIPANT_MISSING (400) for reads of a peer out of its reach, and only those", async () => {
    const { emu, persona, alice, client } = world();
    const open = emu.createSupergroup({ title: "Open", members: [persona, alice] });
    const closed = emu.createSupergroup({ title: "Closed", members: [persona, alice] });
    await emu.post({ chat: open, from: alice, text: "o" });
    await emu.post({ chat: closed, from: alice, text: "c" });
    emu.primeEntityCache(persona);
    emu.faults.freeze(persona, { unreachable: [closed] });

    expect(await rpcError(client.invoke(history(closed.peerId)))).toEqual({
      message: "FROZEN_PARTICIPANT_MISSING",
      code: 400,
    });
    const input = (await client.getInputEntity(closed.peerId)) as Api.InputPeerChannel;
    const channel = new Api.InputChannel({ channelId: input.channelId, accessHash: input.accessHash });
    expect(
      await rpcError(
        client.invoke(
          new Api.updates.GetChannelDifference({
            channel,
            filter: new Api.ChannelMessagesFilterEmpty(),
            pts: 1,
            limit: 10,
          }),
        ),
      ),
    ).toEqual({ message: "FROZEN_PARTICIPANT_MISSING", code: 400 });
    const h = (await client.invoke(history(open.peerId))) as Api.messages.ChannelMessages;
    expect(h.messages.map((m) => (m as Api.Message).message)).toContain("o");
  });

  it("writes again once the freeze is lifted", async () => {
    const { emu, persona, alice, client } = world();
    const dm = emu.dm(persona, alice);
    await emu.post({ chat: dm, from: alice, text: "hi" });
    emu.faults.freeze(persona);
    await rpcError(client.sendMessage(dm.peerId, { message: "refused" }));
    emu.faults.unfreeze(persona);
    expect((await client.sendMessage(dm.peerId, { message: "back" }))?.text).toBe("back");
    expect(emu.history(dm).map((m) => m.text)).toEqual(["hi", "back"]);
  });
});

describe("a spam-limited account (PEER_FLOOD)", () => {
  it("cannot message people outside its contacts; contacts and groups are untouched, until the limit is lifted", async () => {
    const { emu, persona, alice, bob, client } = world();
    const stranger = emu.dm(persona, alice);
    const friend = emu.dm(persona, bob);
    const group = emu.createSupergroup({ title: "G", members: [persona, alice, bob] });
    emu.addContact(persona, bob);
    await emu.post({ chat: stranger, from: alice, text: "hi" });
    await emu.post({ chat: friend, from: bob, text: "hey" });
    await emu.post({ chat: group, from: alice, text: "all" });
    emu.faults.limitSpam(persona);

    expect(await rpcError(client.sendMessage(stranger.peerId, { message: "hello" }))).toEqual({
      message: "PEER_FLOOD",
      code: 400,
    });
    expect((await client.sendMessage(friend.peerId, { message: "to bob" }))?.text).toBe("to bob");
    expect((await client.sendMessage(group.peerId, { message: "to all" }))?.text).toBe("to all");
    expect(emu.history(stranger).map((m) => m.text)).toEqual(["hi"]);

    emu.faults.limitSpam(persona, false);
    expect((await client.sendMessage(stranger.peerId, { message: "now" }))?.text).toBe("now");
  });
});
