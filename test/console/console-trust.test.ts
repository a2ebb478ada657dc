/**
 * What the operator reads on the Now view and a chat page is what happened (the review of issue
 * 30), in Chromium on the emulator with real GramJS and the Gemini fake: a task the admission gate
 * refused for a cap shows the "cap" badge, a superseded planning round is not shown as a plan, the
 * Cancel answer counts what went with the task, the timers count down.
 */
import { describe, expect, it } from "vitest";

import { withScreenshot } from "./browser";
import { consoleRig } from "./rig";

const TOKEN = "console-trust-token-0123456789";
const rig = consoleRig(TOKEN);

describe("the Now view tells what happened", () => {
  it("a planning round the admission gate refused for a cap shows the cap badge in the activity feed", async () => {
    const { page, base } = await rig.open();
    await withScreenshot(page, "console-cap-badge", async () => {
      const h = rig.h;
      // Admitted on arrival; by the time its planning round starts, the day's tokens are spent.
      const ask = await h.emu.post({ chat: h.group, from: h.alice, text: "@mira_ai lunch?" });
      h.runtime.usage.record(
        {
          purpose: "plan",
          model: "gemini-2.5-flash",
          promptTokens: 3_000_000,
          outputTokens: 0,
          thinkingTokens: 0,
        },
        h.clock.now(),
      );
      await h.pass(30_000);
      expect(h.gemini.requests).toHaveLength(0);
      await page.goto(`${base}/console/#now`);
      const cap = page.locator(".activity .event.cap");
      await cap.waitFor();
      expect(await cap.locator(".badge").textContent()).toBe("cap");
      expect(await cap.textContent()).toContain("not admitted: daily-token-budget");
      expect(await cap.locator("a.goto").textContent()).toBe(`#${ask.id}`);
      expect(await page.locator(".activity .event.cancelled").count()).toBe(0);
    });
  }, 60_000);
});
