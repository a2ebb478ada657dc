/**
 * The persona's own life in the console (issue 29), in Chromium on the emulator with real GramJS
 * and the Gemini fake: the Now page lists its intentions with their due times and states, and
 * cancels or reschedules one; the Personas page shows today's rhythm.
 */
import { describe, expect, it } from "vitest";
import { plan, TEST_PERSONA } from "../support/harness";
import { withScreenshot } from "./browser";
import { consoleRig } from "./rig";

const TOKEN = "console-intentions-token-0123456789";
const rig = consoleRig(TOKEN);
const PERSONA = `${TEST_PERSONA}\n# Time Zone\nEurope/Berlin\n# Sleep\n23:30-07:30\n# Busy\n09:00-17:00 slow\n`;

describe("intentions and the day in the console", () => {
  it("lists intentions with due time and state, cancels one, reschedules another, shows what became of them", async () => {
    const { page, base } = await rig.open({ persona: PERSONA });
    await withScreenshot(page, "console-intentions", async () => {
      const h = rig.h;
      const dm = h.emu.dm(h.account, h.carol);
      h.gemini.script(plan({ kind: "send", text: "hi carol" }));
      await h.emu.post({ chat: dm, from: h.carol, text: "hi Mira" });
      await h.pass(30_000);
      const now = h.clock.now(); // 13:00 in Berlin
      const keep = h.runtime.intentions.schedule({
        chatId: dm.peerId,
        note: "ask carol how the exam went",
        dueAt: now + 5 * 3_600_000,
        setAt: now,
      });
      const drop = h.runtime.intentions.schedule({
        chatId: dm.peerId,
        note: "send carol the recipe",
        dueAt: now + 2 * 3_600_000,
        setAt: now,
      });
      await page.goto(`${base}/console/#now`);
      const rows = page.locator("table.intentions tr.intention");
      await expect.poll(() => rows.count()).toBe(2);
      await expect.poll(() => rows.nth(0).locator(".note").textContent()).toBe("send carol the recipe");
      expect(await rows.nth(0).locator(".due").textContent()).toMatch(
        /^2026-11-22 15:00 \(in (2 h|1\d\d min)\)$/,
      );
      expect(await rows.nth(0).getAttribute("data-state")).toBe("pending");
      await expect
        .poll(() => page.locator("span.day").textContent())
        .toBe(
          "it is 2026-11-22 13:00 (Europe/Berlin): busy (slow) until 17:00 · sleeps 23:30-07:30 · busy 09:00-17:00 slow · presence: online",
        );
      // Type a new time (16:00 Berlin) for the second; cancel the first meanwhile: the page's
      // refresh after the cancel keeps what was typed. Then move it, and let it fire.
      const moved = page.locator(`tr[data-intention-id="${keep.intention.id}"]`);
      await moved.locator("input.reschedule-at").fill("2026-11-22 16:00");
      await page.locator(`tr[data-intention-id="${drop.intention.id}"] button.cancel-intention`).click();
      await expect
        .poll(() => page.locator("#notice").textContent())
        .toBe(`Intention #${drop.intention.id} cancelled: send carol the recipe`);
      await expect
        .poll(() => page.locator(`tr[data-intention-id="${drop.intention.id}"]`).getAttribute("data-state"))
        .toBe("cancelled");
      expect(await moved.locator("input.reschedule-at").inputValue()).toBe("2026-11-22 16:00");
      await moved.locator("button.reschedule-intention").click();
      await expect
        .poll(() => page.locator("#notice").textContent())
        .toBe(
          `Intention #${keep.intention.id} moved to 2026-11-22 16:00 (Europe/Berlin): ask carol how the exam went`,
        );
      h.gemini.script(plan({ kind: "send", text: "so, how did the exam go?" }));
      await h.pass(3 * 3_600_000 + 60_000);
      expect(h.sent(dm).map((m) => m.text)).toEqual(["hi carol", "so, how did the exam go?"]);
      await expect
        .poll(() => page.locator(`tr[data-intention-id="${keep.intention.id}"] .state`).textContent(), {
          timeout: 10_000,
        })
        .toBe("fired, wrote");
      const gone = page.locator(`tr[data-intention-id="${drop.intention.id}"]`);
      expect(await gone.getAttribute("data-state")).toBe("cancelled");
      expect(await gone.locator(".reason").textContent()).toBe("cancelled from the console");
      // A bad time is refused with the expected form.
      const res = await page.evaluate(async () => {
        const r = await fetch("/console/api/action", {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({
            persona: "Mira",
            action: "reschedule-intention",
            intention: 1,
            at: "tomorrow",
          }),
        });
        return r.status;
      });
      expect(res).toBeGreaterThanOrEqual(400);
      // As far ahead as a plan may set one, no further (a plan's bound is 90 days).
      const far = await page.evaluate(async () => {
        const session =
          (
            globalThis as unknown as { localStorage: { getItem(k: string): string | null } }
          ).localStorage.getItem("console-session") ?? "";
        const r = await fetch("/console/api/action", {
          method: "POST",
          headers: { "content-type": "application/json", "x-console-session": session },
          body: JSON.stringify({
            persona: "Mira",
            action: "reschedule-intention",
            intention: 1,
            at: "9999-12-31 23:59",
          }),
        });
        return { status: r.status, body: (await r.json()) as { error?: string } };
      });
      expect(far.status).toBe(400);
      expect(far.body.error).toContain("more than 90 days ahead");
    });
  }, 90_000);

  it("the Personas page shows today's rhythm: asleep at night, until when", async () => {
    const { page, base } = await rig.open({ persona: PERSONA });
    const h = rig.h;
    await h.pass(Date.parse("2026-11-23T01:00:00Z") - h.clock.now());
    await page.goto(`${base}/console/#personas`);
    const line = page.locator("p.rhythm span.day");
    await line.waitFor();
    expect(await line.getAttribute("data-state")).toBe("asleep");
    expect(await line.textContent()).toBe(
      "it is 2026-11-23 02:00 (Europe/Berlin): asleep until 07:30 · sleeps 23:30-07:30 · busy 09:00-17:00 slow · presence: offline",
    );
  }, 90_000);
});
