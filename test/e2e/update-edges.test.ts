/**
 * Telegram's edges of update delivery, end to end on the emulator driving real GramJS:
 * updatesTooLong, groups the account was removed from (and rejoins), broadcast channels and
 * updateChannelTooLong's pts.
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
  hh.emu.requests.filter((r) => {
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
    h.emu.overflowUpdates(h.account);

    await h.emu.post({ chat: dm, from: h.carol, text: "are you there?" });
    await h.emu.idle();
    // The only thing pushed was updatesTooLong; the difference was asked for right away.
    expect(h.emu.methods(h.account)).toContain("updates.GetDifference");
    await h.pass(10_000);
    expect(h.sent(dm).map((m) => m.text)).toEqual(["got it"]);
  });
});

describe("groups the account is no longer in", () => {
  it("kicked while offline: one getChannelDifference (CHANNEL_PRIVATE), state dropped, one log line, never asked again; rejoining follows it again", async () => {
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
    await h.emu.removeMember(other, h.account);
    await h.emu.post({ chat: other, from: h.alice, text: "they are gone" });
    h.emu.clearRequests();
    h.boot();
    await h.runtime.caughtUp;

    expect(channelRequests(h, other).map((r) => r.method)).toEqual(["updates.GetChannelDifference"]);
    const lines = h.log.lines().filter((l) => l.chatId === other.peerId && l.component === "updates");
    expect(lines).toHaveLength(1);
    expect(lines[0]!.msg).toContain("no longer a member of Other (CHANNEL_PRIVATE)");
    expect(storedChannelBoxes(h)).toEqual([h.group.peerId]);

    // No retry, and the next catch-up leaves it alone.
    await h.pass(5 * 60_000);
    await h.runtime.catchUp();
    expect(channelRequests(h, other)).toHaveLength(1);

    // Added again: updateChannel says so; the next message is followed and answered.
    h.gemini.respondWith(() => plan({ kind: "send", text: "I'm back" }));
    await h.emu.addMember(other, h.account);
    expect(
      h.log
        .lines()
        .some((l) => l.chatId === other.peerId && String(l.msg).includes("a member of Other again")),
    ).toBe(true);
    await h.emu.post({ chat: other, from: h.alice, text: "@mira_ai welcome back" });
    await h.pass(10_000);
    expect(h.sent(other).map((m) => m.text)).toEqual(["I'm back"]);
    expect(storedChannelBoxes(h)).toContain(other.peerId);
  });

  it("removed while running (updateChannel with ChannelForbidden) or leaving: state dropped at once, with no request", async () => {
    h = await Harness.start();
    const left = h.emu.createSupergroup({ title: "Left", members: [h.account, h.alice] });
    await h.emu.post({ chat: left, from: h.alice, text: "hi" });
    await h.emu.post({ chat: h.group, from: h.alice, text: "hi" });
    await h.pass(1000);
    h.emu.clearRequests();

    await h.emu.removeMember(h.group, h.account);
    await h.emu.removeMember(left, h.account, { how: "left" });
    await h.pass(5 * 60_000);
    await h.runtime.catchUp();

    expect(storedChannelBoxes(h)).toEqual([]);
    expect(channelRequests(h, h.group)).toEqual([]);
    expect(channelRequests(h, left)).toEqual([]);
    const lines = h.log
      .lines()
      .filter((l) => l.component === "updates" && String(l.msg).startsWith("no longer a member"));
    expect(lines.map((l) => l.chatId).sort()).toEqual([h.group.peerId, left.peerId].sort());
  });
});

describe("broadcast channels", () => {
  it("a gap in a broadcast channel, and updateChannelTooLong for one, are never fetched", async () => {
    h = await Harness.start();
    const news = h.emu.createChannel({ title: "News", members: [h.account, h.alice] });
    await h.emu.post({ chat: news, from: h.alice, text: "post 1" });
    h.emu.buildIncoming({ chat: news, from: h.alice, text: "post 2 (never pushed)" });
    await h.emu.post({ chat: news, from: h.alice, text: "post 3 (after a gap)" });
    await h.emu.pushChannelTooLong(h.account, news);
    await h.pass(5 * 60_000);
    await h.runtime.catchUp();
    expect(channelRequests(h, news)).toEqual([]);
    expect(storedChannelBoxes(h)).not.toContain(news.peerId);
  });
});

describe("updateChannelTooLong's pts", () => {
  it("a supergroup joined on another device while offline is fetched from the pts Telegram names: every message since, not the last 20", async () => {
    h = await Harness.start();
    const joined = h.emu.createSupergroup({ title: "Joined", members: [h.alice] });
    await h.runtime.stop();
    h.emu.detach(h.client);
    h.db.close();
    await h.emu.addMember(joined, h.account);
    for (let i = 0; i < 25; i++) await h.emu.post({ chat: joined, from: h.alice, text: `while away ${i}` });
    h.boot();
    await h.runtime.caughtUp;
    h.emu.clearRequests();

    await h.emu.pushChannelTooLong(h.account, joined);
    await h.emu.idle();
    await h.pass(1000);

    expect(channelRequests(h, joined).map((r) => r.method)).toEqual(["updates.GetChannelDifference"]);
    const texts = h.runtime.messages.recent(joined.peerId, Number.MAX_SAFE_INTEGER, 100).map((m) => m.text);
    expect(texts).toHaveLength(25);
  });
});
