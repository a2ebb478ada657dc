/**
 * Bounded plans: one answer is a few messages, not a flood, and it comes now, not a day later —
 * whatever plan the model returns. Crafted plans from the Gemini fake, real GramJS on the
 * emulator, a fake clock; the assertions are on what the account sent and when.
 */
import { afterEach, describe, expect, it } from "vitest";
import { PLAN_BOUNDS } from "../../src/planning/expand-plan";
import { Harness, plan } from "../support/harness";

let h: Harness;
afterEach(async () => {
  await h?.close();
});

/** The warning lines logged so far (what the operator sees of a bounded plan). */
const warnings = () => h.log.lines().filter((l) => l.level === 40);

describe("bounded plans", () => {
  it("a plan of 20 sends of 16 KB each sends at most 6 messages and 8,192 characters, with one warning", async () => {
    h = await Harness.start();
    const huge = (k: number) => `${k} `.padEnd(16_384, "lorem ipsum dolor sit amet. ");
    h.gemini.script(plan(...Array.from({ length: 20 }, (_, k) => ({ kind: "send", text: huge(k) }))));
    await h.emu.post({ chat: h.group, from: h.alice, text: "@mira_ai tell me everything" });
    await h.pass(10 * 60_000);
    const sent = h.sent(h.group);
    expect(sent.length).toBeGreaterThan(0);
    expect(sent.length).toBeLessThanOrEqual(PLAN_BOUNDS.messages);
    expect(sent.reduce((n, m) => n + m.text.length, 0)).toBeLessThanOrEqual(PLAN_BOUNDS.chars);
    expect(sent.at(-1)!.text.endsWith("…")).toBe(true);
    expect(warnings()).toHaveLength(1);
    expect(PLAN_BOUNDS).toEqual({ messages: 6, chars: 8192, waitSec: 600, reactions: 3, remembers: 3 }); // as the README documents
  });

  it("a plan of 19 one-hour waits and a send sends within the plan's 10 minutes of waiting", async () => {
    h = await Harness.start();
    h.gemini.script(
      plan(...Array.from({ length: 19 }, () => ({ kind: "wait", seconds: 3600 })), {
        kind: "send",
        text: "finally",
      }),
    );
    const asked = await h.emu.post({ chat: h.group, from: h.alice, text: "@mira_ai wait for it" });
    await h.pass(5 * 60_000);
    expect(h.sent(h.group)).toEqual([]);
    await h.pass(10 * 60_000);
    expect(h.sent(h.group).map((m) => m.text)).toEqual(["finally"]);
    const at = h.emu.traffic.requests.find((r) => r.method === "messages.SendMessage")!.at;
    // The quiet window, the read mark, 600 s of waiting, the typing: well under the answer-age limit.
    expect(at - asked.date * 1000).toBeLessThan(PLAN_BOUNDS.waitSec * 1000 + 60_000);
    expect(warnings()).toHaveLength(1);
  });

  it("a send that would go out past the answer-age limit is dropped with one log line", async () => {
    // An answer-age limit of 5 minutes; the plan waits (within its bound) until past it.
    h = await Harness.start({ maxAnswerAgeMs: 5 * 60_000 });
    h.gemini.script(
      plan(
        { kind: "send", text: "first, in time" },
        { kind: "wait", seconds: 400 },
        { kind: "send", text: "too late" },
        { kind: "sticker", set: "MiraCats", emoji: "😺" },
      ),
    );
    await h.emu.post({ chat: h.group, from: h.alice, text: "@mira_ai answer in two parts" });
    await h.pass(20 * 60_000);
    expect(h.sent(h.group).map((m) => m.text)).toEqual(["first, in time"]);
    // No typing for the late part either: it is checked before its typing starts.
    expect(h.emu.traffic.typing(h.group).filter((t) => t.action === "SendMessageTypingAction")).toHaveLength(
      1,
    );
    // One line says why the rest of the plan was dropped (the limit, and how old the message was).
    expect(h.log.lines().filter((l) => l.maxAgeSec !== undefined)).toEqual([
      expect.objectContaining({ kind: "typing", ageSec: expect.any(Number), maxAgeSec: 300 }),
    ]);
  });
});
