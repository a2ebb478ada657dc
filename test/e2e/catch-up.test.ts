import { afterEach, describe, expect, it } from "vitest";
import { openDatabase } from "../../src/store/db";
import type { EmuChat, EmuUser } from "../../emulator";
import { messageText, type FakeReply, type GenerateBody } from "../support/gemini-fake";
import { Harness } from "../support/harness";

/**
 * Messages that arrive while the persona is down (process dead, or connection dead) are
 * fetched by catch-up and go through the same inbound path: stored once, with sender names,
 * and the addressed ones answered once, in order.
 */
let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** Answers every "say <word>" in the messages of the last user turn with a send "re <word>". */
function responder(body: GenerateBody): FakeReply {
  const text = messageText(body);
  const words = [...text.matchAll(/say (\w+)/g)].map((m) => m[1]!);
  return { json: { tasks: words.map((w) => ({ kind: "send", text: `re ${w}` })) } };
}

interface Post {
  readonly chat: EmuChat;
  readonly from: EmuUser;
  readonly text: string;
}

/**
 * The persona has been in these chats before (it knows them: a channel it never saw cannot be
 * asked for its difference): one earlier message in each.
 */
async function known(hh: Harness, dm: EmuChat): Promise<Post[]> {
  const earlier = [
    { chat: hh.group, from: hh.alice, text: "earlier in the group" },
    { chat: hh.club, from: hh.bob, text: "earlier in the club" },
    { chat: dm, from: hh.carol, text: "earlier" },
  ];
  hh.gemini.script({ json: { tasks: [] } }); // the earlier DM gets an empty plan
  for (const p of earlier) await hh.emu.post(p);
  await settle(hh, 10_000);
  return earlier;
}

/** 30 messages over a DM, a basic group and a supergroup; 5 address the persona. */
function thirty(hh: Harness): { posts: Post[]; dm: EmuChat } {
  const dm = hh.emu.dm(hh.account, hh.carol);
  const posts: Post[] = [];
  for (let i = 0; i < 28; i++) {
    const inGroup = i % 2 === 0;
    const chat = inGroup ? hh.group : hh.club;
    const from = [hh.alice, hh.bob][i % 2]!;
    let text = `chatter ${i}`;
    if (i === 3) text = "Mira, say clubone";
    if (i === 10) text = "@mira_ai say groupone";
    if (i === 21) text = "mirochka say clubtwo";
    posts.push({ chat, from, text });
    if (i === 5) posts.push({ chat: dm, from: hh.carol, text: "say dmone" });
    if (i === 20) posts.push({ chat: dm, from: hh.carol, text: "say dmtwo" });
  }
  return { posts, dm };
}

/** Let real time pass (a request's bound runs on the real clock). */
const realTime = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function settle(hh: Harness, ms = 120_000): Promise<void> {
  for (let t = 0; t < ms; t += 1000) await hh.pass(1000);
}

function storedRows(hh: Harness): { chat: string; id: number; sender: string; text: string }[] {
  const db = openDatabase(hh.dbPath);
  const rows = db
    .prepare(
      "SELECT chat_id AS chat, message_id AS id, sender_name AS sender, text FROM messages WHERE is_agent = 0 ORDER BY chat_id, message_id",
    )
    .all() as { chat: string; id: number; sender: string; text: string }[];
  db.close();
  return rows;
}

function expectAllOnce(hh: Harness, posts: Post[], dm: EmuChat): void {
  const rows = storedRows(hh);
  const names = new Map([
    [hh.alice.id, "Alice"],
    [hh.bob.id, "Bob"],
    [hh.carol.id, "Carol"],
  ]);
  // Every message stored exactly once, under its sender's real name.
  const got = rows.map((r) => `${r.sender}: ${r.text}`).sort();
  const want = posts.map((p) => `${names.get(p.from.id)}: ${p.text}`).sort();
  expect(got).toEqual(want);
  // The five addressed messages answered once each, in order, in their chats.
  const mine = (chat: EmuChat) =>
    hh.emu
      .history(chat)
      .filter((m) => m.fromId === hh.account.id)
      .map((m) => m.text);
  expect({ group: mine(hh.group), club: mine(hh.club), dm: mine(dm) }).toEqual({
    group: ["re groupone"],
    club: ["re clubone", "re clubtwo"],
    dm: ["re dmone", "re dmtwo"],
  });
}

describe("catch-up", () => {
  it("the runtime is down while 30 messages arrive in a DM, a basic group and a supergroup; after a restart all are stored once and the 5 addressed ones answered once, in order", async () => {
    h = await Harness.start({ emulator: { updateShapes: "telegram" } });
    const hh = h;
    hh.gemini.respondWith(responder);
    const { posts, dm } = thirty(hh);
    const earlier = await known(hh, dm);
    hh.crash();
    for (const p of posts) {
      await hh.emu.post(p);
      await hh.clock.advance(5_000); // downtime: 2.5 minutes in all
    }
    hh.boot();
    const summary = await hh.runtime.caughtUp;
    expect(summary).toMatchObject({ messages: 30 });
    await settle(hh);
    expectAllOnce(hh, [...earlier, ...posts], dm);
    // A second restart finds nothing new and answers nothing again.
    hh.crash();
    hh.boot();
    expect(await hh.runtime.caughtUp).toMatchObject({ messages: 0 });
    await settle(hh, 20_000);
    expectAllOnce(hh, [...earlier, ...posts], dm);
  });

  it("the connection drops for 10 minutes while 50 messages arrive; after it returns, catch-up delivers them once", async () => {
    h = await Harness.start({ emulator: { updateShapes: "telegram" } });
    const hh = h;
    hh.gemini.respondWith(responder);
    const { posts, dm } = thirty(hh);
    const more = Array.from({ length: 20 }, (_, i) => ({
      chat: hh.group,
      from: hh.carol,
      text: `more ${i}`,
    }));
    const all = [...posts, ...more];
    const earlier = await known(hh, dm);
    await hh.emu.net.dropConnection(hh.account, { reconnect: "manual" });
    for (const p of all) {
      await hh.emu.post(p);
      await hh.clock.advance(12_000); // 10 minutes
    }
    expect(storedRows(hh)).toHaveLength(3); // nothing new reached the dead connection
    await hh.emu.net.restoreConnection(hh.account);
    await hh.client.connect();
    const summary = await hh.runtime.catchUp();
    expect(summary.messages).toBe(50);
    await settle(hh);
    expectAllOnce(hh, [...earlier, ...all], dm);
  });

  it("addressed messages older than an hour are stored but not answered", async () => {
    h = await Harness.start({ emulator: { updateShapes: "telegram" } });
    const hh = h;
    hh.gemini.respondWith(responder);
    await hh.emu.post({ chat: hh.group, from: hh.alice, text: "earlier" });
    await hh.emu.post({ chat: hh.club, from: hh.alice, text: "earlier too" });
    await settle(hh, 2_000);
    hh.crash();
    await hh.emu.post({ chat: hh.group, from: hh.alice, text: "@mira_ai say stale" });
    await hh.clock.advance(2 * 3_600_000);
    await hh.emu.post({ chat: hh.club, from: hh.bob, text: "Mira, say fresh" });
    hh.boot();
    await hh.runtime.caughtUp;
    await settle(hh, 30_000);
    expect(
      storedRows(hh)
        .map((r) => r.text)
        .sort(),
    ).toEqual(["@mira_ai say stale", "Mira, say fresh", "earlier", "earlier too"]);
    expect(hh.gemini.requests).toHaveLength(1);
    expect(hh.sent(hh.group)).toEqual([]);
    expect(hh.sent(hh.club).map((m) => m.text)).toEqual(["re fresh"]);
  });

  it("a supergroup gap longer than the channel difference limit: the answer's newest 100 and one more page while they are young enough to answer, never the whole gap; exactly once", async () => {
    h = await Harness.start({ emulator: { updateShapes: "telegram" } });
    const hh = h;
    hh.gemini.respondWith(responder);
    await hh.emu.post({ chat: hh.group, from: hh.alice, text: "before" });
    await settle(hh, 2_000);
    hh.crash();
    const texts = Array.from({ length: 250 }, (_, i) => (i === 240 ? "@mira_ai say late" : `m${i}`));
    for (const text of texts) await hh.emu.post({ chat: hh.group, from: hh.bob, text });
    hh.boot();
    await hh.runtime.caughtUp;
    await settle(hh, 30_000);
    const methods = hh.emu.traffic.methods(hh.account);
    expect(methods.filter((m) => m === "updates.GetChannelDifference")).toHaveLength(1);
    expect(methods.filter((m) => m === "messages.GetHistory")).toHaveLength(1);
    const rows = storedRows(hh).filter((r) => r.chat === hh.group.peerId);
    expect(rows.map((r) => r.text)).toEqual(["before", ...texts.slice(-200)]);
    expect(hh.sent(hh.group).map((m) => m.text)).toEqual(["re late"]);
  });

  it("after channelDifferenceTooLong with old messages: only the answer's messages, no history page", async () => {
    h = await Harness.start({ emulator: { updateShapes: "telegram" } });
    const hh = h;
    hh.gemini.respondWith(responder);
    await hh.emu.post({ chat: hh.group, from: hh.alice, text: "before" });
    await settle(hh, 2_000);
    hh.crash();
    const texts = Array.from({ length: 250 }, (_, i) => `m${i}`);
    for (const text of texts) await hh.emu.post({ chat: hh.group, from: hh.bob, text });
    await hh.clock.advance(2 * 3_600_000); // nothing of it is young enough to answer
    hh.emu.traffic.clearRequests();
    hh.boot();
    await hh.runtime.caughtUp;
    const methods = hh.emu.traffic.methods(hh.account);
    expect(methods.filter((m) => m === "updates.GetChannelDifference")).toHaveLength(1);
    expect(methods).not.toContain("messages.GetHistory");
    const rows = storedRows(hh).filter((r) => r.chat === hh.group.peerId);
    expect(rows.map((r) => r.text)).toEqual(["before", ...texts.slice(-100)]);
    // Followed from the dialog's pts: nothing of it is asked again.
    hh.emu.traffic.clearRequests();
    await hh.runtime.catchUp();
    expect(hh.emu.traffic.methods(hh.account)).not.toContain("updates.GetChannelDifference");
  });

  it("a broadcast channel with 1,150 posts and a supergroup with nothing stored cost a handful of requests; the supergroup's recent messages are still recovered", async () => {
    h = await Harness.start({ emulator: { updateShapes: "telegram" } });
    const hh = h;
    hh.gemini.respondWith(responder);
    const news = hh.emu.createChannel({ title: "News", members: [hh.account, hh.alice] });
    const quiet = hh.emu.createSupergroup({ title: "Quiet", members: [hh.account, hh.alice, hh.bob] });
    // Seen live once each: both have an entity record and a pts row.
    await hh.emu.post({ chat: news, from: hh.alice, text: "post 0" });
    await hh.emu.post({ chat: quiet, from: hh.alice, text: "hello" });
    await settle(hh, 2_000);
    hh.crash();
    for (let i = 1; i <= 1150; i++) await hh.emu.post({ chat: news, from: hh.alice, text: `post ${i}` });
    const texts = Array.from({ length: 150 }, (_, i) => (i === 145 ? "@mira_ai say quiet" : `q${i}`));
    for (const text of texts) await hh.emu.post({ chat: quiet, from: hh.bob, text });
    // Nothing of the supergroup is stored any more (its rows were lost).
    const db = openDatabase(hh.dbPath);
    db.prepare("DELETE FROM messages WHERE chat_id = ?").run(quiet.peerId);
    db.close();
    hh.emu.traffic.clearRequests();
    hh.boot();
    const summary = await hh.runtime.caughtUp;
    await settle(hh, 30_000);
    const catchUp = hh.emu.traffic.requests.filter(
      (r) => r.method === "updates.GetChannelDifference" || r.method === "messages.GetHistory",
    );
    // The broadcast channel is skipped; the supergroup: one difference (too long, with its newest
    // 100), and one history page below them (young, and nothing of it stored).
    expect(catchUp.map((r) => r.method)).toEqual(["updates.GetChannelDifference", "messages.GetHistory"]);
    expect(summary?.requests).toBeLessThanOrEqual(4);
    const rows = storedRows(hh);
    expect(rows.filter((r) => r.chat === news.peerId)).toEqual([]);
    expect(rows.filter((r) => r.chat === quiet.peerId).map((r) => r.text)).toEqual(["hello", ...texts]);
    expect(hh.sent(quiet).map((m) => m.text)).toEqual(["re quiet"]);
  });

  it("a difference too long to send: a DM from a new user during the downtime is found through the dialogs, stored and answered", async () => {
    h = await Harness.start({
      emulator: { updateShapes: "telegram", updateLimits: { differenceTooLongAfter: 10 } },
    });
    const hh = h;
    hh.gemini.respondWith(responder);
    await hh.emu.post({ chat: hh.club, from: hh.alice, text: "before" });
    await settle(hh, 2_000);
    hh.crash();
    const chatter = Array.from({ length: 15 }, (_, i) => `c${i}`);
    for (const text of chatter) await hh.emu.post({ chat: hh.club, from: hh.bob, text });
    const dave = hh.emu.addUser({ firstName: "Dave" });
    const dm = hh.emu.dm(hh.account, dave);
    await hh.emu.post({ chat: dm, from: dave, text: "hi, say hello" });
    hh.emu.traffic.clearRequests();
    hh.boot();
    await hh.runtime.caughtUp;
    await settle(hh, 30_000);
    expect(hh.emu.traffic.methods(hh.account)).toContain("messages.GetDialogs");
    const rows = storedRows(hh);
    expect(rows.filter((r) => r.chat === hh.club.peerId).map((r) => r.text)).toEqual(["before", ...chatter]);
    expect(rows.filter((r) => r.chat === String(dave.id)).map((r) => `${r.sender}: ${r.text}`)).toEqual([
      "Dave: hi, say hello",
    ]);
    expect(hh.sent(dm).map((m) => m.text)).toEqual(["re hello"]);
  });

  /** The persona knows the basic group; then 2 messages there reach a dead connection. */
  async function missedTwo(hh: Harness): Promise<void> {
    await hh.emu.post({ chat: hh.club, from: hh.alice, text: "earlier" });
    await settle(hh, 2_000);
    await hh.emu.net.dropConnection(hh.account, { reconnect: "manual" });
    await hh.emu.post({ chat: hh.club, from: hh.alice, text: "missed one" });
    await hh.emu.post({ chat: hh.club, from: hh.bob, text: "missed two" });
    await hh.emu.net.restoreConnection(hh.account);
    await hh.client.connect();
  }
  const clubTexts = (hh: Harness) =>
    storedRows(hh)
      .filter((r) => r.chat === hh.club.peerId)
      .map((r) => r.text);

  it("a getDifference that is never answered while a live message is held times out and does not lose the gap: a restart still fetches the missed messages", async () => {
    h = await Harness.start({ emulator: { updateShapes: "telegram" }, requestTimeoutMs: 300 });
    const hh = h;
    await missedTwo(hh);
    hh.emu.faults.hang("updates.GetDifference", { when: "before-apply" });
    await hh.emu.post({ chat: hh.club, from: hh.alice, text: "live" }); // leaves a gap: held, then the difference hangs
    await hh.pass(600);
    expect(hh.emu.traffic.methods(hh.account)).toContain("updates.GetDifference");
    expect(clubTexts(hh)).toEqual(["earlier"]); // held while the difference is asked
    await realTime(400); // the request's bound (real time) passes
    await hh.pass(100);
    expect(clubTexts(hh)).toEqual(["earlier", "live"]); // not deaf
    hh.crash(); // before any retry
    hh.boot();
    await hh.runtime.caughtUp;
    await settle(hh, 5_000);
    expect(clubTexts(hh)).toEqual(["earlier", "missed one", "missed two", "live"]);
  });

  it("a getDifference that times out is retried without waiting for a reconnect", async () => {
    h = await Harness.start({ emulator: { updateShapes: "telegram" }, requestTimeoutMs: 300 });
    const hh = h;
    await missedTwo(hh);
    hh.emu.faults.hang("updates.GetDifference", { when: "before-apply", times: 2 });
    await hh.emu.post({ chat: hh.club, from: hh.alice, text: "live" });
    for (let i = 0; i < 6; i++) {
      await hh.pass(1_000);
      await realTime(350);
    }
    await settle(hh, 5_000);
    expect(hh.emu.traffic.methods(hh.account).filter((m) => m === "updates.GetDifference")).toHaveLength(3);
    expect(clubTexts(hh)).toEqual(["earlier", "missed one", "missed two", "live"]);
  });

  it("a message whose insert failed is fetched again instead of being skipped by the update state", async () => {
    h = await Harness.start({ emulator: { updateShapes: "telegram" } });
    const hh = h;
    await hh.emu.post({ chat: hh.club, from: hh.alice, text: "earlier" });
    await settle(hh, 2_000);
    const other = openDatabase(hh.dbPath);
    other.exec(
      "CREATE TRIGGER full_disk BEFORE INSERT ON messages WHEN NEW.text = 'boom' BEGIN SELECT RAISE(ABORT, 'database or disk is full'); END",
    );
    await hh.emu.post({ chat: hh.club, from: hh.alice, text: "boom" });
    await hh.emu.post({ chat: hh.club, from: hh.bob, text: "after" });
    await hh.pass(200);
    expect(clubTexts(hh)).toEqual(["earlier", "after"]);
    other.exec("DROP TRIGGER full_disk");
    other.close();
    await settle(hh, 5_000);
    expect(clubTexts(hh)).toEqual(["earlier", "boom", "after"]);
  });
});
