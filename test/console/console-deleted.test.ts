/**
 * Issue 38, point 2: a question its asker deleted before she answered — the console's chat page
 * marks it deleted and says why it was not answered (in Chromium, on the emulator with real
 * GramJS and the Gemini fake).
 */
import { describe, expect, it } from "vitest";
import { plan } from "../support/harness";
import { latch, until } from "../support/wait";
import { withScreenshot } from "./browser";
import { consoleRig } from "./rig";

const TOKEN = "console-deleted-token-0123456789";

const rig = consoleRig(TOKEN);

describe("a question deleted before she answered, on the console", () => {
  it("the message is marked deleted and its why says it was deleted before she answered", async () => {
    const { page, base } = await rig.open();
    await withScreenshot(page, "console-deleted", async () => {
      const h = rig.h;
      const gate = latch();
      h.gemini.script({ after: gate.promise, then: plan({ kind: "send", text: "Sure: 12 Elm Street" }) });
      const ask = await h.emu.post({ chat: h.group, from: h.alice, text: "@mira_ai what's your address?" });
      const passing = h.pass(3200);
      await until(() => h.gemini.requests.length === 1);
      await h.emu.chats.deleteMessages(h.group, [ask.id]);
      gate.release();
      await passing;
      await h.pass(20_000);
      expect(h.sent(h.group)).toEqual([]);
      await page.goto(`${base}/console/#chat/Mira/${encodeURIComponent(h.group.peerId)}`);
      const row = page.locator(`[data-message-id="${ask.id}"]`);
      const why = row.locator(".why");
      await why.waitFor();
      expect(await why.textContent()).toContain("deleted by its author before she answered: not answered");
      expect(await row.textContent()).toContain("deleted");
    });
  }, 60_000);
});
