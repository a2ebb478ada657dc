/**
 * Catch-up as Telegram's update docs prescribe, end to end on the emulator with real GramJS: at a
 * start or after a dropped connection only getDifference, then only the channels it names; a
 * channel whose update was lost is found by its silence deadline (bounded per minute); Telegram's
 * persistent-timestamp errors reset or back off, and the account part failing never stops the
 * channel part; a request that is never answered times out and is retried.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { EmuChat } from "../../emulator";
import { messageText, type FakeReply, type GenerateBody } from "../support/gemini-fake";
import { followedGroups as followed, storedTexts as texts } from "../support/followed-groups";
import { Harness } from "../support/harness";

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** Answers every "say <word>" in the messages of the last user turn with a send "re <word>". */
function responder(body: GenerateBody): FakeReply {
  const words = [...messageText(body).matchAll(/say (\w+)/g)].map((m) => m[1]!);
  return { json: { tasks: words.map((w) => ({ kind: "send", text: `re ${w}` })) } };
}

/** The chat a recorded request is about (its channel or peer), as a marked id. */
function peerOf(request: unknown): string | undefined {
  const r = request as {
    channel?: { channelId?: { toString(): string } };
    peer?: { channelId?: { toString(): string } };
  };
  const id = (r.channel ?? r.peer)?.channelId?.toString();
  return id === undefined ? undefined : `-100${id}`;
}

/** The catch-up requests since the last clear: "method" or "method title". */
function asked(hh: Harness, chats: readonly EmuChat[]): string[] {
  const titles = new Map(chats.map((c) => [c.peerId, c.title ?? c.peerId]));
  return hh.emu.traffic.requests
    .filter((r) => r.account.id === hh.account.id)
    .filter((r) =>
      [
        "updates.GetState",
        "updates.GetDifference",
        "updates.GetChannelDifference",
        "messages.GetHistory",
        "messages.GetDialogs",
      ].includes(r.method),
    )
    .map((r) => {
      const peer = peerOf(r.request);
      return peer === undefined ? r.method : `${r.method} ${titles.get(peer) ?? peer}`;
    });
}

const realTime = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("catch-up by the book", () => {
  it("a restart after downtime in 30 followed supergroups, 3 with news: getDifference, the 3 it names, one dialogs page — the 27 quiet ones cost nothing; the mention is answered", async () => {
    h = await Harness.start();
    h.gemini.respondWith(responder);
    const groups = await followed(h, 30);
    h.crash();
    await h.emu.post({ chat: groups[3]!, from: h.bob, text: "news in 3" });
    await h.emu.post({ chat: groups[17]!, from: h.bob, text: "@mira_ai say seventeen" });
    await h.emu.post({ chat: groups[29]!, from: h.alice, text: "news in 29" });
    h.emu.traffic.clearRequests();
    h.boot();
    await h.runtime.caughtUp;

    expect(asked(h, groups).sort()).toEqual(
      [
        "updates.GetDifference",
        "updates.GetChannelDifference G3",
        "updates.GetChannelDifference G17",
        "updates.GetChannelDifference G29",
        "messages.GetDialogs",
      ].sort(),
    );
    expect(asked(h, groups)[0]).toBe("updates.GetDifference");
    await h.pass(20_000);
    expect(texts(h, groups[3]!)).toEqual(["hello", "news in 3"]);
    expect(texts(h, groups[29]!)).toEqual(["hello", "news in 29"]);
    expect(h.sent(groups[17]!).map((m) => m.text)).toEqual(["re seventeen"]);
  });

  it("after a dropped connection comes back: the same, the difference names only the groups that had news", async () => {
    h = await Harness.start();
    h.gemini.respondWith(responder);
    const groups = await followed(h, 12);
    await h.emu.net.dropConnection(h.account, { reconnect: "manual" });
    await h.emu.post({ chat: groups[5]!, from: h.bob, text: "@mira_ai say five" });
    await h.emu.post({ chat: groups[8]!, from: h.bob, text: "while the link was dead" });
    await h.emu.net.restoreConnection(h.account);
    await h.client.connect();
    h.emu.traffic.clearRequests();
    const summary = await h.runtime.catchUp();

    expect(asked(h, groups)).toEqual([
      "updates.GetDifference",
      "updates.GetChannelDifference G5",
      "updates.GetChannelDifference G8",
      "messages.GetDialogs",
    ]);
    expect(summary).toMatchObject({ messages: 2, requests: 4 });
    await h.pass(20_000);
    expect(h.sent(groups[5]!).map((m) => m.text)).toEqual(["re five"]);
  });

  it("an update lost on the way (no gap shows it, nothing names it) is found by its silence deadline: at most 6 silent groups a minute, each once per 15 minutes, spread after the start", async () => {
    h = await Harness.start();
    h.gemini.respondWith(responder);
    const groups = await followed(h, 20);
    // Stored by the server, never pushed to the (connected) session: only a fetch finds it.
    h.emu.buildIncoming({ chat: groups[7]!, from: h.bob, text: "@mira_ai say lost" });
    h.emu.traffic.clearRequests();
    const t0 = h.clock.now();
    await h.pass(14 * 60_000);
    expect(asked(h, groups)).toEqual([]); // nothing silent for 15 minutes yet
    await h.pass(17 * 60_000);

    expect(h.sent(groups[7]!).map((m) => m.text)).toEqual(["re lost"]);
    const polls = h.emu.traffic.requests.filter((r) => r.method === "updates.GetChannelDifference");
    const silent = polls.filter((r) => peerOf(r.request) !== groups[7]!.peerId);
    // Every other group polled, the first time between 15 and 30 minutes after the start, again
    // only 15 minutes after that …
    const byGroup = new Map<string, number[]>();
    for (const r of silent)
      byGroup.set(peerOf(r.request)!, [...(byGroup.get(peerOf(r.request)!) ?? []), r.at]);
    expect([...byGroup.keys()].sort()).toEqual(
      groups
        .filter((_, i) => i !== 7)
        .map((g) => g.peerId)
        .sort(),
    );
    for (const [first, ...more] of byGroup.values()) {
      expect(first! - t0).toBeGreaterThanOrEqual(15 * 60_000 - 5_000); // the runtime started 2 s before t0
      expect(first! - t0).toBeLessThan(30 * 60_000 + 5_000);
      for (const at of more) expect(at - first!).toBeGreaterThanOrEqual(15 * 60_000);
    }
    // … at most 6 in any minute.
    for (const r of silent)
      expect(silent.filter((x) => x.at > r.at - 60_000 && x.at <= r.at).length).toBeLessThanOrEqual(6);
  });
});

describe("persistent timestamps", () => {
  it("PERSISTENT_TIMESTAMP_INVALID on getDifference: the account state is reset with getState, the skipped gap logged; the channel part still runs and answers the group's mention", async () => {
    h = await Harness.start();
    h.gemini.respondWith(responder);
    const [group] = await followed(h, 1);
    const dm = h.emu.dm(h.account, h.carol);
    h.crash();
    await h.emu.post({ chat: dm, from: h.carol, text: "say skipped" });
    await h.emu.post({ chat: group!, from: h.bob, text: "@mira_ai say group" });
    h.emu.faults.failNext("updates.GetDifference", "PERSISTENT_TIMESTAMP_INVALID");
    h.emu.traffic.clearRequests();
    h.boot();
    await h.runtime.caughtUp;
    await h.pass(20_000);

    expect(asked(h, [group!])).toEqual([
      "updates.GetDifference",
      "updates.GetState",
      "messages.GetDialogs",
      "updates.GetChannelDifference G0",
    ]);
    expect(h.sent(group!).map((m) => m.text)).toEqual(["re group"]);
    expect(h.sent(dm)).toEqual([]); // before the reset: not fetched
    const reset = h.log.lines().find((l) => l.rpcError === "PERSISTENT_TIMESTAMP_INVALID");
    expect(reset).toMatchObject({ level: 40, toPts: h.emu.updates.state(h.account).pts });
    expect(h.runtime.updateState.account()?.pts).toBe(h.emu.updates.state(h.account).pts);
    // From the new state the next difference works: a DM now is answered.
    await h.emu.post({ chat: dm, from: h.carol, text: "say after" });
    await h.pass(20_000);
    expect(h.sent(dm).map((m) => m.text)).toEqual(["re after"]);
  });

  it("PERSISTENT_TIMESTAMP_OUTDATED on getDifference: not asked again for 5 minutes, meanwhile the channel part runs; then the DM comes", async () => {
    h = await Harness.start();
    h.gemini.respondWith(responder);
    const [group] = await followed(h, 1);
    const dm = h.emu.dm(h.account, h.carol);
    h.crash();
    await h.emu.post({ chat: dm, from: h.carol, text: "say late" });
    await h.emu.post({ chat: group!, from: h.bob, text: "@mira_ai say group" });
    h.emu.faults.failNext("updates.GetDifference", "PERSISTENT_TIMESTAMP_OUTDATED");
    h.emu.traffic.clearRequests();
    h.boot();
    await h.runtime.caughtUp;
    const t0 = h.clock.now();
    await h.pass(20_000);
    expect(h.sent(group!).map((m) => m.text)).toEqual(["re group"]); // the channel part ran
    await h.runtime.catchUp(); // a reconnect's catch-up meanwhile does not ask it either
    await h.pass(4 * 60_000);
    const differences = () => h!.emu.traffic.requests.filter((r) => r.method === "updates.GetDifference");
    expect(differences()).toHaveLength(1);
    await h.pass(60_000);
    expect(differences()).toHaveLength(2);
    expect(differences()[1]!.at - t0).toBeGreaterThanOrEqual(5 * 60_000 - 1_000);
    await h.pass(20_000);
    expect(h.sent(dm).map((m) => m.text)).toEqual(["re late"]);
  });

  it("PERSISTENT_TIMESTAMP_INVALID on a channel's difference: followed again from the pts of its newest history page, the gap logged; PERSISTENT_TIMESTAMP_OUTDATED there: retried after 5 minutes", async () => {
    h = await Harness.start();
    h.gemini.respondWith(responder);
    const [reset, later] = await followed(h, 2);
    h.crash();
    await h.emu.post({ chat: reset!, from: h.bob, text: "@mira_ai say reset" });
    await h.emu.post({ chat: later!, from: h.bob, text: "@mira_ai say later" });
    h.emu.faults.failNext("updates.GetChannelDifference", "PERSISTENT_TIMESTAMP_INVALID", { peer: reset! });
    h.emu.faults.failNext("updates.GetChannelDifference", "PERSISTENT_TIMESTAMP_OUTDATED", { peer: later! });
    h.emu.traffic.clearRequests();
    h.boot();
    await h.runtime.caughtUp;
    await h.pass(20_000);

    expect(asked(h, [reset!, later!]).filter((a) => a.includes(" "))).toEqual([
      "updates.GetChannelDifference G0",
      "updates.GetChannelDifference G1",
      "messages.GetHistory G0",
    ]);
    expect(h.runtime.updateState.channelPts(reset!.peerId)).toBe(h.emu.updates.channelPts(reset!));
    expect(h.log.lines().find((l) => l.rpcError === "PERSISTENT_TIMESTAMP_INVALID")).toMatchObject({
      level: 40,
      chatId: reset!.peerId,
    });
    expect(h.sent(reset!).map((m) => m.text)).toEqual(["re reset"]);
    expect(h.sent(later!)).toEqual([]);
    const laterAsked = () =>
      h!.emu.traffic.requests.filter(
        (r) => r.method === "updates.GetChannelDifference" && peerOf(r.request) === later!.peerId,
      );
    await h.pass(4 * 60_000);
    expect(laterAsked()).toHaveLength(1);
    await h.pass(90_000);
    const [first, second] = laterAsked();
    expect(second!.at - first!.at).toBeGreaterThanOrEqual(5 * 60_000);
    await h.pass(20_000);
    expect(h.sent(later!).map((m) => m.text)).toEqual(["re later"]);
  });
});

describe("requests that are never answered", () => {
  it("a getChannelDifference that hangs times out (the other named groups go on), is retried, and its mention is answered", async () => {
    h = await Harness.start({ requestTimeoutMs: 300 });
    h.gemini.respondWith(responder);
    const groups = await followed(h, 3);
    h.crash();
    for (const [i, g] of groups.entries())
      await h.emu.post({ chat: g, from: h.bob, text: `@mira_ai say g${i}` });
    h.emu.faults.hang("updates.GetChannelDifference", { when: "before-apply", peer: groups[1]! });
    h.emu.traffic.clearRequests();
    h.boot();
    const caughtUp = h.runtime.caughtUp;
    await realTime(500); // past the request's bound (real time)
    await caughtUp;
    await h.pass(20_000);
    expect(h.sent(groups[0]!).map((m) => m.text)).toEqual(["re g0"]);
    expect(h.sent(groups[2]!).map((m) => m.text)).toEqual(["re g2"]);
    expect(asked(h, groups).filter((a) => a.endsWith(" G1"))).toEqual([
      "updates.GetChannelDifference G1",
      "updates.GetChannelDifference G1",
    ]);
    expect(h.sent(groups[1]!).map((m) => m.text)).toEqual(["re g1"]);
  });

  it("a sender lookup that hangs times out: the basic group's short message is still answered", async () => {
    h = await Harness.start({ requestTimeoutMs: 300 });
    h.gemini.respondWith(responder);
    h.emu.faults.hang("users.GetUsers", { when: "before-apply" });
    await h.emu.post({ chat: h.club, from: h.alice, text: "Mira, say club" });
    await h.pass(1_000);
    await realTime(400);
    await h.pass(20_000);
    expect(h.emu.traffic.methods(h.account)).toContain("users.GetUsers");
    expect(h.sent(h.club).map((m) => m.text)).toEqual(["re club"]);
  });
});
