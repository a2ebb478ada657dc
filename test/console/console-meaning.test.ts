/**
 * The console's Memory page says how far recall by meaning's background embedding is — the line
 * `/status` gives — and follows it while memories wait, in a real browser, with the Gemini fake's
 * embeddings through the real SDK.
 */
import { describe, expect, it } from "vitest";
import { withScreenshot } from "./browser";
import { consoleRig } from "./rig";

const TOKEN = "console-meaning-token-0123456789";
const KEY = "gemini:gemini-embedding-001@128";

const rig = consoleRig(TOKEN);

describe("the console's Memory page and recall by meaning", () => {
  it("shows how many memories are embedded, and follows the background embedding to the end", async () => {
    const { page, base } = await rig.open({ embeddings: { dimensions: 128 } });
    const now = rig.h.clock.now();
    // More than one batch (16 a call, one call per 2 s): the backlog takes a few calls.
    for (let i = 0; i < 20; i++)
      rig.h.runtime.memories.remember({
        chatId: rig.h.group.peerId,
        content: `the group talked about kites and rivers on day ${i}`,
        now: now + i,
        byOwner: true,
      });
    const line = page.locator("#meaning-progress");
    await withScreenshot(page, "console-meaning", async () => {
      await page.goto(`${base}/console/#memory`);
      await expect
        .poll(() => line.allTextContents())
        .toEqual([`Recall by meaning: 0 of 20 memories embedded (${KEY}), the rest in the background`]);
      await rig.h.pass(20_000); // the background embeds the backlog
      expect(rig.h.gemini.embedRequests.length).toBeGreaterThanOrEqual(2);
      await expect
        .poll(() => line.allTextContents(), { timeout: 15_000 })
        .toEqual([`Recall by meaning: 20 of 20 memories embedded (${KEY})`]);
    });
  }, 60_000);

  it("without an embedding model, says that memories are found by their words", async () => {
    const { page, base } = await rig.open();
    await page.goto(`${base}/console/#memory`);
    await expect
      .poll(() => page.locator("#meaning-progress").allTextContents())
      .toEqual(["Recall by meaning: off (no embedding model); memories are found by their words"]);
  }, 60_000);
});
