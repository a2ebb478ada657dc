import { afterEach, describe, expect, it, vi } from "vitest";
import { isPlanRequest } from "../support/gemini-fake";
import { Harness, plan, TEST_PERSONA } from "../support/harness";

/**
 * The persona's day on the real runtime (emulator, GramJS, the Gemini fake, a fake clock):
 * asleep (`# Sleep`), a DM waits for the morning — no read receipt, no planning call, offline —
 * and is answered after waking; online only while it reads and answers (account.updateStatus,
 * as the emulator shows it to others); busy (`# Busy`), it reads and starts typing later.
 */
const MIN = 60_000;
const SLEEPY = `${TEST_PERSONA}\n# Time Zone\nEurope/Berlin\n# Sleep\n23:30-07:30\n# Busy\n09:00-17:00 slow\n`;

let h: Harness;
afterEach(async () => {
  await h?.close();
});
// Hours of fake time pass in these tests.
vi.setConfig({ testTimeout: 120_000 });

const at = (iso: string) => Date.parse(iso);
const methodsAt = (method: string) =>
  h.emu.traffic.requests.filter((r) => r.method === method && r.account.id === h.account.id).map((r) => r.at);

describe("a daily rhythm", () => {
  it("a DM at 02:00 is answered after 07:30, read not before; offline at night, online while answering", async () => {
    // 2026-11-22 12:00 UTC is 13:00 in Berlin (UTC+1); the harness's clock starts there.
    h = await Harness.start({ persona: SLEEPY, tickMs: 1000 });
    const dm = h.emu.dm(h.account, h.carol);
    h.gemini.respondWith((body) =>
      isPlanRequest(body) ? plan({ kind: "send", text: "morning! yes, all good" }) : plan(),
    );
    // An evening chat (22:00 Berlin): online while answering, offline once quiet.
    await h.pass(at("2026-11-22T21:00:00Z") - h.clock.now());
    await h.emu.post({ chat: dm, from: h.carol, text: "still up?" });
    await h.pass(5 * MIN);
    expect(h.sent(dm).map((m) => m.text)).toEqual(["morning! yes, all good"]);
    expect(h.emu.presence.log(h.account).map((s) => s.offline)).toEqual([false, true]);
    expect(h.emu.presence.of(h.carol)).toEqual({ state: "recently" });

    // 02:00 Berlin: asleep.
    await h.pass(at("2026-11-23T01:00:00Z") - h.clock.now());
    const plansBefore = h.gemini.requests.filter((r) => isPlanRequest(r.body)).length;
    const readsBefore = methodsAt("messages.ReadHistory").length;
    await h.emu.post({ chat: dm, from: h.carol, text: "are you awake? need advice" });
    await h.pass(at("2026-11-23T06:29:00Z") - h.clock.now()); // 07:29 Berlin
    expect(h.gemini.requests.filter((r) => isPlanRequest(r.body))).toHaveLength(plansBefore);
    expect(methodsAt("messages.ReadHistory")).toHaveLength(readsBefore);
    expect(h.emu.presence.of(h.account).state).toBe("offline");
    expect(h.emu.presence.log(h.account)).toHaveLength(2); // nothing at night

    // 07:30: it wakes, reads (after its read delay), answers; online from its first look.
    await h.pass(10 * MIN);
    expect(h.sent(dm).map((m) => m.text)).toEqual(["morning! yes, all good", "morning! yes, all good"]);
    const wake = at("2026-11-23T06:30:00Z");
    const reads = methodsAt("messages.ReadHistory").slice(readsBefore);
    expect(reads).toHaveLength(1);
    expect(reads[0]).toBeGreaterThanOrEqual(wake);
    const statuses = h.emu.presence.log(h.account).slice(2);
    expect(statuses.map((s) => s.offline)).toEqual([false, true]);
    expect(statuses[0]!.at).toBeGreaterThanOrEqual(wake);
    expect(statuses[0]!.at).toBeLessThanOrEqual(reads[0]!);
    const sentAt = methodsAt("messages.SendMessage").at(-1)!;
    expect(statuses[1]!.at).toBeGreaterThan(sentAt); // offline only after the answer went out
    // The planning request was made after waking, and the message counted as fresh (not too old).
    expect(h.gemini.requests.filter((r) => isPlanRequest(r.body))).toHaveLength(plansBefore + 1);
  });

  it("busy (slow): the read mark and the typing start come three times later", async () => {
    h = await Harness.start({ persona: SLEEPY, tickMs: 1000 });
    const dm = h.emu.dm(h.account, h.carol);
    h.gemini.respondWith((body) => (isPlanRequest(body) ? plan({ kind: "send", text: "ok" }) : plan()));
    // 10:00 Berlin: busy, slow.
    await h.pass(at("2026-11-23T09:00:00Z") - h.clock.now());
    const t0 = h.clock.now();
    await h.emu.post({ chat: dm, from: h.carol, text: "quick question" });
    await h.pass(2 * MIN);
    const read = methodsAt("messages.ReadHistory").find((x) => x >= t0)!;
    const typed = h.emu.traffic.typing().find((t) => t.at >= t0)!;
    expect(read - t0).toBe(6_000); // # Read Delay 2 s × 3
    // Planned after the quiet window (3 s), then a wait of # Start Typing Delay 1 s × (3 − 1).
    expect(typed.at - t0).toBeGreaterThanOrEqual(5_000);
    expect(h.sent(dm).map((m) => m.text)).toEqual(["ok"]);
  });

  it("an intention due in its sleep waits for the morning", async () => {
    h = await Harness.start({ persona: SLEEPY, tickMs: 1000 });
    const dm = h.emu.dm(h.account, h.carol);
    h.gemini.respondWith((body) => (isPlanRequest(body) ? plan({ kind: "send", text: "hi" }) : plan()));
    await h.emu.post({ chat: dm, from: h.carol, text: "hello" });
    await h.pass(MIN);
    const due = at("2026-11-23T02:00:00Z"); // 03:00 Berlin
    const s = h.runtime.intentions.schedule({
      chatId: dm.peerId,
      note: "say good morning",
      dueAt: due,
      setAt: h.clock.now(),
    });
    await h.pass(at("2026-11-23T04:00:00Z") - h.clock.now());
    expect(h.runtime.intentionStore.get(s.intention.id)).toMatchObject({
      state: "pending",
      notBefore: at("2026-11-23T06:30:00Z"),
      reason: "held: asleep until 07:30",
    });
    expect(h.sent(dm)).toHaveLength(1);
    await h.pass(at("2026-11-23T06:35:00Z") - h.clock.now());
    expect(h.runtime.intentionStore.get(s.intention.id)?.state).toBe("fired");
    const mine = h.emu.history(dm).filter((m) => m.fromId === h.account.id);
    expect(mine).toHaveLength(2);
    expect(mine[1]!.date).toBeGreaterThanOrEqual(at("2026-11-23T06:30:00Z"));
  });
});
