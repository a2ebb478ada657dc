/**
 * The console an operator can trust (issue 30), in Chromium on the emulator with real GramJS and
 * the Gemini fake: a plan lists its tasks, a fast route change shows the right page, a live
 * update leaves an open details element open, the keyboard alone reaches a chat, the now view
 * shows a pending wait with its timer and cancelling it stops the send, and a bookmark works
 * after a restart (the persistent console secret).
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readEnv } from "../../src/config/env";
import { startListener } from "../../src/console/serve";
import { captureLogger } from "../support/log-capture";
import { plan } from "../support/harness";
import { tempDir } from "../support/temp-dir";
import { withScreenshot } from "./browser";
import { consoleRig } from "./rig";

const TOKEN = "console-now-token-0123456789";
const rig = consoleRig(TOKEN);

const chatUrl = (base: string, chatId: string) => `${base}/console/#chat/Mira/${encodeURIComponent(chatId)}`;

describe("a console an operator can trust", () => {
  it("lists a plan's tasks (by the plan's id), numbers plans per chat, and links the answer to its plan", async () => {
    const { page, base } = await rig.open();
    await withScreenshot(page, "console-plan-tasks", async () => {
      const h = rig.h;
      h.gemini.script(
        plan({ kind: "react", emoji: "👍", message_id: 2 }, { kind: "send", text: "first answer" }),
        plan({ kind: "send", text: "second answer" }),
      );
      const one = await h.emu.post({ chat: h.group, from: h.alice, text: "@mira_ai one?" });
      await h.pass(30_000);
      const two = await h.emu.post({ chat: h.group, from: h.bob, text: "@mira_ai two?" });
      await h.pass(30_000);
      expect(h.sent(h.group).map((m) => m.text)).toEqual(["first answer", "second answer"]);
      await page.goto(chatUrl(base, h.group.peerId));
      // Each plan sits beside the message it answered, with its own tasks (the typing, the send…).
      const first = page.locator(`.row:has([data-message-id="${one.id}"]) .plan`);
      await first.waitFor();
      expect(await first.getAttribute("data-plan-no")).toBe("1");
      const firstTasks = await first.locator("ul.tasks li").allTextContents();
      expect(firstTasks.join("\n")).toContain("react — done");
      expect(firstTasks.join("\n")).toContain("send — done");
      expect(firstTasks.join("\n")).toContain("first answer");
      expect(firstTasks.join("\n")).not.toContain("second answer");
      const second = page.locator(`.row:has([data-message-id="${two.id}"]) .plan`);
      expect(await second.getAttribute("data-plan-no")).toBe("2");
      expect((await second.locator("ul.tasks li").allTextContents()).join("\n")).toContain("second answer");
      // The why line links to the plan; following it marks that plan.
      const link = page.locator(`[data-message-id="${two.id}"] a.why-plan`);
      expect(await link.textContent()).toBe("plan 2");
      await link.click();
      await expect.poll(() => page.url()).toContain(`/plan/2`);
      await expect.poll(() => second.getAttribute("class")).toContain("target");
      // Newest first: the second question is above the first.
      const order = await page
        .locator("#messages article.msg")
        .evaluateAll((els) =>
          els.map((e) => Number((e as unknown as { dataset: { messageId: string } }).dataset.messageId)),
        );
      expect(order.indexOf(two.id)).toBeLessThan(order.indexOf(one.id));
    });
  }, 90_000);

  it("a fast route change shows the page gone to, never a late answer of the one left", async () => {
    const { page, base } = await rig.open();
    await withScreenshot(page, "console-fast-route", async () => {
      const h = rig.h;
      await h.emu.post({ chat: h.group, from: h.alice, text: "hello room" });
      await h.pass(1000);
      await page.goto(`${base}/console/#now`);
      await page.locator(".card.now").waitFor();
      // The chats list answers slowly; the chat page, asked for right after, answers at once.
      let slow = 0;
      await page.route("**/console/api/chats?**", async (route) => {
        slow++;
        await new Promise((r) => setTimeout(r, 1500));
        await route.continue();
      });
      const late = page.waitForResponse((r) => r.url().includes("/console/api/chats?"));
      await page.evaluate(() => {
        const w = globalThis as unknown as { location: { hash: string } };
        w.location.hash = "#chats";
      });
      await page.evaluate((chat) => {
        const w = globalThis as unknown as { location: { hash: string } };
        w.location.hash = `#chat/Mira/${chat}`;
      }, h.group.peerId);
      await page.locator("#messages").waitFor();
      await (await late).finished(); // the chats list has come back, after the chat page…
      await page.evaluate(() => new Promise((r) => setTimeout(r, 50))); // …and the page has read it
      expect(slow).toBeGreaterThan(0);
      expect(page.url()).toContain(`#chat/Mira/`);
      expect(await page.locator("#messages").count()).toBe(1);
      expect(await page.locator("#chats").count()).toBe(0);
    });
  }, 60_000);

  it("a live update leaves an open details element open and a typed field as it was", async () => {
    const { page, base } = await rig.open();
    await withScreenshot(page, "console-live-open", async () => {
      const h = rig.h;
      h.gemini.script(plan({ kind: "send", text: "noted" }));
      await h.emu.post({ chat: h.group, from: h.alice, text: "@mira_ai remember lunch" });
      await h.pass(30_000);
      await page.goto(chatUrl(base, h.group.peerId));
      const request = page.locator(".plan details.request").first();
      await request.waitFor();
      await request.locator("summary").click();
      expect(await request.evaluate((d) => (d as unknown as { open: boolean }).open)).toBe(true);
      await page.locator("#silence-minutes").fill("45");
      // Something happens in the chat: the page updates live.
      const later = await h.emu.post({ chat: h.group, from: h.bob, text: "anyone else hungry?" });
      await page.locator(`[data-message-id="${later.id}"]`).waitFor({ timeout: 10_000 });
      expect(
        await page
          .locator(".plan details.request")
          .first()
          .evaluate((d) => (d as unknown as { open: boolean }).open),
      ).toBe(true);
      expect(await page.locator("#silence-minutes").inputValue()).toBe("45");
      // The owner selects what is in the field to type over it; a message arrives before the
      // first key: what is typed still replaces the selection, not lands after it.
      await page.locator("#silence-minutes").evaluate((f) => {
        const field = f as unknown as { focus(): void; select(): void };
        field.focus();
        field.select();
      });
      const another = await h.emu.post({ chat: h.group, from: h.carol, text: "me too" });
      await page.locator(`[data-message-id="${another.id}"]`).waitFor({ timeout: 10_000 });
      await page.keyboard.insertText("90");
      expect(await page.locator("#silence-minutes").inputValue()).toBe("90");
      await page.locator("#silence").click();
      await expect
        .poll(() => h.runtime.settings.get(h.group.peerId).silentUntil ?? 0)
        .toBe(h.clock.now() + 90 * 60_000);
    });
  }, 60_000);

  it("the keyboard alone reaches a chat from the conversations list (real links)", async () => {
    const { page, base } = await rig.open();
    await withScreenshot(page, "console-keyboard", async () => {
      const h = rig.h;
      await h.emu.post({ chat: h.group, from: h.alice, text: "keyboard people" });
      await h.pass(1000);
      await page.goto(`${base}/console/#chats`);
      const link = page.locator("#chats a.chatlink").first();
      await link.waitFor();
      expect(await link.getAttribute("href")).toBe(`#chat/Mira/${encodeURIComponent(h.group.peerId)}`);
      // Tab until the chat's link has the focus, then Enter.
      let focused = "";
      for (let i = 0; i < 30 && !focused.includes("chatlink"); i++) {
        await page.keyboard.press("Tab");
        focused = await page.evaluate(
          () =>
            (globalThis as unknown as { document: { activeElement: { className: string } } }).document
              .activeElement.className,
        );
      }
      expect(focused).toContain("chatlink");
      // A live update re-renders the list while the link has the focus: the focus stays on it.
      await h.emu.post({ chat: h.group, from: h.alice, text: "keyboard people again" });
      await h.pass(1000);
      await page.locator("#chats", { hasText: "keyboard people again" }).waitFor();
      const stillFocused = await page.evaluate(
        () =>
          (globalThis as unknown as { document: { activeElement: { className: string } } }).document
            .activeElement.className,
      );
      expect(stillFocused).toContain("chatlink");
      await page.keyboard.press("Enter");
      await page.locator("#messages").waitFor();
      expect(page.url()).toContain(`#chat/Mira/`);
      expect(await page.locator("#messages").textContent()).toContain("keyboard people");
    });
  }, 60_000);

  it("a frozen account shows on the now view and the personas page, with Telegram's appeal link", async () => {
    const { page, base } = await rig.open();
    await withScreenshot(page, "console-frozen", async () => {
      const h = rig.h;
      h.emu.faults.freeze(h.account, { appealUrl: "https://t.me/spambot?start=appeal" });
      h.gemini.script(plan({ kind: "send", text: "never sent" }));
      await h.emu.post({ chat: h.group, from: h.alice, text: "@mira_ai hello?" });
      await h.pass(20_000);
      expect(h.sent(h.group)).toEqual([]);
      await page.goto(`${base}/console/#now`);
      const now = page.locator(".now .restricted");
      await now.waitFor();
      expect(await now.textContent()).toContain("account frozen");
      expect(await now.textContent()).toContain("https://t.me/spambot?start=appeal");
      await page.goto(`${base}/console/#personas`);
      // The persona's card: the Now view's own line is on screen until the Personas page is drawn.
      const personas = page.locator("section.persona .restricted");
      await personas.waitFor();
      expect(await personas.textContent()).toContain("account frozen");
    });
  }, 60_000);

  it("the now view shows a pending wait with its timer; cancelling it stops the send", async () => {
    const { page, base } = await rig.open();
    await withScreenshot(page, "console-now-cancel", async () => {
      const h = rig.h;
      h.gemini.script(plan({ kind: "wait", seconds: 120 }, { kind: "send", text: "two minutes later" }));
      await h.emu.post({ chat: h.group, from: h.alice, text: "@mira_ai tell me in two minutes" });
      await h.pass(10_000);
      await page.goto(`${base}/console/#now`);
      const wait = page.locator('tr.open-task[data-kind="wait"]');
      await wait.waitFor();
      expect(await wait.locator(".what").textContent()).toBe("120 s");
      // Its timer: running until two minutes after it started, or about to.
      const timer = wait.locator(".timer");
      expect(await timer.textContent()).toMatch(/until \d{4}-\d\d-\d\d \d\d:\d\d:\d\d \(in \d+ (s|min)\)/);
      // It counts down in the page, once a second, with no new view from the server.
      const left = async () => {
        const m = /\(in (\d+) (s|min)\)/.exec((await timer.textContent()) ?? "");
        return m ? Number(m[1]) * (m[2] === "min" ? 60 : 1) : NaN;
      };
      const first = await left();
      await expect.poll(left, { timeout: 5000 }).toBeLessThanOrEqual(first - 2);
      expect(await page.locator('tr.open-task[data-kind="send"] .what').textContent()).toBe(
        "two minutes later",
      );
      // The activity feed has the plan, linked to it.
      await expect
        .poll(() => page.locator(".activity .event.plan a.goto").first().textContent())
        .toBe("plan 1");
      await wait.locator("button.cancel-task").click();
      // The answer counts what went with it: the typing spell and the send that waited for it.
      await expect
        .poll(() => page.locator("#notice").textContent())
        .toMatch(/^Task #\d+ cancelled, and the 2 tasks that waited for it\.$/);
      await h.pass(180_000);
      expect(h.sent(h.group)).toEqual([]);
      await expect.poll(() => page.locator("#no-open-tasks").count(), { timeout: 10_000 }).toBe(1);
      expect(await page.locator(".activity").textContent()).toContain("cancelled from the console");
    });
  }, 90_000);
});

describe("access that lasts", () => {
  it("a bookmark works after a restart: the console's secret is kept in the state directory (0600)", async () => {
    const { launchBrowser } = await import("./browser");
    const browser = await launchBrowser();
    const state = tempDir();
    const env = (port: string) =>
      readEnv({ HTTP_PORT: port, CONSOLE: "1", STATE_DB: join(state, "agents.db") });
    const { logger, text } = captureLogger();
    try {
      const first = await startListener(env("0"), logger, { sandbox: false });
      const port = new URL(first.http!.url).port;
      const secret = join(state, "console-token");
      expect(existsSync(secret)).toBe(true);
      expect(statSync(secret).mode & 0o777).toBe(0o600);
      // The log's line names the file, never the secret.
      expect(first.consoleUrl).toContain(secret);
      expect(first.consoleUrl).not.toContain(readFileSync(secret, "utf8").trim());
      const context = await browser.newContext();
      const page = await context.newPage();
      await page.goto(first.signInUrl!);
      await page.locator("#main").waitFor();
      const bookmark = `http://127.0.0.1:${port}/console/#costs`;
      await first.http!.close();

      // A new process on the same state: the bookmark opens the page, no new sign-in.
      const second = await startListener(env(port), logger, { sandbox: false });
      try {
        // The bookmark opened in a new tab of the same browser.
        const tab = await context.newPage();
        const res = await tab.goto(bookmark);
        expect(res?.status()).toBe(200);
        await tab.locator("#costs, #costs-none").first().waitFor();
        // Another browser, without the session: an HTML page that says how to sign in.
        const other = await browser.newContext();
        const p2 = await other.newPage();
        await p2.goto(bookmark);
        await p2.locator("#main h1").waitFor();
        expect(await p2.locator("#main h1").textContent()).toContain("Sign in");
        expect(await p2.locator("#costs, #costs-none").count()).toBe(0);
        expect(await p2.locator("body").textContent()).toContain("console-token");
        // Signing in on the bookmarked address itself opens the bookmarked view; the token leaves the address.
        const token = encodeURIComponent(readFileSync(secret, "utf8").trim());
        await p2.goto(`http://127.0.0.1:${port}/console/?token=${token}#costs`);
        await p2.locator("#costs, #costs-none").first().waitFor();
        expect(p2.url()).toBe(bookmark);
        await other.close();
      } finally {
        await second.http!.close();
      }
      await context.close();
      expect(text()).not.toContain(first.signInUrl!.split("token=")[1]!);
    } finally {
      await browser.close();
    }
  }, 60_000);
});
