/**
 * Links that lead somewhere, and a page that stays put (the review of issue 30), in Chromium on the
 * emulator with real GramJS and the Gemini fake: a permalink or a plan link to something older
 * than the chat's newest 100 messages opens the page around it; "older messages" pages back; a
 * live update never cancels the page being loaded; the view and the focus stay where the reader
 * left them.
 */
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import type { EmuChat } from "../../emulator";
import { plan, type Harness } from "../support/harness";
import { withScreenshot } from "./browser";
import { consoleRig } from "./rig";

const TOKEN = "console-paging-token-0123456789";
const rig = consoleRig(TOKEN);

const chatUrl = (base: string, chatId: string) => `${base}/console/#chat/Mira/${encodeURIComponent(chatId)}`;

/** `n` messages of chatter in a chat (strict mode: no call, nothing planned); their ids. */
async function chatter(h: Harness, chat: EmuChat, n: number, what = "chatter"): Promise<number[]> {
  const ids: number[] = [];
  for (let i = 0; i < n; i++)
    ids.push((await h.emu.post({ chat, from: i % 2 ? h.bob : h.carol, text: `${what} ${i}` })).id);
  await h.pass(2000);
  return ids;
}

describe("links to older messages and plans", () => {
  it("a permalink to a message older than the newest 100 opens the page around it; 'older messages' pages back", async () => {
    const { page, base } = await rig.open();
    await withScreenshot(page, "console-paging-permalink", async () => {
      const h = rig.h;
      const ids = await chatter(h, h.group, 130);
      const old = ids[5]!;
      await page.goto(`${chatUrl(base, h.group.peerId)}/msg/${old}`);
      const target = page.locator(`#m-${old}`);
      await target.waitFor();
      expect(await target.getAttribute("class")).toContain("target");
      expect(await page.locator("#notice").textContent()).toBe("");
      // The page around it links back to the newest messages.
      expect(await page.locator("#newest").getAttribute("href")).toBe(
        `#chat/Mira/${encodeURIComponent(h.group.peerId)}`,
      );

      // The newest page does not hold it; its "older messages" link pages back to it.
      await page.goto(chatUrl(base, h.group.peerId));
      await page.locator(`#m-${ids[129]!}`).waitFor();
      expect(await page.locator(`#m-${old}`).count()).toBe(0);
      await page.locator("#older").click();
      await page.locator(`#m-${old}`).waitFor();
      expect(page.url()).toContain("/before/");
      expect(await page.locator(`#m-${ids[129]!}`).count()).toBe(0);
      expect(await page.locator("#older").count()).toBe(0); // nothing older than the first messages
    });
  }, 90_000);

  it("the activity feed's plan link opens a plan older than the chat's newest 100 messages, marked", async () => {
    const { page, base } = await rig.open();
    await withScreenshot(page, "console-paging-plan", async () => {
      const h = rig.h;
      h.gemini.script(plan({ kind: "send", text: "long ago" }));
      const ask = await h.emu.post({ chat: h.group, from: h.alice, text: "@mira_ai lunch?" });
      await h.pass(30_000);
      expect(h.sent(h.group).map((m) => m.text)).toEqual(["long ago"]);
      await chatter(h, h.group, 120, "later");
      await page.goto(`${base}/console/#now`);
      const link = page.locator(".activity .event.plan a.goto");
      await link.waitFor();
      expect(await link.textContent()).toBe("plan 1");
      await link.click();
      const shown = page.locator('.plan[data-plan-no="1"]');
      await shown.waitFor();
      await expect.poll(() => shown.getAttribute("class")).toContain("target");
      expect(await page.locator(`#m-${ask.id}`).count()).toBe(1);
      expect(await page.locator("#notice").textContent()).toBe("");
    });
  }, 90_000);
});

/** Where an element is in the window: its top, and whether any of it is in view. */
async function placeOf(page: Page, selector: string): Promise<{ top: number; inView: boolean }> {
  return page.locator(selector).evaluate((e) => {
    const r = e.getBoundingClientRect();
    const h = (globalThis as unknown as { innerHeight: number }).innerHeight;
    return { top: r.top, inView: r.bottom > 0 && r.top < h };
  });
}

describe("a live update never undoes a page load", () => {
  it("a change arriving while a /msg/ address loads leaves that page scrolled to its message", async () => {
    const { page, base } = await rig.open();
    await withScreenshot(page, "console-live-race", async () => {
      const h = rig.h;
      const ids = await chatter(h, h.group, 80);
      const old = ids[10]!;
      await page.goto(`${base}/console/#now`);
      await page.locator(".card.now").waitFor();
      // The page around the message answers slowly; the live update's load, asked for meanwhile, at once.
      let delayed = 0;
      await page.route("**/console/api/chat?**", async (route) => {
        if (delayed++ === 0) await new Promise((r) => setTimeout(r, 2500));
        await route.continue();
      });
      const slow = page.waitForResponse((r) => r.url().includes(`around=${old}`));
      await page.evaluate(
        ([chat, id]) => {
          const w = globalThis as unknown as { location: { hash: string } };
          w.location.hash = `#chat/Mira/${chat}/msg/${id}`;
        },
        [h.group.peerId, old] as const,
      );
      // Something happens in the chat while the page loads: the stream tells the page, which
      // loads the chat again for it.
      await h.emu.post({ chat: h.group, from: h.alice, text: "meanwhile" });
      await h.pass(1000);
      await (await slow).finished();
      await page.locator(`#m-${old}.target`).waitFor();
      await expect.poll(() => delayed, { timeout: 10_000 }).toBeGreaterThanOrEqual(2);
      await page.evaluate(() => new Promise((r) => setTimeout(r, 300))); // its answer drawn
      expect((await placeOf(page, `#m-${old}`)).inView).toBe(true);
      expect(
        await page.evaluate(() => (globalThis as unknown as { scrollY: number }).scrollY),
      ).toBeGreaterThan(0);
    });
  }, 90_000);
});

describe("a live update leaves the view and the focus where they were", () => {
  it("the Now view's feed: what the reader scrolled to stays in place when a new event comes in above it", async () => {
    const { page, base } = await rig.open();
    await withScreenshot(page, "console-now-anchor", async () => {
      const h = rig.h;
      // Mentions in a paused chat: each is refused on arrival, a line of the feed, no Gemini call.
      await chatter(h, h.group, 1); // the chat is known
      expect(h.runtime.command(`/pause ${h.group.peerId}`)).toMatch(/^Paused in/);
      for (let i = 0; i < 40; i++) await h.emu.post({ chat: h.group, from: h.alice, text: `@mira_ai ${i}?` });
      await h.pass(2000);
      await page.setViewportSize({ width: 1000, height: 500 });
      await page.goto(`${base}/console/#now`);
      const events = page.locator(".activity .event.refusal");
      await expect.poll(() => events.count()).toBe(40);
      // The reader scrolls down to the 20th event.
      const looked = events.nth(20);
      const seq = await looked.getAttribute("data-anchor");
      await looked.evaluate((e) => e.scrollIntoView({ block: "start" }));
      const at = await placeOf(page, `[data-anchor="${seq}"]`);
      await h.emu.post({ chat: h.group, from: h.bob, text: "@mira_ai and me?" });
      await h.pass(1000);
      await expect.poll(() => events.count()).toBe(41);
      await page.evaluate(() => new Promise((r) => setTimeout(r, 50))); // drawn
      // Within a pixel: the browser scrolls by whole device pixels, the layout is fractional.
      const moved = (await placeOf(page, `[data-anchor="${seq}"]`)).top - at.top;
      expect(Math.abs(moved)).toBeLessThanOrEqual(1);
    });
  }, 90_000);

  it("a reader at the top of a chat stays at the top and sees the new message; a focused permalink keeps the focus, not an earlier link to the same message", async () => {
    const { page, base } = await rig.open();
    await withScreenshot(page, "console-top-focus", async () => {
      const h = rig.h;
      await chatter(h, h.group, 30);
      const asked = await h.emu.post({ chat: h.group, from: h.alice, text: "who wants tea?" });
      // A reply to it, newer: its "reply to" link comes first on the page (newest first) and has
      // the same address as the asked message's own permalink.
      await h.emu.post({ chat: h.group, from: h.bob, text: "me", replyTo: asked.id });
      await h.pass(1000);
      await page.goto(chatUrl(base, h.group.peerId));
      const permalink = page.locator(`#m-${asked.id} a.permalink`);
      await permalink.waitFor();
      await permalink.focus();
      await page.evaluate(() =>
        (globalThis as unknown as { scrollTo(x: number, y: number): void }).scrollTo(0, 0),
      );
      const later = await h.emu.post({ chat: h.group, from: h.carol, text: "and me" });
      await h.pass(1000);
      await page.locator(`#m-${later.id}`).waitFor();
      await page.evaluate(() => new Promise((r) => setTimeout(r, 50))); // drawn
      expect(await page.evaluate(() => (globalThis as unknown as { scrollY: number }).scrollY)).toBe(0);
      expect((await placeOf(page, `#m-${later.id}`)).inView).toBe(true);
      const focused = await page.evaluate(() => {
        type Node = { className: string; closest(s: string): { id: string } | null };
        const a = (globalThis as unknown as { document: { activeElement: Node | null } }).document
          .activeElement;
        return { cls: a?.className ?? "", article: a?.closest("article")?.id ?? "" };
      });
      expect(focused).toEqual({ cls: "permalink", article: `m-${asked.id}` });
    });
  }, 90_000);
});
