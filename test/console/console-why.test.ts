/**
 * The console's "why" for addressed messages refused on arrival (kept when the decision was made,
 * not derived later), and forum topics and reply threads in the chat view — in Chromium, on the
 * emulator with real GramJS and the Gemini fake.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { OperatorConsole } from "../../src/console/console";
import { startHttpServer, type HttpServer } from "../../src/http/server";
import { resetMetrics } from "../../src/metrics/metrics";
import { closeDatabase } from "../../src/store/db";
import { captureLogger } from "../support/log-capture";
import { Harness, TEST_PERSONA, plan } from "../support/harness";
import { launchBrowser, withScreenshot } from "./browser";

const TOKEN = "console-why-token-0123456789";

let browser: Browser;
let h: Harness | undefined;
let http: HttpServer | undefined;
let context: BrowserContext | undefined;

beforeAll(async () => {
  browser = await launchBrowser();
}, 60_000);
afterAll(async () => {
  await browser?.close();
});
afterEach(async () => {
  await context?.close();
  await http?.close();
  await h?.close();
  context = http = h = undefined;
  resetMetrics();
});

async function open(
  o: { persona?: string } = {},
): Promise<{ h: Harness; page: Page; base: string; con: OperatorConsole }> {
  h = await Harness.start(o.persona !== undefined ? { persona: o.persona } : {});
  const hh = h;
  const con = new OperatorConsole({ token: TOKEN, now: () => hh.clock.now(), pollMs: 100 });
  con.add(h.persona, h.runtime, h.db);
  http = await startHttpServer({
    port: 0,
    host: "127.0.0.1",
    logger: captureLogger().logger,
    plugins: [con.plugin],
  });
  context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(con.url(http.url));
  return { h, page, base: http.url, con };
}

const chatUrl = (base: string, chatId: string, lane = "") =>
  `${base}/console/#chat/Mira/${encodeURIComponent(chatId)}${lane}`;

describe("why an addressed message got no answer, as decided on arrival", () => {
  it("a mention in a paused chat shows the pause exactly, even after the chat is resumed", async () => {
    const { page, base } = await open();
    await withScreenshot(page, "console-why-pause", async () => {
      const chatter = await h!.emu.post({ chat: h!.group, from: h!.bob, text: "lunch at noon" });
      await h!.pass(1000);
      expect(h!.runtime.command(`/pause ${h!.group.peerId}`)).toMatch(/paused/i);
      const ask = await h!.emu.post({ chat: h!.group, from: h!.alice, text: "@mira_ai are you there?" });
      await h!.pass(20_000);
      expect(h!.sent(h!.group)).toEqual([]);
      expect(h!.gemini.requests).toHaveLength(0);
      // Resumed since: a reason worked out from today's switches would now say nothing of a pause.
      h!.runtime.command(`/resume ${h!.group.peerId}`);
      await page.goto(chatUrl(base, h!.group.peerId));
      const why = page.locator(`[data-message-id="${ask.id}"] .why`);
      await why.waitFor();
      expect(await why.textContent()).toBe("why: a mention; not answered: policy: paused by the owner");
      expect(await why.getAttribute("class")).not.toContain("derived");
      // Plain chatter keeps its derived label (nothing was written for it).
      const chatterWhy = page.locator(`[data-message-id="${chatter.id}"] .why`);
      expect(await chatterWhy.textContent()).toContain("not addressed");
      expect(await chatterWhy.textContent()).toContain("(derived)");
    });
  }, 60_000);

  it("a stranger's DM under the contacts DM policy shows that policy exactly", async () => {
    const { page, base } = await open({ persona: `${TEST_PERSONA}\n# DM Policy\ncontacts\n` });
    await withScreenshot(page, "console-why-dm", async () => {
      const dave = h!.emu.addUser({ firstName: "Dave", username: "dave" });
      const dm = h!.emu.dm(h!.account, dave);
      const spam = await h!.emu.post({ chat: dm, from: dave, text: "hi, want to buy crypto?" });
      await h!.pass(20_000);
      expect(h!.gemini.requests).toHaveLength(0);
      expect(h!.sent(dm)).toEqual([]);
      await page.goto(chatUrl(base, String(dave.id)));
      const why = page.locator(`[data-message-id="${spam.id}"] .why`);
      await why.waitFor();
      expect(await why.textContent()).toMatch(
        /^why: a private message; not answered: policy: DM policy contacts: (not a contact|contact status unknown)$/,
      );
      expect(await why.textContent()).not.toContain("(derived)");
    });
  }, 60_000);

  it("a message over the answer age shows how old it was", async () => {
    const { page, base, con } = await open();
    await withScreenshot(page, "console-why-old", async () => {
      // Written while the persona was down; it arrives (catch-up) two hours later.
      await h!.emu.post({ chat: h!.group, from: h!.bob, text: "morning" });
      await h!.pass(1000);
      await h!.runtime.stop();
      h!.emu.detach(h!.client);
      closeDatabase(h!.db);
      const old = await h!.emu.post({ chat: h!.group, from: h!.alice, text: "@mira_ai still there?" });
      await h!.pass(2 * 3_600_000);
      h!.boot();
      await h!.runtime.caughtUp;
      con.add(h!.persona, h!.runtime, h!.db);
      await h!.pass(20_000);
      expect(h!.gemini.requests).toHaveLength(0);
      await page.goto(chatUrl(base, h!.group.peerId));
      const why = page.locator(`[data-message-id="${old.id}"] .why`);
      await why.waitFor();
      expect(await why.textContent()).toMatch(
        /not answered: too old to answer: 1\d\d min old when it arrived \(limit 60 min\)/,
      );
    });
  }, 60_000);
});

describe("why chatter got no addressing call in a smart group", () => {
  it("names the prefilter's rule for each message (kept in memory when it decided)", async () => {
    const { page, base } = await open({ persona: `${TEST_PERSONA}\n# Group Mode\nsmart\n` });
    await withScreenshot(page, "console-why-smart", async () => {
      const plain = await h!.emu.post({ chat: h!.group, from: h!.bob, text: "lunch at noon today" });
      const reply = await h!.emu.post({
        chat: h!.group,
        from: h!.alice,
        text: "sounds good to me",
        replyTo: plain.id,
      });
      const command = await h!.emu.post({ chat: h!.group, from: h!.alice, text: "/weather Rome" });
      await h!.pass(20_000);
      expect(h!.gemini.requests).toHaveLength(0);
      await page.goto(chatUrl(base, h!.group.peerId));
      const whyOf = async (id: number) => {
        const why = page.locator(`[data-message-id="${id}"] .why`);
        await why.waitFor();
        return { text: await why.textContent(), cls: await why.getAttribute("class") };
      };
      const a = await whyOf(plain.id);
      expect(a.text).toBe(
        "why: not addressed; smart mode made no addressing call: chatter between others (not a follow-up to the persona, not a question to the room)",
      );
      expect(a.cls).not.toContain("derived");
      expect((await whyOf(reply.id)).text).toBe(
        "why: not addressed; smart mode made no addressing call: a reply to someone else",
      );
      expect((await whyOf(command.id)).text).toBe(
        "why: not addressed; smart mode made no addressing call: a bot command (starts with /)",
      );
    });
  }, 60_000);
});

describe("forum topics and reply threads in the chat view", () => {
  it("labels each message with its topic, filters to one topic, and to one reply thread", async () => {
    const { page, base } = await open();
    await withScreenshot(page, "console-topics", async () => {
      const forum = h!.emu.createSupergroup({
        title: "Forum",
        forum: true,
        members: [h!.account, h!.alice, h!.bob],
      });
      const travel = h!.emu.createTopic(forum, "Travel");
      const food = h!.emu.createTopic(forum, "Food");
      const inGeneral = await h!.emu.post({ chat: forum, from: h!.bob, text: "hello everyone" });
      const t1 = await h!.emu.post({ chat: forum, from: h!.alice, text: "trains to Rome?", topicId: travel });
      const f1 = await h!.emu.post({ chat: forum, from: h!.bob, text: "pasta tonight", topicId: food });
      const t2 = await h!.emu.post({ chat: forum, from: h!.bob, text: "the 9:10 one", replyTo: t1.id });
      h!.gemini.script(plan({ kind: "send", text: "I would take the 9:10" }));
      const ask = await h!.emu.post({
        chat: forum,
        from: h!.alice,
        text: "@mira_ai which train?",
        topicId: travel,
      });
      await h!.pass(20_000);
      expect(h!.sent(forum).map((m) => m.text)).toEqual(["I would take the 9:10"]);
      const chatId = String(forum.peerId);

      await page.goto(chatUrl(base, chatId));
      await page.locator(`[data-message-id="${ask.id}"]`).waitFor();
      const topicOf = (id: number) => page.locator(`[data-message-id="${id}"] a.topic`).textContent();
      expect(await topicOf(inGeneral.id)).toBe("General");
      expect(await topicOf(t1.id)).toBe(`topic #${travel}`);
      expect(await topicOf(f1.id)).toBe(`topic #${food}`);
      // The topic filter lists the forum's topics.
      expect(await page.locator("#topics a[data-topic]").allTextContents()).toEqual(
        expect.arrayContaining(["General", `topic #${travel}`, `topic #${food}`]),
      );

      // One topic: its messages and the persona's answer there, nothing of the others.
      await page.locator(`#topics a[data-topic="${travel}"]`).click();
      await expect
        .poll(() =>
          page
            .locator("#messages .msg")
            .evaluateAll((els) => els.map((e) => e.getAttribute("data-message-id"))),
        )
        .toEqual(expect.arrayContaining([String(t1.id), String(t2.id), String(ask.id)]));
      const shown = await page
        .locator("#messages .msg")
        .evaluateAll((els) => els.map((e) => Number(e.getAttribute("data-message-id"))));
      expect(shown).not.toContain(f1.id);
      expect(shown).not.toContain(inGeneral.id);
      expect(await page.locator("#messages .msg.persona").allTextContents()).toEqual([
        expect.stringContaining("I would take the 9:10"),
      ]);
      expect(await page.locator("#lane").textContent()).toContain(`only topic #${travel}`);

      // A reply thread: its root and the reply under it.
      await page.locator(`[data-message-id="${t2.id}"] a.thread`).click();
      await expect
        .poll(() =>
          page
            .locator("#messages .msg")
            .evaluateAll((els) => els.map((e) => Number(e.getAttribute("data-message-id")))),
        )
        .toEqual([t1.id, t2.id]);
      expect(await page.locator("#lane").textContent()).toContain(`reply thread of #${t1.id}`);

      // Back to the whole chat.
      await page.locator("#lane a").click();
      await expect.poll(() => page.locator("#messages .msg").count()).toBeGreaterThanOrEqual(5);
    });
  }, 60_000);
});
