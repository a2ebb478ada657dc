import { describe, expect, it } from "vitest";
import { requestPurpose } from "../support/gemini-fake";
import { TEST_PERSONA, plan } from "../support/harness";
import { withScreenshot } from "./browser";
import { consoleRig, pageSession } from "./rig";

const TOKEN = "console-test-token-0123456789";

const rig = consoleRig(TOKEN);
const open = (o: { persona?: string } = {}) => rig.open({ ...o, secrets: ["test-key-not-secret"] });

const chatUrl = (base: string, chatId: string) => `${base}/console/#chat/Mira/${encodeURIComponent(chatId)}`;

describe("the operator console in a browser", () => {
  it("without a session nothing of the persona is shown: the API answers 401, the page says how to sign in", async () => {
    const { page, base } = await open();
    await rig.h.emu.post({ chat: rig.h.group, from: rig.h.alice, text: "secret lunch plans" });
    await rig.h.pass(1000);
    const other = await page.context().browser()!.newContext();
    try {
      const p2 = await other.newPage();
      for (const path of [
        "/console/api/personas",
        `/console/api/chat?persona=Mira&chat=${rig.h.group.peerId}`,
        "/console/api/events",
      ]) {
        const res = await p2.goto(`${base}${path}`);
        expect(res?.status(), path).toBe(401);
        const body = await res!.text();
        expect(body).not.toContain("lunch");
        expect(body).not.toContain("Mira");
      }
      // The page itself (static, no data) shows how to sign in; a wrong token says so.
      for (const [path, says] of [
        ["/console/", "sign in"],
        ["/console/?token=wrong-token", "wrong console token"],
      ] as const) {
        await p2.goto(`${base}${path}`);
        await p2.locator("#main h1").waitFor();
        expect(await p2.locator("#main h1").textContent()).toContain("Sign in");
        const text = (await p2.locator("body").textContent()) ?? "";
        expect(text).toContain(says);
        expect(text).not.toContain("lunch");
        expect(text).not.toContain("Mira");
        expect(p2.url()).not.toContain("wrong-token");
      }
      // A state change from the signed-in page's origin but without its session: refused.
      const r = await page.evaluate(async () => {
        const res = await fetch("api/action", {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ persona: "Mira", action: "pause" }),
        });
        return res.status;
      });
      expect(r).toBe(401);
      // With the session but from another origin: refused too.
      const foreign = await fetch(`${base}/console/api/action`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          origin: "http://evil.example",
          "x-console-session": await pageSession(page),
        },
        body: JSON.stringify({ persona: "Mira", action: "pause" }),
      });
      expect(foreign.status).toBe(403);
      expect(rig.h.runtime.settings.get("*").paused).toBe(false);
    } finally {
      await other.close();
    }
    // The token left the address bar; the console sets no cookie at all.
    expect(page.url()).not.toContain("token");
    expect(await page.context().cookies()).toEqual([]);
    const csp = (await page.request.get(`${base}/console/`)).headers()["content-security-policy"];
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("object-src 'none'");
  }, 60_000);

  it("shows an addressed message live, its plan with the answer, and why an unaddressed one was not answered", async () => {
    const { page, base } = await open();
    await withScreenshot(page, "console-live", async () => {
      const chatter = await rig.h.emu.post({
        chat: rig.h.group,
        from: rig.h.bob,
        text: "nice weather today",
      });
      await rig.h.pass(1000);
      await page.goto(chatUrl(base, rig.h.group.peerId));
      const chatterRow = page.locator(`[data-message-id="${chatter.id}"]`);
      await chatterRow.waitFor();
      expect(await chatterRow.locator(".why").textContent()).toContain("not addressed");

      rig.h.gemini.script(plan({ kind: "send", text: "Hello Alice, noon it is" }));
      const ask = await rig.h.emu.post({
        chat: rig.h.group,
        from: rig.h.alice,
        text: "@mira_ai what time is lunch?",
      });
      // Appears without a reload.
      await page.locator(`[data-message-id="${ask.id}"]`).waitFor({ timeout: 10_000 });
      await rig.h.pass(20_000);
      expect(rig.h.sent(rig.h.group).map((m) => m.text)).toEqual(["Hello Alice, noon it is"]);
      const why = page.locator(`[data-message-id="${ask.id}"] .why`);
      await expect.poll(() => why.textContent(), { timeout: 10_000 }).toContain("answered");
      // The plan sits beside the message it answered.
      const plans = page.locator(`.row:has([data-message-id="${ask.id}"]) .plan`);
      await expect.poll(() => plans.count(), { timeout: 10_000 }).toBe(1);
      const planText = await plans.first().textContent();
      expect(planText).toContain("send");
      expect(planText).toContain("Hello Alice, noon it is");
      // The exact request: the system instruction, the user turn with the message, the schema's kinds.
      const request = plans.first().locator("details.request");
      expect(await request.locator("pre.system").textContent()).toContain("Mira");
      expect(await request.locator("pre.part").allTextContents()).toEqual(
        expect.arrayContaining([expect.stringContaining("what time is lunch?")]),
      );
      expect(await request.locator(".kinds").textContent()).toContain("send, react");
      // …and it is the request Gemini got.
      const sent = JSON.stringify(rig.h.gemini.requests[rig.h.gemini.requests.length - 1]);
      expect(sent).toContain("what time is lunch?");
      expect(await plans.first().locator("details.returned pre").textContent()).toContain(
        '"text": "Hello Alice, noon it is"',
      );
      // The persona's answer is in the chat too.
      await expect
        .poll(() => page.locator("#messages .msg.persona").allTextContents(), { timeout: 10_000 })
        .toEqual([expect.stringContaining("Hello Alice, noon it is")]);
    });
  }, 60_000);

  it("shows the addressing call's verdict where it decided: confidence, its reason, and why it was not answered", async () => {
    const { page, base } = await open({ persona: `${TEST_PERSONA}\n# Group Mode\nsmart\n` });
    await withScreenshot(page, "console-verdict", async () => {
      rig.h.gemini.respondWith((body) =>
        requestPurpose(body) === "address"
          ? {
              json: {
                reason: "might be asking Mira, not sure",
                addressed: true,
                confidence: 0.4,
                wanna_interject: false,
                interject: 0,
                is_lightweight: false,
              },
            }
          : { json: { tasks: [{ kind: "send", text: "noon" }] } },
      );
      await rig.h.emu.post({ chat: rig.h.group, from: rig.h.alice, text: "@mira_ai what time is lunch?" });
      await rig.h.pass(20_000);
      expect(rig.h.sent(rig.h.group).map((m) => m.text)).toEqual(["noon"]);
      const follow = await rig.h.emu.post({
        chat: rig.h.group,
        from: rig.h.alice,
        text: "and where do we meet?",
      });
      await rig.h.pass(20_000);
      expect(rig.h.gemini.requests.filter((r) => requestPurpose(r.body) === "address")).toHaveLength(1);
      expect(rig.h.sent(rig.h.group)).toHaveLength(1);
      await page.goto(chatUrl(base, rig.h.group.peerId));
      const why = page.locator(`[data-message-id="${follow.id}"] .why`);
      await why.waitFor();
      const text = await why.textContent();
      expect(text).toContain("confidence 0.4");
      expect(text).toContain("might be asking Mira, not sure");
      expect(text).toContain("below 0.6");
      expect(text).not.toContain("(derived)");
    });
  }, 60_000);

  it("pausing a chat from the console keeps the next addressed message unanswered; resume answers again", async () => {
    const { page, base } = await open();
    await withScreenshot(page, "console-pause", async () => {
      await rig.h.emu.post({ chat: rig.h.group, from: rig.h.bob, text: "hi all" });
      await rig.h.pass(1000);
      await page.goto(chatUrl(base, rig.h.group.peerId));
      await page.locator("#pause-chat").click();
      await expect.poll(() => page.locator("#chat-state").textContent()).toContain("paused in this chat");
      expect(rig.h.runtime.settings.get(rig.h.group.peerId).paused).toBe(true);
      const ask = await rig.h.emu.post({
        chat: rig.h.group,
        from: rig.h.alice,
        text: "@mira_ai are you there?",
      });
      await rig.h.pass(20_000);
      expect(rig.h.sent(rig.h.group)).toEqual([]);
      expect(rig.h.gemini.requests).toHaveLength(0);
      await page.reload();
      const why = page.locator(`[data-message-id="${ask.id}"] .why`);
      // Exact: the pause as the admission gate saw it when the mention arrived, not guessed now.
      await expect
        .poll(() => why.textContent())
        .toContain("a mention; not answered: policy: paused by the owner");
      expect(await why.textContent()).not.toContain("(derived)");

      await page.locator("#pause-chat").click(); // now "Resume this chat"
      await expect.poll(() => page.locator("#chat-state").textContent()).toContain("answering in this chat");
      rig.h.gemini.script(plan({ kind: "send", text: "back again" }));
      await rig.h.emu.post({ chat: rig.h.group, from: rig.h.alice, text: "@mira_ai and now?" });
      await rig.h.pass(20_000);
      expect(rig.h.sent(rig.h.group).map((m) => m.text)).toEqual(["back again"]);
    });
  }, 60_000);

  it("cancels a pending plan, and silences a chat for N minutes, from the chat page", async () => {
    const { page, base } = await open();
    await withScreenshot(page, "console-cancel-silence", async () => {
      // A plan that waits a minute before it answers: cancelled from the console meanwhile.
      rig.h.gemini.script(plan({ kind: "wait", seconds: 60 }, { kind: "send", text: "a minute later" }));
      await rig.h.emu.post({ chat: rig.h.group, from: rig.h.alice, text: "@mira_ai tell me in a minute" });
      await rig.h.pass(10_000);
      expect(rig.h.gemini.requests).toHaveLength(1);
      await page.goto(chatUrl(base, rig.h.group.peerId));
      await page.locator("#forget").click();
      // The click only starts the request: time moves on once the console has answered it.
      await expect.poll(() => page.locator("#notice").textContent()).toMatch(/^Dropped the pending plan in /);
      await rig.h.pass(120_000);
      expect(rig.h.sent(rig.h.group)).toEqual([]);

      // Silenced for 30 minutes: a mention meanwhile gets nothing; after them, answers come again.
      await page.locator("#silence-minutes").fill("30");
      await page.locator("#silence").click();
      await expect
        .poll(() => rig.h.runtime.settings.get(rig.h.group.peerId).silentUntil ?? 0)
        .toBeGreaterThan(rig.h.clock.now() + 29 * 60_000);
      await rig.h.emu.post({ chat: rig.h.group, from: rig.h.alice, text: "@mira_ai still there?" });
      await rig.h.pass(20_000);
      expect(rig.h.sent(rig.h.group)).toEqual([]);
      expect(rig.h.gemini.requests).toHaveLength(1);
      await rig.h.pass(30 * 60_000);
      rig.h.gemini.script(plan({ kind: "send", text: "back" }));
      await rig.h.emu.post({ chat: rig.h.group, from: rig.h.alice, text: "@mira_ai and now?" });
      await rig.h.pass(20_000);
      expect(rig.h.sent(rig.h.group).map((m) => m.text)).toEqual(["back"]);
    });
  }, 60_000);

  it("renders hostile names and texts as text: no script runs, no link is made", async () => {
    const { page, base } = await open();
    await withScreenshot(page, "console-hostile", async () => {
      const evil = rig.h.emu.addUser({
        firstName: `<img src=x onerror="window.__pwned=1">`,
        lastName: "\u202Eevil\u200B",
      });
      await rig.h.emu.chats.addMember(rig.h.group, evil);
      const texts = [
        `<script>window.__pwned=2</script>`,
        `<img src=x onerror="window.__pwned=3">`,
        `[click](javascript:window.__pwned=4) javascript:window.__pwned=5`,
        `\u202Egnp.exe\u200B\u2066 <b>bold</b>`,
      ];
      const ids: number[] = [];
      for (const text of texts) ids.push((await rig.h.emu.post({ chat: rig.h.group, from: evil, text })).id);
      await rig.h.pass(1000);
      await page.goto(chatUrl(base, rig.h.group.peerId));
      await page.locator(`[data-message-id="${ids[3]}"]`).waitFor();
      for (const [i, text] of texts.entries())
        expect(await page.locator(`[data-message-id="${ids[i]}"] bdi.text`).first().textContent()).toBe(text);
      expect(await page.locator(`[data-message-id="${ids[0]}"] bdi.sender`).textContent()).toContain(
        "<img src=x",
      );
      expect(
        await page.evaluate(() => (globalThis as unknown as { __pwned?: number }).__pwned),
      ).toBeUndefined();
      expect(
        await page.locator("#messages img, #messages script, #messages b, #messages bdi a").count(),
      ).toBe(0);
      // The page's own links (message permalinks) only: none made from a text.
      const hrefs = await page
        .locator("#messages a")
        .evaluateAll((as) => as.map((a) => a.getAttribute("href") ?? ""));
      expect(hrefs.every((h) => h.startsWith("#chat/Mira/"))).toBe(true);
      await page.goto(`${base}/console/#chats`);
      await page.locator("#chats tr.chatrow").first().waitFor();
      expect(
        await page.evaluate(() => (globalThis as unknown as { __pwned?: number }).__pwned),
      ).toBeUndefined();
    });
  }, 60_000);
});
