/**
 * The console's "why" for addressed messages refused on arrival (kept when the decision was made,
 * not derived later), and forum topics and reply threads in the chat view — in Chromium, on the
 * emulator with real GramJS and the Gemini fake.
 */
import { describe, expect, it } from "vitest";
import { closeDatabase } from "../../src/store/db";
import { TEST_PERSONA, plan } from "../support/harness";
import { withScreenshot } from "./browser";
import { consoleRig } from "./rig";

const TOKEN = "console-why-token-0123456789";

const rig = consoleRig(TOKEN);
const open = rig.open;

const chatUrl = (base: string, chatId: string, lane = "") =>
  `${base}/console/#chat/Mira/${encodeURIComponent(chatId)}${lane}`;

describe("why an addressed message got no answer, as decided on arrival", () => {
  it("a mention in a paused chat shows the pause exactly, even after the chat is resumed", async () => {
    const { page, base } = await open();
    await withScreenshot(page, "console-why-pause", async () => {
      const chatter = await rig.h.emu.post({ chat: rig.h.group, from: rig.h.bob, text: "lunch at noon" });
      await rig.h.pass(1000);
      expect(rig.h.runtime.command(`/pause ${rig.h.group.peerId}`)).toMatch(/paused/i);
      const ask = await rig.h.emu.post({
        chat: rig.h.group,
        from: rig.h.alice,
        text: "@mira_ai are you there?",
      });
      await rig.h.pass(20_000);
      expect(rig.h.sent(rig.h.group)).toEqual([]);
      expect(rig.h.gemini.requests).toHaveLength(0);
      // Resumed since: a reason worked out from today's switches would now say nothing of a pause.
      rig.h.runtime.command(`/resume ${rig.h.group.peerId}`);
      await page.goto(chatUrl(base, rig.h.group.peerId));
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
      const dave = rig.h.emu.addUser({ firstName: "Dave", username: "dave" });
      const dm = rig.h.emu.dm(rig.h.account, dave);
      const spam = await rig.h.emu.post({ chat: dm, from: dave, text: "hi, want to buy crypto?" });
      await rig.h.pass(20_000);
      expect(rig.h.gemini.requests).toHaveLength(0);
      expect(rig.h.sent(dm)).toEqual([]);
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
      await rig.h.emu.post({ chat: rig.h.group, from: rig.h.bob, text: "morning" });
      await rig.h.pass(1000);
      await rig.h.runtime.stop();
      rig.h.emu.detach(rig.h.client);
      closeDatabase(rig.h.db);
      const old = await rig.h.emu.post({
        chat: rig.h.group,
        from: rig.h.alice,
        text: "@mira_ai still there?",
      });
      await rig.h.pass(2 * 3_600_000);
      rig.h.boot();
      await rig.h.runtime.caughtUp;
      con.add(rig.h.persona, rig.h.runtime, rig.h.db);
      await rig.h.pass(20_000);
      expect(rig.h.gemini.requests).toHaveLength(0);
      await page.goto(chatUrl(base, rig.h.group.peerId));
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
      const plain = await rig.h.emu.post({ chat: rig.h.group, from: rig.h.bob, text: "lunch at noon today" });
      const reply = await rig.h.emu.post({
        chat: rig.h.group,
        from: rig.h.alice,
        text: "sounds good to me",
        replyTo: plain.id,
      });
      const command = await rig.h.emu.post({ chat: rig.h.group, from: rig.h.alice, text: "/weather Rome" });
      await rig.h.pass(20_000);
      expect(rig.h.gemini.requests).toHaveLength(0);
      await page.goto(chatUrl(base, rig.h.group.peerId));
      const whyOf = async (id: number) => {
        const why = page.locator(`[data-message-id="${id}"] .why`);
        await why.waitFor();
        return { text: await why.textContent(), cls: await why.getAttribute("class") };
      };
      const a = await whyOf(plain.id);
      expect(a.text).toBe(
        "why: not addressed; when it arrived no addressing call was made: chatter between others (not a follow-up to the persona, not a question to the room)",
      );
      expect(a.cls).not.toContain("derived");
      expect((await whyOf(reply.id)).text).toBe(
        "why: not addressed; when it arrived no addressing call was made: a reply to someone else",
      );
      expect((await whyOf(command.id)).text).toBe(
        "why: not addressed; when it arrived no addressing call was made: a bot command (starts with /)",
      );
      // The chat turns strict later: an old message's why is still what was decided when it
      // arrived, not today's mode.
      rig.h.runtime.settings.update(String(rig.h.group.peerId), { mode: "strict" });
      await page.goto(chatUrl(base, rig.h.group.peerId));
      await page.reload();
      await expect
        .poll(async () => (await whyOf(plain.id)).text)
        .toBe(
          "why: not addressed; when it arrived no addressing call was made: chatter between others (not a follow-up to the persona, not a question to the room)",
        );
    });
  }, 60_000);
});

describe("forum topics and reply threads in the chat view", () => {
  it("labels each message with its topic, filters to one topic, and to one reply thread", async () => {
    const { page, base } = await open();
    await withScreenshot(page, "console-topics", async () => {
      const forum = rig.h.emu.createSupergroup({
        title: "Forum",
        forum: true,
        members: [rig.h.account, rig.h.alice, rig.h.bob],
      });
      // Telegram names a topic only in its service messages: the root, then any rename.
      const travel = rig.h.emu.createTopic(forum, "Travel");
      const food = rig.h.emu.createTopic(forum, "Food");
      rig.h.emu.chats.renameTopic(forum, food, "Dinner");
      const inGeneral = await rig.h.emu.post({ chat: forum, from: rig.h.bob, text: "hello everyone" });
      const t1 = await rig.h.emu.post({
        chat: forum,
        from: rig.h.alice,
        text: "trains to Rome?",
        topicId: travel,
      });
      const f1 = await rig.h.emu.post({ chat: forum, from: rig.h.bob, text: "pasta tonight", topicId: food });
      const t2 = await rig.h.emu.post({ chat: forum, from: rig.h.bob, text: "the 9:10 one", replyTo: t1.id });
      rig.h.gemini.script(plan({ kind: "send", text: "I would take the 9:10" }));
      const ask = await rig.h.emu.post({
        chat: forum,
        from: rig.h.alice,
        text: "@mira_ai which train?",
        topicId: travel,
      });
      await rig.h.pass(20_000);
      expect(rig.h.sent(forum).map((m) => m.text)).toEqual(["I would take the 9:10"]);
      const chatId = String(forum.peerId);

      await page.goto(chatUrl(base, chatId));
      await page.locator(`[data-message-id="${ask.id}"]`).waitFor();
      const topicOf = (id: number) => page.locator(`[data-message-id="${id}"] a.topic`).textContent();
      expect(await topicOf(inGeneral.id)).toBe("General");
      expect(await topicOf(t1.id)).toBe("Travel");
      expect(await topicOf(f1.id)).toBe("Dinner");
      // The topic filter lists the forum's topics by name.
      expect(await page.locator("#topics a[data-topic]").allTextContents()).toEqual(
        expect.arrayContaining(["General", "Travel", "Dinner"]),
      );

      // One topic: its messages and the persona's answer there, nothing of the others. The whole
      // chat already shows the topic's messages, so the wait is for the filtered list itself (the
      // lane says the filter, the other topics' messages are gone), never for a time.
      await page.locator(`#topics a[data-topic="${travel}"]`).click();
      await expect.poll(() => page.locator("#lane").textContent()).toContain("only Travel");
      const shownIds = () =>
        page
          .locator("#messages .msg")
          .evaluateAll((els) => els.map((e) => Number(e.getAttribute("data-message-id"))));
      await expect
        .poll(async () => (await shownIds()).filter((id) => id === f1.id || id === inGeneral.id))
        .toEqual([]);
      const shown = await shownIds();
      expect(shown).toEqual(expect.arrayContaining([t1.id, t2.id, ask.id]));
      expect(shown).not.toContain(f1.id);
      expect(shown).not.toContain(inGeneral.id);
      expect(await page.locator("#messages .msg.persona").allTextContents()).toEqual([
        expect.stringContaining("I would take the 9:10"),
      ]);

      // A reply thread: its root and the reply under it.
      await page.locator(`[data-message-id="${t2.id}"] a.thread`).click();
      await expect
        .poll(() =>
          page
            .locator("#messages .msg")
            .evaluateAll((els) => els.map((e) => Number(e.getAttribute("data-message-id")))),
        )
        .toEqual([t2.id, t1.id]); // newest first
      expect(await page.locator("#lane").textContent()).toContain(`reply thread of #${t1.id}`);

      // Back to the whole chat.
      await page.locator("#lane a").click();
      await expect.poll(() => page.locator("#messages .msg").count()).toBeGreaterThanOrEqual(5);
    });
  }, 60_000);
});
