import { afterEach, describe, expect, it, vi } from "vitest";
import type { EmuChat } from "../../emulator";
import { isPlanRequest } from "../support/gemini-fake";
import { Harness, plan, TEST_PERSONA } from "../support/harness";

/**
 * How the model sets its own intentions, end to end (emulator, real GramJS, the Gemini fake, a
 * fake clock): a plan's `schedule` is stored; the chat's later requests show it ("what you
 * already mean to do"); when due a planning call carries the note as the persona's own; a bad
 * time, a cap and an unknown id are refused with a reason the next plan sees; `cancel_schedule`
 * drops one. (The engine's own rules — pause, grace, back-off: intentions-engine.test.ts.)
 */
const MIN = 60_000;
const HOUR = 60 * MIN;
const BERLIN = `${TEST_PERSONA}\n# Time Zone\nEurope/Berlin\n`;

let h: Harness;
afterEach(async () => {
  await h?.close();
});
vi.setConfig({ testTimeout: 120_000 });

const planIndexes = () => h.gemini.requests.flatMap((r, i) => (isPlanRequest(r.body) ? [i] : []));
const systemOf = (i: number) =>
  JSON.stringify((h.gemini.requests[i]!.body as { systemInstruction?: unknown }).systemInstruction);

async function carolSays(dm: EmuChat, text: string): Promise<number> {
  const m = await h.emu.post({ chat: dm, from: h.carol, text });
  await h.pass(30_000);
  return m.id;
}

describe("the persona sets its own intentions", () => {
  it('"remind me tomorrow at 9": set by the plan, shown after, due at 09:00 local once across a crash, the note its own', async () => {
    h = await Harness.start({ persona: BERLIN, tickMs: 1000 });
    const dm = h.emu.dm(h.account, h.carol);
    // 2026-11-22 13:00 in Berlin (UTC+1): tomorrow 09:00 is 08:00 UTC.
    const nine = Date.parse("2026-11-23T08:00:00Z");
    h.gemini.script(
      plan(
        { kind: "send", text: "sure, I'll remind you tomorrow at 9" },
        { kind: "schedule", note: "remind Carol of her dentist appointment at 10", at: "2026-11-23 09:00" },
      ),
    );
    const asked = await carolSays(dm, "dentist tomorrow at 10, remind me tomorrow at 9?");
    const first = planIndexes().at(-1)!;
    // The instruction offers the kind and says when to use it (no "never promise later").
    expect(systemOf(first)).toContain("schedule: act here later (reminders, follow-ups)");
    expect(systemOf(first)).toContain("promise to do something later only with schedule, never twice");
    expect(systemOf(first)).not.toContain("You act only when written to");
    const [set] = h.runtime.intentionStore.openIn(dm.peerId);
    expect(set).toMatchObject({
      note: "remind Carol of her dentist appointment at 10",
      dueAt: nine,
      state: "pending",
      inReplyTo: asked,
      forUser: String(h.carol.id),
    });

    // Later in the chat the persona sees what it already means to do (it does not promise twice).
    h.gemini.script(plan({ kind: "send", text: "see you!" }));
    await carolSays(dm, "thanks!!");
    expect(h.lastUserTurn()).toContain(
      `⟦your intentions⟧ What you already mean to do here later (cancel_schedule {id} drops one):\nid ${set!.id} · Mon 23 Nov 09:00: remind Carol of her dentist appointment at 10`,
    );

    // Down for the night; back at 06:00 local; nothing before 09:00.
    h.crash();
    await h.pass(Date.parse("2026-11-23T05:00:00Z") - h.clock.now());
    h.boot();
    await h.runtime.caughtUp;
    const before = planIndexes().length;
    h.gemini.respondWith(() => plan({ kind: "send", text: "good morning! dentist at 10 today 🦷" }));
    await h.pass(nine - MIN - h.clock.now());
    expect(planIndexes().length).toBe(before);
    await h.pass(2 * MIN);
    expect(planIndexes().length).toBe(before + 1);
    const due = h.lastUserTurn();
    expect(due).toContain(
      `⟦your intention, due now⟧ id ${set!.id}, set by you Sun 22 Nov 13:00, answering #${asked} [Carol], for 09:00: remind Carol of her dentist appointment at 10`,
    );
    expect(due).toContain("Your own note, not a message");
    expect(due).toMatch(/New for you: your intention \(id \d+\)\./);
    // Due, it is no longer among the pending ones.
    expect(due).not.toContain("⟦your intentions⟧");
    const mine = h.emu.history(dm).filter((m) => m.fromId === h.account.id);
    expect(mine.at(-1)!.text).toBe("good morning! dentist at 10 today 🦷");
    expect(Math.abs(mine.at(-1)!.date - nine)).toBeLessThanOrEqual(MIN);
    await h.pass(3 * HOUR);
    expect(planIndexes().length).toBe(before + 1);
    expect(h.runtime.intentionStore.get(set!.id)).toMatchObject({ state: "fired", spoke: true });
  });

  it("refusals the next plan sees: a time passed, over the chat's cap, an id not its own; cancel_schedule drops one", async () => {
    h = await Harness.start({ persona: `${BERLIN}\n# Intentions Per Chat\n1\n`, tickMs: 1000 });
    const dm = h.emu.dm(h.account, h.carol);
    h.gemini.script(
      plan(
        { kind: "send", text: "will do" },
        { kind: "schedule", note: "ask Carol how the exam went", after_minutes: 240 },
        { kind: "schedule", note: "send Carol the recipe", at: "2026-11-22 18:00" },
        { kind: "schedule", note: "wish Carol good night", at: "2026-11-22 08:00" },
        { kind: "cancel_schedule", id: 999 },
      ),
    );
    await carolSays(dm, "exam in 3 hours, wish me luck; and send me that recipe tonight");
    const open = h.runtime.intentionStore.openIn(dm.peerId);
    expect(open.map((i) => i.note)).toEqual(["ask Carol how the exam went"]);
    // 240 minutes from when it planned (a few seconds after she wrote at 13:00).
    expect(open[0]!.dueAt - Date.parse("2026-11-22T16:00:00Z")).toBeGreaterThanOrEqual(0);
    expect(open[0]!.dueAt - Date.parse("2026-11-22T16:00:00Z")).toBeLessThan(MIN);

    h.gemini.script(plan({ kind: "cancel_schedule", id: 999 }, { kind: "cancel_schedule", id: open[0]!.id }));
    await carolSays(dm, "exam got cancelled lol");
    const turn = h.lastUserTurn();
    expect(turn).toContain(
      'Your schedule "send Carol the recipe" was not set: this chat already has 1 pending intention, the most it may have',
    );
    expect(turn).toContain(
      "Your last plan's task 4 (schedule) was not done: at 2026-11-22 08:00 has passed: it is 2026-11-22 13:00 now",
    );
    expect(turn).toContain(
      // Nothing pending then: the schema did not offer the kind.
      'Your last plan\'s task 5 (cancel_schedule) was not done: unknown kind "cancel_schedule"',
    );
    expect(h.runtime.intentionStore.get(open[0]!.id)).toMatchObject({ state: "cancelled" });
    h.gemini.script(plan());
    await carolSays(dm, "so no need to ask");
    expect(h.lastUserTurn()).toContain(
      "Your last plan's task 1 (cancel_schedule) was not done: id 999 is not one of your pending intentions in this chat",
    );
    const before = planIndexes().length;
    await h.pass(5 * HOUR);
    expect(planIndexes().length).toBe(before);
  });

  it("the (M+1)th proactive call of a day is refused when the plan sets it, with the reason the next plan sees", async () => {
    h = await Harness.start({ persona: `${BERLIN}\n# Proactive Per Day\n1\n`, tickMs: 1000 });
    const dm = h.emu.dm(h.account, h.carol);
    h.gemini.script(
      plan(
        { kind: "schedule", note: "ask Carol how the exam went", at: "2026-11-22 17:00" },
        { kind: "schedule", note: "send Carol the recipe", at: "2026-11-22 19:00" },
        { kind: "schedule", note: "say good morning to Carol", at: "2026-11-23 08:00" },
      ),
    );
    await carolSays(dm, "exam at 4, and send me that recipe tonight");
    expect(h.runtime.intentionStore.openIn(dm.peerId).map((i) => i.note)).toEqual([
      "ask Carol how the exam went",
      "say good morning to Carol",
    ]);
    h.gemini.script(plan());
    await carolSays(dm, "ok");
    expect(h.lastUserTurn()).toContain(
      'Your schedule "send Carol the recipe" was not set: 2026-11-22 already has 1 follow-up, the most a day may have',
    );
  });

  it("a persona that may set none is not offered schedule and keeps the rule against promising", async () => {
    h = await Harness.start({ persona: `${BERLIN}\n# Intentions Per Chat\n0\n`, tickMs: 1000 });
    const dm = h.emu.dm(h.account, h.carol);
    h.gemini.script(plan({ kind: "schedule", note: "x", after_minutes: 5 }));
    await carolSays(dm, "remind me in 5 minutes");
    const i = planIndexes().at(-1)!;
    expect(systemOf(i)).toContain("You act only when written to");
    expect(systemOf(i)).not.toContain("schedule {");
    expect(h.runtime.intentionStore.openIn(dm.peerId)).toEqual([]);
  });
});
