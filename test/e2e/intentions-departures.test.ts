/**
 * An intention's asker who goes while it is being planned (docs/life.md, "People who left"): left
 * the group, removed from it, or blocked — after the plan asked for it but before its task stored
 * it, or while it is due and its own plan is out. It must not fire: refused when it would be
 * stored, recalled (its tasks cancelled) while it is planned. Through the emulator, real GramJS,
 * the real Gemini SDK against the loopback fake, a fake clock.
 */
import { Api } from "telegram";
import { afterEach, describe, expect, it, vi } from "vitest";
import { isPlanRequest } from "../support/gemini-fake";
import type { EmuUser } from "../../emulator";
import { Harness, plan } from "../support/harness";
import { latch, until } from "../support/wait";
import { formatLocal } from "../../src/base/zoned-time";

const MIN = 60_000;
const HOUR = 60 * MIN;

let h: Harness;
afterEach(async () => {
  await h?.close();
});
vi.setConfig({ testTimeout: 120_000 });

const planCount = () => h.gemini.requests.filter((r) => isPlanRequest(r.body)).length;
const intentions = (chatId: string) =>
  h.db.prepare("SELECT note, state, reason FROM intentions WHERE chat_id = ? ORDER BY id").all(chatId) as {
    note: string;
    state: string;
    reason: string | null;
  }[];
const memberAsks = () =>
  h.emu.traffic.requests.filter(
    (r) => r.request instanceof Api.messages.GetFullChat || r.request instanceof Api.channels.GetParticipant,
  ).length;
/** When due, any plan sends the reminder. */
const remindWhenDue = () =>
  h.gemini.respondWith((body) =>
    JSON.stringify(body).includes("remind Dave to post the door codes")
      ? plan({ kind: "send", text: "Dave: post the door codes!" })
      : plan(),
  );

/** dave asks in the Club for a reminder in 30 min, and the plan schedules it. */
async function daveAsks(dave: EmuUser) {
  h.gemini.script(plan({ kind: "schedule", note: "remind Dave to post the door codes", after_minutes: 30 }));
  await h.emu.post({ chat: h.club, from: dave, text: "@mira_ai in 30 min remind me to post the door codes" });
  await h.pass(MIN);
}

/** dave, a member of the Club, has asked for a reminder in 30 min, and it is set. */
async function daveHasAReminder() {
  h = await Harness.start({ tickMs: 1000 });
  const dave = h.emu.addUser({ firstName: "Dave", username: "dave" });
  await h.emu.chats.addMember(h.club, dave);
  await daveAsks(dave);
  expect(intentions(h.club.peerId).map((i) => i.state)).toEqual(["pending"]);
  return dave;
}

describe("an intention whose asker goes while it is planned", () => {
  it("dave is removed from the group while the plan that schedules his reminder is out: it is refused when its task would store it, never pending, never sent", async () => {
    h = await Harness.start({ tickMs: 1000 });
    const dave = h.emu.addUser({ firstName: "Dave", username: "dave" });
    await h.emu.chats.addMember(h.club, dave);
    const gate = latch();
    h.gemini.script({
      after: gate.promise,
      then: plan(
        { kind: "send", text: "ok" },
        { kind: "schedule", note: "remind Dave to post the door codes", after_minutes: 30 },
      ),
    });
    await h.emu.post({
      chat: h.club,
      from: dave,
      text: "@mira_ai in 30 min remind me to post the door codes",
    });
    const passing = h.pass(5_000);
    await until(() => planCount() === 1);
    await h.emu.chats.removeMember(h.club, dave); // the "removed" service message arrives
    gate.release();
    await passing;
    await h.pass(MIN);
    expect(intentions(h.club.peerId)).toEqual([
      {
        note: "remind Dave to post the door codes",
        state: "refused",
        reason: "its asker was removed from the group after asking",
      },
    ]);
    const asksBefore = memberAsks();
    remindWhenDue();
    await h.pass(HOUR);
    expect(h.sent(h.club).map((m) => m.text)).not.toContain("Dave: post the door codes!");
    expect(memberAsks()).toBe(asksBefore); // nothing due: Telegram is not asked
  });

  it("dave leaves after asking, comes back and asks again: the new ask is his to have", async () => {
    h = await Harness.start({ tickMs: 1000 });
    const dave = h.emu.addUser({ firstName: "Dave", username: "dave" });
    await h.emu.chats.addMember(h.club, dave);
    await h.emu.post({ chat: h.club, from: dave, text: "@mira_ai hi" });
    await h.pass(MIN);
    await h.emu.chats.removeMember(h.club, dave, { how: "left" });
    await h.emu.chats.addMember(h.club, dave);
    await daveAsks(dave);
    expect(intentions(h.club.peerId).map((i) => i.state)).toEqual(["pending"]);
    remindWhenDue();
    await h.pass(HOUR);
    expect(h.sent(h.club).map((m) => m.text)).toContain("Dave: post the door codes!");
  });

  it("dave is removed while his due reminder is being planned: the plan is recalled, nothing is sent, the intention says why", async () => {
    const dave = await daveHasAReminder();
    // Due: Telegram says he is still there, the planning call goes out and is held.
    const gate = latch();
    h.gemini.script({
      after: gate.promise,
      then: plan({ kind: "send", text: "Dave: post the door codes!" }),
    });
    const before = planCount();
    const passing = h.pass(30 * MIN);
    await until(() => planCount() === before + 1);
    await h.emu.chats.removeMember(h.club, dave);
    gate.release();
    await passing;
    await h.pass(10 * MIN);
    expect(h.sent(h.club).map((m) => m.text)).not.toContain("Dave: post the door codes!");
    expect(intentions(h.club.peerId)).toEqual([
      {
        note: "remind Dave to post the door codes",
        state: "skipped",
        reason: "skipped: its asker was removed from the group",
      },
    ]);
  });

  it("dave is removed while his due reminder is being planned and the process dies before the plan comes back: the restart plans nothing for it", async () => {
    const dave = await daveHasAReminder();
    h.gemini.script({ after: new Promise(() => undefined), then: plan() }); // never answered
    const before = planCount();
    const passing = h.pass(30 * MIN);
    await until(() => planCount() === before + 1);
    await h.emu.chats.removeMember(h.club, dave);
    h.crash();
    await passing;
    remindWhenDue();
    h.boot();
    await h.pass(10 * MIN);
    expect(planCount()).toBe(before + 1); // the resumed planning task is refused: no second call
    expect(h.sent(h.club).map((m) => m.text)).not.toContain("Dave: post the door codes!");
    expect(intentions(h.club.peerId)).toMatchObject([{ state: "skipped" }]);
  });

  it("dave is removed while the answer of his due reminder is typing: the send is cancelled", async () => {
    const dave = await daveHasAReminder();
    // A long message: 10 chars/s typing, so it types for many seconds after the plan.
    const long = `Dave: post the door codes! ${"please ".repeat(20)}`.trim();
    h.gemini.script(plan({ kind: "send", text: long }));
    const sending = () => h.runtime.scheduler.openTasks(h.club.peerId).some((t) => t.kind === "send");
    for (let i = 0; i < 40 * 60 && !sending(); i++) await h.pass(1_000);
    expect(sending()).toBe(true); // planned: typing, the send waits behind it
    expect(h.sent(h.club).map((m) => m.text)).not.toContain(long);
    await h.emu.chats.removeMember(h.club, dave);
    await h.pass(5 * MIN);
    expect(h.sent(h.club).map((m) => m.text)).not.toContain(long);
  });

  it("dave is removed while the send of his reminder is in doubt (it may have gone out), then a restart: the doubt is settled, the message stored once, not cancelled", async () => {
    h = await Harness.start({ tickMs: 1000, requestTimeoutMs: 300 });
    const dave = h.emu.addUser({ firstName: "Dave", username: "dave" });
    await h.emu.chats.addMember(h.club, dave);
    await daveAsks(dave);
    h.emu.faults.hang("messages.SendMessage", { when: "after-apply", times: 1 }); // the server has it; no answer
    h.gemini.script(plan({ kind: "send", text: "Dave: post the door codes!" }));
    const send = () =>
      h.db.prepare("SELECT status, in_doubt AS inDoubt, error FROM tasks WHERE kind = 'send'").get() as
        { status: string; inDoubt: number; error: string | null } | undefined;
    for (let i = 0; i < 40 * 60 && send()?.inDoubt !== 1; i++) await h.pass(1_000);
    expect(send()?.inDoubt).toBe(1);
    await h.emu.chats.removeMember(h.club, dave);
    h.crash();
    h.boot();
    await h.pass(5 * MIN);
    expect(send()).toMatchObject({ status: "done", inDoubt: 0 });
    expect(h.sent(h.club).filter((m) => m.text === "Dave: post the door codes!")).toHaveLength(1);
    const stored = h.db
      .prepare("SELECT count(*) FROM messages WHERE chat_id = ? AND is_agent = 1 AND text = ?")
      .pluck()
      .get(h.club.peerId, "Dave: post the door codes!");
    expect(stored).toBe(1);
  });

  it("she blocked dave in his DM: a reminder he asks for in a group afterwards is his to have (only asks made before the block are refused)", async () => {
    h = await Harness.start({ tickMs: 1000 });
    const dave = h.emu.addUser({ firstName: "Dave", username: "dave" });
    h.emu.addContact(h.account, dave);
    await h.emu.chats.addMember(h.club, dave);
    const dm = h.emu.dm(h.account, dave);
    h.gemini.script(plan({ kind: "block" }));
    await h.emu.post({ chat: dm, from: dave, text: "you are useless" });
    await h.pass(MIN);
    expect(h.db.prepare("SELECT status FROM tasks WHERE kind = 'block'").pluck().all()).toEqual(["done"]);
    await daveAsks(dave);
    expect(intentions(h.club.peerId)).toEqual([
      { note: "remind Dave to post the door codes", state: "pending", reason: null },
    ]);
  });

  it("the owner blocks dave in another app while the plan of his reminder is out: it is refused; unblocked there before it comes back, it is set and sent", async () => {
    for (const unblock of [false, true]) {
      await h?.close();
      h = await Harness.start({ tickMs: 1000 });
      const dave = h.emu.addUser({ firstName: "Dave", username: "dave" });
      await h.emu.chats.addMember(h.club, dave);
      const gate = latch();
      h.gemini.script({
        after: gate.promise,
        then: plan({ kind: "schedule", note: "remind Dave to post the door codes", after_minutes: 30 }),
      });
      await h.emu.post({
        chat: h.club,
        from: dave,
        text: "@mira_ai in 30 min remind me to post the door codes",
      });
      const passing = h.pass(5_000);
      await until(() => planCount() === 1);
      await h.emu.blockElsewhere(h.account, dave, true); // updatePeerBlocked, blocked
      if (unblock) await h.emu.blockElsewhere(h.account, dave, false); // and unblocked there
      gate.release();
      await passing;
      await h.pass(MIN);
      expect(intentions(h.club.peerId)).toEqual([
        unblock
          ? { note: "remind Dave to post the door codes", state: "pending", reason: null }
          : { note: "remind Dave to post the door codes", state: "refused", reason: "its asker was blocked" },
      ]);
      remindWhenDue();
      await h.pass(HOUR);
      expect(
        h
          .sent(h.club)
          .map((m) => m.text)
          .includes("Dave: post the door codes!"),
      ).toBe(unblock);
    }
  });
});

const DAVE_NOTE = "remind Dave to post the door codes";
const ERIN_NOTE = "remind Erin to bring the projector";

/** The notes of the intentions a planning request carries as due now (not those it lists as pending). */
function dueNotes(body: unknown): string[] {
  const { contents } = body as { contents: { parts: { text?: string }[] }[] };
  const lines = contents.flatMap((c) => c.parts.flatMap((p) => (p.text ?? "").split("\n")));
  return [DAVE_NOTE, ERIN_NOTE].filter((n) => lines.some((l) => l.includes("due now⟧") && l.includes(n)));
}

/**
 * Dave and Erin, both in the Club, each ask for a reminder due the same minute. When due, Dave's
 * plan is under way (its call held) when Erin's falls due, so it hands both over to hers: one
 * planning call carries both (held until `gate` opens) and sends each reminder it carries.
 */
async function twoReminders() {
  h = await Harness.start({ tickMs: 1000 });
  const dave = h.emu.addUser({ firstName: "Dave", username: "dave" });
  const erin = h.emu.addUser({ firstName: "Erin", username: "erin" });
  await h.emu.chats.addMember(h.club, dave);
  await h.emu.chats.addMember(h.club, erin);
  const at = formatLocal(h.clock.now() + 40 * MIN, h.persona.timeZone);
  h.gemini.script(plan({ kind: "schedule", note: DAVE_NOTE, at }));
  await h.emu.post({ chat: h.club, from: dave, text: "@mira_ai remind me to post the door codes later" });
  await h.pass(MIN);
  h.gemini.script(plan({ kind: "schedule", note: ERIN_NOTE, at }));
  await h.emu.post({ chat: h.club, from: erin, text: "@mira_ai remind me to bring the projector then too" });
  await h.pass(MIN);
  expect(intentions(h.club.peerId).map((i) => i.state)).toEqual(["pending", "pending"]);
  const first = latch();
  const gate = latch();
  let held = false;
  h.gemini.respondWith((body) => {
    const due = dueNotes(body);
    const sends = [
      ...(due.includes(DAVE_NOTE) ? [{ kind: "send" as const, text: "Dave: post the door codes!" }] : []),
      ...(due.includes(ERIN_NOTE) ? [{ kind: "send" as const, text: "Erin: bring the projector!" }] : []),
    ];
    if (due.length === 1 && due[0] === DAVE_NOTE) return { after: first.promise, then: plan(...sends) };
    if (!held && due.length === 2) {
      held = true;
      return { after: gate.promise, then: plan(...sends) };
    }
    return plan(...sends);
  });
  const passing = h.pass(45 * MIN);
  await until(() => intentions(h.club.peerId).every((i) => i.state === "firing"));
  first.release();
  await until(() => held);
  return { dave, erin, gate, passing };
}

describe("reminders of two askers planned together, one of them goes", () => {
  it("erin is removed while the plan carrying both reminders is out: hers is not sent, dave's is", async () => {
    const { erin, gate, passing } = await twoReminders();
    await h.emu.chats.removeMember(h.club, erin);
    gate.release();
    await passing;
    await h.pass(10 * MIN);
    const sent = h.sent(h.club).map((m) => m.text);
    expect(sent).toContain("Dave: post the door codes!");
    expect(sent).not.toContain("Erin: bring the projector!");
    expect(intentions(h.club.peerId)).toEqual([
      { note: DAVE_NOTE, state: "fired", reason: null },
      { note: ERIN_NOTE, state: "skipped", reason: "skipped: its asker was removed from the group" },
    ]);
  });

  it("dave is removed instead: erin's reminder is still sent, his is not", async () => {
    const { dave, gate, passing } = await twoReminders();
    await h.emu.chats.removeMember(h.club, dave);
    gate.release();
    await passing;
    await h.pass(10 * MIN);
    const sent = h.sent(h.club).map((m) => m.text);
    expect(sent).toContain("Erin: bring the projector!");
    expect(sent).not.toContain("Dave: post the door codes!");
    expect(intentions(h.club.peerId).map((i) => i.state)).toEqual(["skipped", "fired"]);
  });
});
