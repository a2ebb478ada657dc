import { describe, expect, it } from "vitest";
import { requestPurpose } from "../support/gemini-fake";
import { TEST_PERSONA } from "../support/harness";
import { consoleRig } from "./rig";

const TOKEN = "console-test-token-0123456789";
const rig = consoleRig(TOKEN);

describe("the console's chat page: how she is received", () => {
  it('shows that she was told to stop in a group, and "Forget how she was received" lets her join in again', async () => {
    const { page, base, h } = await rig.open({ persona: `${TEST_PERSONA}\n# Group Mode\ntalkative\n` });
    h.gemini.respondWith((body, _i, model) =>
      requestPurpose(body) === "address" || model === "gemini-2.5-flash-lite"
        ? {
            json: {
              reason: "talk between others",
              addressed: false,
              confidence: 0.1,
              wanna_interject: true,
              interject: 0.9,
              is_lightweight: false,
            },
          }
        : { json: { tasks: [{ kind: "send", text: "count me in!" }] } },
    );
    await h.emu.post({ chat: h.group, from: h.alice, text: "who's up for pizza tonight?" });
    await h.pass(60_000);
    await h.emu.post({ chat: h.group, from: h.bob, text: "nobody asked" });
    await h.pass(60_000);
    expect(h.runtime.reception.of(h.group.peerId)?.state).toBe("rejected");

    await page.goto(`${base}/console/#chat/Mira/${encodeURIComponent(h.group.peerId)}`);
    const line = page.locator("#chat-reception");
    await line.waitFor();
    expect(await line.textContent()).toMatch(
      /Told to stop in .*"nobody asked".*not joining in unasked until/,
    );
    await page.locator("#reception-reset").click();
    await expect.poll(() => h.runtime.reception.of(h.group.peerId)).toBeUndefined();
    await expect.poll(() => page.locator("#chat-reception").count()).toBe(0);
  }, 60_000);
});
