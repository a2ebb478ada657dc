import { afterEach, describe, expect, it, vi } from "vitest";
import type { EmuChat } from "../../emulator";
import { isPlanRequest } from "../support/gemini-fake";
import { Harness, plan, TEST_PERSONA } from "../support/harness";

/**
 * The intention engine on the real runtime (emulator, GramJS, the Gemini fake, a fake clock):
 * intentions set through the runtime's `schedule` fire at their time and no earlier, once, across
 * a crash; a pause skips them; downtime past the grace misses them; the day's cap and a DM
 * partner's silence hold them back. (How a plan sets one: test/e2e/intentions.test.ts.)
 */
const MIN = 60_000;
const HOUR = 60 * MIN;
const BERLIN = `${TEST_PERSONA}\n# Time Zone\nEurope/Berlin\n`;

let h: Harness;
afterEach(async () => {
  await h?.close();
});
// Hours of fake time pass in these tests.
vi.setConfig({ testTimeout: 120_000 });

const planRequests = () => h.gemini.requests.filter((r) => isPlanRequest(r.body)).length;

async function dmWithCarol(): Promise<EmuChat> {
  const dm = h.emu.dm(h.account, h.carol);
  h.gemini.script(plan({ kind: "send", text: "sure!" }));
  await h.emu.post({ chat: dm, from: h.carol, text: "hi Mira" });
  await h.pass(30_000);
  return dm;
}

function schedule(chat: EmuChat, note: string, dueAt: number) {
  return h.runtime.intentions.schedule({
    chatId: chat.peerId,
    note,
    dueAt,
    setAt: h.clock.now(),
    forUser: String(h.carol.id),
  });
}

describe("intentions fire at their time", () => {
  it("once, at 09:00 local the next day, across a crash and a restart in between, not before", async () => {
    h = await Harness.start({ persona: BERLIN, tickMs: 1000 });
    const dm = await dmWithCarol();
    // 2026-11-22 13:00 in Berlin (UTC+1): tomorrow 09:00 is 08:00 UTC.
    const nine = Date.parse("2026-11-23T08:00:00Z");
    const s = schedule(dm, "remind carol of her dentist appointment", nine);
    expect(s.ok).toBe(true);
    h.gemini.respondWith(() => plan({ kind: "send", text: "good morning! dentist today, don't forget" }));
    const before = planRequests();
    await h.pass(6 * HOUR);
    h.crash();
    await h.pass(nine - 30 * MIN - h.clock.now()); // the process is down until 08:30 in Berlin
    h.boot();
    await h.runtime.caughtUp;
    await h.pass(nine - MIN - h.clock.now());
    expect(planRequests()).toBe(before);
    expect(h.sent(dm).map((m) => m.text)).toEqual(["sure!"]);
    await h.pass(2 * MIN);
    expect(planRequests()).toBe(before + 1);
    const mine = h.emu.history(dm).filter((m) => m.fromId === h.account.id);
    expect(mine.map((m) => m.text)).toEqual(["sure!", "good morning! dentist today, don't forget"]);
    expect(Math.abs(mine[1]!.date - nine)).toBeLessThanOrEqual(MIN);
    await h.pass(3 * HOUR);
    expect(planRequests()).toBe(before + 1);
    expect(h.runtime.intentionStore.get(s.intention.id)).toMatchObject({ state: "fired", spoke: true });
  });

  it("while paused it is not acted on and is shown as skipped", async () => {
    h = await Harness.start({ persona: BERLIN, tickMs: 1000 });
    const dm = await dmWithCarol();
    const s = schedule(dm, "ask carol how the exam went", h.clock.now() + HOUR);
    await h.ownerSays("/pause");
    await h.pass(2 * HOUR);
    expect(h.sent(dm).map((m) => m.text)).toEqual(["sure!"]);
    expect(h.runtime.intentionStore.get(s.intention.id)).toMatchObject({
      state: "skipped",
      reason: "skipped: paused by the owner (everywhere)",
    });
  });

  it("after a 10-hour downtime past the grace it is missed; within the grace it fires once at start", async () => {
    h = await Harness.start({ persona: BERLIN, tickMs: 1000 });
    const dm = await dmWithCarol();
    const lost = schedule(dm, "ask about the exam", h.clock.now() + HOUR);
    const kept = schedule(dm, "wish luck for the interview", h.clock.now() + 6 * HOUR);
    h.gemini.respondWith(() => plan({ kind: "send", text: "good luck today!" }));
    const before = planRequests();
    h.crash();
    await h.pass(11 * HOUR); // lost was due 10 h ago, kept 5 h ago: the grace is 6 h
    h.boot();
    await h.runtime.caughtUp;
    await h.pass(MIN);
    expect(h.runtime.intentionStore.get(lost.intention.id)).toMatchObject({ state: "missed" });
    expect(h.runtime.intentionStore.get(lost.intention.id)?.reason).toMatch(/^missed: the process was down/);
    expect(h.runtime.intentionStore.get(kept.intention.id)).toMatchObject({ state: "fired" });
    expect(planRequests()).toBe(before + 1);
    expect(h.sent(dm).map((m) => m.text)).toEqual(["sure!", "good luck today!"]);
  });

  it("caps: the (N+1)th in a chat is refused with its reason; a proactive DM after two unanswered ones is not planned", async () => {
    h = await Harness.start({ persona: `${BERLIN}\n# Intentions Per Chat\n2\n`, tickMs: 1000 });
    const dm = await dmWithCarol();
    const t = h.clock.now();
    expect(schedule(dm, "one", t + HOUR).ok).toBe(true);
    expect(schedule(dm, "two", t + 2 * HOUR).ok).toBe(true);
    const third = schedule(dm, "three", t + 3 * HOUR);
    expect(third).toMatchObject({
      ok: false,
      reason: "this chat already has 2 pending intentions, the most it may have",
    });
    h.gemini.respondWith(() => plan({ kind: "send", text: "just checking in" }));
    await h.pass(2 * HOUR + MIN); // both fire and speak; carol answers neither
    expect(h.sent(dm).map((m) => m.text)).toEqual(["sure!", "just checking in", "just checking in"]);
    const before = planRequests();
    const fourth = schedule(dm, "four", h.clock.now() + HOUR);
    await h.pass(HOUR + MIN);
    expect(planRequests()).toBe(before);
    expect(h.runtime.intentionStore.get(fourth.intention.id)?.reason).toBe(
      "skipped: backed off: no answer to the last 2 proactive messages",
    );
    // Once she writes, the persona may follow up again.
    h.gemini.script(plan({ kind: "send", text: "great" }));
    await h.emu.post({ chat: dm, from: h.carol, text: "sorry, was busy" });
    await h.pass(MIN);
    const fifth = schedule(dm, "five", h.clock.now() + HOUR);
    await h.pass(HOUR + MIN);
    expect(h.runtime.intentionStore.get(fifth.intention.id)?.state).toBe("fired");
  });

  it("the (M+1)th proactive call of a day is refused when set, and skipped when due", async () => {
    h = await Harness.start({ persona: `${BERLIN}\n# Proactive Per Day\n1\n`, tickMs: 1000 });
    const dm = await dmWithCarol();
    const t = h.clock.now();
    expect(schedule(dm, "one", t + HOUR).ok).toBe(true);
    expect(schedule(dm, "two", t + 2 * HOUR)).toMatchObject({
      ok: false,
      reason: "2026-11-22 already has 1 follow-up, the most a day may have",
    });
    // Another day's intention moved onto that day is skipped when due (the day's call is spent).
    const other = schedule(dm, "three", t + 30 * HOUR);
    h.gemini.respondWith(() => plan({ kind: "send", text: "hey" }));
    await h.pass(HOUR + MIN);
    h.runtime.intentions.reschedule(other.intention.id, h.clock.now() + HOUR);
    await h.pass(HOUR + MIN);
    expect(h.runtime.intentionStore.get(other.intention.id)?.reason).toBe(
      "skipped: cap: 1 proactive call today already (# Proactive Per Day)",
    );
  });

  it("the owner lists them with ids (/intentions) and drops one (/cancel <id>): it never fires", async () => {
    h = await Harness.start({ persona: BERLIN, tickMs: 1000 });
    const dm = await dmWithCarol();
    const a = schedule(dm, "ask carol how the exam went", Date.parse("2026-11-23T17:00:00Z"));
    const b = schedule(dm, "send carol the recipe", Date.parse("2026-11-22T15:00:00Z"));
    await h.ownerSays("/intentions");
    await h.pass(5_000);
    expect(h.savedReplies().at(-1)).toBe(
      [
        "Pending (2), soonest first:",
        `- #${b.intention.id} in the private chat with Carol, due 2026-11-22 16:00 (Europe/Berlin): send carol the recipe`,
        `- #${a.intention.id} in the private chat with Carol, due 2026-11-23 18:00 (Europe/Berlin): ask carol how the exam went`,
        "/cancel <id> drops one.",
      ].join("\n"),
    );
    await h.ownerSays(`/cancel ${b.intention.id}`);
    await h.pass(5_000);
    expect(h.savedReplies().at(-1)).toBe(`Intention #${b.intention.id} cancelled: send carol the recipe`);
    await h.ownerSays(`/cancel ${b.intention.id}`);
    await h.pass(5_000);
    expect(h.savedReplies().at(-1)).toBe(
      `No pending intention #${b.intention.id}. /intentions lists them with their ids.`,
    );
    const before = planRequests();
    await h.pass(4 * HOUR);
    expect(planRequests()).toBe(before);
    await h.ownerSays("/intentions");
    await h.pass(5_000);
    expect(h.savedReplies().at(-1)).toContain(
      `Lately:\n- #${b.intention.id} in the private chat with Carol, due 2026-11-22 16:00 (Europe/Berlin), cancelled by the owner: send carol the recipe`,
    );
  });
});
