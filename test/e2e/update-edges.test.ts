/**
 * Telegram's edges of update delivery, end to end on the emulator driving real GramJS:
 * updatesTooLong, groups the account was removed from (and rejoins), broadcast channels and
 * supergroups Telegram names that have no state of their own.
 */
import { afterEach, describe, expect, it } from "vitest";
import { openDatabase } from "../../src/store/db";
import type { EmuChat } from "../../emulator";
import { Harness, plan } from "../support/harness";

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** The stored update state's channel rows (box ids). */
function storedChannelBoxes(hh: Harness): string[] {
  hh.runtime.messages.commit();
  const db = openDatabase(hh.dbPath);
  try {
    return db.prepare("SELECT box FROM update_state WHERE box <> '' ORDER BY box").pluck().all() as string[];
  } finally {
    db.close();
  }
}

const channelRequests = (hh: Harness, chat: EmuChat) =>
  hh.emu.traffic.requests.filter((r) => {
    const ch =
      (
        r.request as {
          channel?: { channelId?: { toString(): string } };
          peer?: { channelId?: { toString(): string } };
        }
      ).channel ?? (r.request as { peer?: { channelId?: { toString(): string } } }).peer;
    return ch?.channelId?.toString() === String(chat.id);
  });

describe("updatesTooLong", () => {
  it("fetches the difference at once: a DM the server did not push is answered without waiting for a probe or another update", async () => {
    h = await Harness.start();
    const dm = h.emu.dm(h.account, h.carol);
    h.gemini.respondWith(() => plan({ kind: "send", text: "got it" }));
    h.emu.net.overflowUpdates(h.account);

    await h.emu.post({ chat: dm, from: h.carol, text: "are you there?" });
    await h.emu.idle();
    // The only thing pushed was updatesTooLong; the difference was asked for right away.
    expect(h.emu.traffic.methods(h.account)).toContain("updates.GetDifference");
    await h.pass(10_000);
    expect(h.sent(dm).map((m) => m.text)).toEqual(["got it"]);
  });
});

describe("groups the account is no longer in", () => {
  it("a frozen account and a group out of its reach: Telegram names the group, one getChannelDifference (FROZEN_PARTICIPANT_MISSING), state dropped, not asked again", async () => {
    h = await Harness.start();
    const other = h.emu.createSupergroup({ title: "Other", members: [h.account, h.alice] });
    await h.emu.post({ chat: other, from: h.alice, text: "hello other" });
    await h.pass(1000);
    expect(storedChannelBoxes(h)).toContain(other.peerId);
    h.emu.faults.freeze(h.account, { unreachable: [other] });
    h.emu.traffic.clearRequests();
    await h.emu.updates.pushChannelTooLong(h.account, other); // "fetch this channel's difference"
    await h.pass(5_000);

    expect(channelRequests(h, other).map((r) => r.method)).toEqual(["updates.GetChannelDifference"]);
    expect(storedChannelBoxes(h)).not.toContain(other.peerId);
    await h.runtime.catchUp();
    await h.pass(5 * 60_000);
    expect(channelRequests(h, other)).toHaveLength(1);
  });

  it("kicked while offline: not named at the start (no request); its first poll after 15 quiet minutes answers CHANNEL_PRIVATE: state dropped, one log line, never asked again; rejoining follows it again", async () => {
    h = await Harness.start();
    const other = h.emu.createSupergroup({ title: "Other", members: [h.account, h.alice] });
    await h.emu.post({ chat: other, from: h.alice, text: "hello other" });
    await h.emu.post({ chat: h.group, from: h.alice, text: "hello sandbox" });
    await h.pass(1000);
    expect(storedChannelBoxes(h)).toEqual([h.group.peerId, other.peerId].sort());

    // Offline, the account is removed from "Other".
    await h.runtime.stop();
    h.emu.detach(h.client);
    h.db.close();
    await h.emu.chats.removeMember(other, h.account);
    await h.emu.post({ chat: other, from: h.alice, text: "they are gone" });
    h.emu.traffic.clearRequests();
    h.boot();
    await h.runtime.caughtUp;
    // Telegram's difference does not name a channel the account is not in: nothing asked yet.
    expect(channelRequests(h, other)).toEqual([]);
    // Silent for 15 minutes (its first deadline spread over 15 more): polled once.
    await h.pass(31 * 60_000);

    expect(channelRequests(h, other).map((r) => r.method)).toEqual(["updates.GetChannelDifference"]);
    const lines = h.log.lines().filter((l) => l.chatId === other.peerId && l.component === "updates");
    expect(lines).toHaveLength(1);
    // One warning for the operator: which group, and Telegram's reason.
    expect(lines[0]).toMatchObject({
      level: 40,
      rpcError: "CHANNEL_PRIVATE",
      msg: expect.stringContaining("Other"),
    });
    expect(storedChannelBoxes(h)).toEqual([h.group.peerId]);

    // No retry, and the next catch-up leaves it alone.
    await h.pass(5 * 60_000);
    await h.runtime.catchUp();
    expect(channelRequests(h, other)).toHaveLength(1);

    // Offline again, the account is added back; Alice writes meanwhile, and Telegram's next
    // difference names the channel (updateChannelTooLong, the channel in its chats).
    await h.runtime.stop();
    h.emu.detach(h.client);
    h.db.close();
    await h.emu.chats.addMember(other, h.account);
    await h.emu.post({ chat: other, from: h.alice, text: "@mira_ai are you back?" });
    await h.emu.post({ chat: other, from: h.alice, text: "we missed you" });
    await h.emu.updates.pushChannelTooLong(h.account, other);
    h.gemini.respondWith(() => plan({ kind: "send", text: "I'm back" }));
    h.emu.traffic.clearRequests();
    h.boot();
    await h.runtime.caughtUp;
    await h.pass(10_000);

    // Followed again: what Alice wrote while the account was away is stored (its newest messages:
    // no state is left to start a difference from) and answered, and the channel has its update
    // state back.
    expect(
      channelRequests(h, other)
        .map((r) => r.method)
        .filter((m) => m === "messages.GetHistory" || m === "updates.GetChannelDifference"),
    ).toEqual(["messages.GetHistory"]);
    const texts = h.runtime.messages.recent(other.peerId, Number.MAX_SAFE_INTEGER, 100).map((m) => m.text);
    expect(texts).toEqual(expect.arrayContaining(["@mira_ai are you back?", "we missed you"]));
    expect(h.sent(other).map((m) => m.text)).toEqual(["I'm back"]);
    expect(storedChannelBoxes(h)).toContain(other.peerId);

    // And live updates from it are followed: the next mention is answered.
    h.gemini.respondWith(() => plan({ kind: "send", text: "still here" }));
    await h.emu.post({ chat: other, from: h.alice, text: "@mira_ai welcome back" });
    await h.pass(10_000);
    expect(h.sent(other).map((m) => m.text)).toEqual(["I'm back", "still here"]);
  });

  it("CHANNEL_INVALID on getChannelDifference (the channel is gone), met by its silence poll: state dropped, one log line, never asked again", async () => {
    h = await Harness.start();
    const doomed = h.emu.createSupergroup({ title: "Doomed", members: [h.account, h.alice] });
    await h.emu.post({ chat: doomed, from: h.alice, text: "hello doomed" });
    await h.emu.post({ chat: h.group, from: h.alice, text: "hello sandbox" });
    await h.pass(1000);
    expect(storedChannelBoxes(h)).toEqual([h.group.peerId, doomed.peerId].sort());

    // Offline; Telegram then answers the channel's difference with CHANNEL_INVALID.
    await h.runtime.stop();
    h.emu.detach(h.client);
    h.db.close();
    h.emu.faults.failNext("updates.GetChannelDifference", "CHANNEL_INVALID", { peer: doomed });
    h.emu.traffic.clearRequests();
    h.boot();
    await h.runtime.caughtUp;
    expect(channelRequests(h, doomed)).toEqual([]); // nothing happened there: not named
    await h.pass(31 * 60_000); // silent past its deadline: polled

    expect(channelRequests(h, doomed).map((r) => r.method)).toEqual(["updates.GetChannelDifference"]);
    const lines = h.log.lines().filter((l) => l.chatId === doomed.peerId && l.component === "updates");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      level: 40,
      rpcError: "CHANNEL_INVALID",
      msg: expect.stringContaining("Doomed"),
    });
    expect(storedChannelBoxes(h)).toEqual([h.group.peerId]);
    // The other supergroup is polled as usual.
    expect(channelRequests(h, h.group).map((r) => r.method)).toEqual(["updates.GetChannelDifference"]);

    await h.pass(5 * 60_000);
    await h.runtime.catchUp();
    expect(channelRequests(h, doomed)).toHaveLength(1);
    expect(h.log.lines().filter((l) => Number(l.level) >= 50)).toEqual([]);
  });

  it("removed while running (updateChannel with ChannelForbidden) or leaving: state dropped at once, with no request; added back while running: followed again", async () => {
    h = await Harness.start();
    const left = h.emu.createSupergroup({ title: "Left", members: [h.account, h.alice] });
    await h.emu.post({ chat: left, from: h.alice, text: "hi" });
    await h.emu.post({ chat: h.group, from: h.alice, text: "hi" });
    await h.pass(1000);
    h.emu.traffic.clearRequests();

    await h.emu.chats.removeMember(h.group, h.account);
    await h.emu.chats.removeMember(left, h.account, { how: "left" });
    await h.pass(5 * 60_000);
    await h.runtime.catchUp();

    expect(storedChannelBoxes(h)).toEqual([]);
    expect(channelRequests(h, h.group)).toEqual([]);
    expect(channelRequests(h, left)).toEqual([]);
    // One warning for each group lost.
    const lines = h.log.lines().filter((l) => l.component === "updates" && l.level === 40);
    expect(lines.map((l) => l.chatId).sort()).toEqual([h.group.peerId, left.peerId].sort());

    // Added again: updateChannel says so; the next message is followed and answered.
    h.gemini.respondWith(() => plan({ kind: "send", text: "I'm back" }));
    await h.emu.chats.addMember(left, h.account);
    await h.emu.post({ chat: left, from: h.alice, text: "@mira_ai welcome back" });
    await h.pass(10_000);
    expect(h.sent(left).map((m) => m.text)).toEqual(["I'm back"]);
    expect(storedChannelBoxes(h)).toContain(left.peerId);
  });
});

describe("broadcast channels", () => {
  it("a gap in a broadcast channel, and updateChannelTooLong for one, are never fetched", async () => {
    h = await Harness.start();
    const news = h.emu.createChannel({ title: "News", members: [h.account, h.alice] });
    await h.emu.post({ chat: news, from: h.alice, text: "post 1" });
    h.emu.buildIncoming({ chat: news, from: h.alice, text: "post 2 (never pushed)" });
    await h.emu.post({ chat: news, from: h.alice, text: "post 3 (after a gap)" });
    await h.emu.updates.pushChannelTooLong(h.account, news);
    await h.pass(5 * 60_000);
    await h.runtime.catchUp();
    expect(channelRequests(h, news)).toEqual([]);
    expect(storedChannelBoxes(h)).not.toContain(news.peerId);
  });
});

describe("a supergroup named without state of its own", () => {
  it("named inside the catch-up's getDifference (joined while offline, no state of its own): read from its newest messages, then followed from their pts", async () => {
    h = await Harness.start();
    const joined = h.emu.createSupergroup({ title: "Joined", members: [h.alice] });
    for (let i = 0; i < 3; i++)
      await h.emu.post({ chat: joined, from: h.alice, text: `before joining ${i}` });
    await h.runtime.stop();
    h.emu.detach(h.client);
    h.db.close();
    await h.emu.chats.addMember(joined, h.account);
    for (let i = 0; i < 25; i++) await h.emu.post({ chat: joined, from: h.alice, text: `while away ${i}` });
    await h.emu.updates.pushChannelTooLong(h.account, joined); // kept for the next difference
    h.emu.traffic.clearRequests();
    h.boot();
    await h.runtime.caughtUp;
    await h.pass(1000);

    const methods = h.emu.traffic.methods(h.account);
    expect(methods.indexOf("updates.GetDifference")).toBeLessThan(methods.indexOf("messages.GetHistory"));
    // One page of its newest messages: every one since the join (and the history before it, which
    // a supergroup shows new members).
    expect(channelRequests(h, joined).map((r) => r.method)).toEqual(["messages.GetHistory"]);
    const texts = h.runtime.messages.recent(joined.peerId, Number.MAX_SAFE_INTEGER, 100).map((m) => m.text);
    expect(texts).toEqual([
      ...Array.from({ length: 3 }, (_, i) => `before joining ${i}`),
      ...Array.from({ length: 25 }, (_, i) => `while away ${i}`),
    ]);
    expect(h.runtime.updateState.channelPts(joined.peerId)).toBe(h.emu.updates.channelPts(joined));
    // Followed: its next message comes live, nothing more is asked.
    h.emu.traffic.clearRequests();
    await h.emu.post({ chat: joined, from: h.alice, text: "live again" });
    await h.pass(1000);
    expect(channelRequests(h, joined)).toEqual([]);
    expect(storedChannelBoxes(h)).toContain(joined.peerId);
  });

  it("a supergroup joined on another device while offline is read at the start (the difference names it), and an updateChannelTooLong for it later asks its difference", async () => {
    h = await Harness.start();
    const joined = h.emu.createSupergroup({ title: "Joined", members: [h.alice] });
    await h.runtime.stop();
    h.emu.detach(h.client);
    h.db.close();
    await h.emu.chats.addMember(joined, h.account);
    for (let i = 0; i < 25; i++) await h.emu.post({ chat: joined, from: h.alice, text: `while away ${i}` });
    h.boot();
    await h.runtime.caughtUp;
    expect(channelRequests(h, joined).map((r) => r.method)).toEqual(["messages.GetHistory"]);
    h.emu.traffic.clearRequests();

    await h.emu.updates.pushChannelTooLong(h.account, joined);
    await h.emu.idle();
    await h.pass(1000);

    expect(channelRequests(h, joined).map((r) => r.method)).toEqual(["updates.GetChannelDifference"]);
    const texts = h.runtime.messages.recent(joined.peerId, Number.MAX_SAFE_INTEGER, 100).map((m) => m.text);
    expect(texts).toHaveLength(25);
  });
});
