/**
 * What the operator reads on the Now view and a chat page is what happened (the review of issue
 * 30), in Chromium on the emulator with real GramJS and the Gemini fake: a task the admission gate
 * refused for a cap shows the "cap" badge, a superseded planning round is not shown as a plan, the
 * Cancel answer counts what went with the task, the timers count down.
 */
import { describe, expect, it } from "vitest";

import { plan } from "../support/harness";
import { until } from "../support/wait";
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

  it("a planning round superseded by newer messages reads 'replaced by a newer plan' and is no plan in the feed", async () => {
    const { page, base } = await rig.open();
    await withScreenshot(page, "console-superseded", async () => {
      const h = rig.h;
      // The first round's answer comes back late; a second mention arrives while it plans.
      h.gemini.script(
        { delayMs: 4000, then: plan({ kind: "send", text: "late answer to one" }) },
        plan({ kind: "send", text: "answer to both" }),
      );
      const one = await h.emu.post({ chat: h.group, from: h.alice, text: "@mira_ai one?" });
      // (Fake time passes while the call is in flight: the second mention arrives meanwhile.)
      const planning = h.pass(5000);
      await until(() => h.gemini.requests.length === 1);
      const two = await h.emu.post({ chat: h.group, from: h.bob, text: "@mira_ai two?" });
      await planning;
      await h.pass(30_000);
      expect(h.sent(h.group).map((m) => m.text)).toEqual(["answer to both"]);

      await page.goto(`${base}/console/#chat/Mira/${encodeURIComponent(h.group.peerId)}`);
      const old = page.locator(`.row:has([data-message-id="${one.id}"]) .plan`);
      await old.waitFor();
      expect(await old.locator(".replaced").textContent()).toBe("replaced by a newer plan");
      expect(await old.textContent()).toContain("plan 1");
      expect(await old.textContent()).not.toContain("· done");
      expect(await old.locator(".tasks-none").textContent()).toBe("no task: replaced by a newer plan");
      const real = page.locator(`.row:has([data-message-id="${two.id}"]) .plan`);
      expect(await real.getAttribute("data-plan-no")).toBe("1");
      expect(await real.locator(".replaced").count()).toBe(0);

      // The feed: one plan (the one that answered both), not two.
      await page.goto(`${base}/console/#now`);
      await page.locator(".activity .event.send").first().waitFor();
      const plans = await page.locator(".activity .event.plan").allTextContents();
      expect(plans).toHaveLength(1);
      expect(plans[0]).toContain(`planned for #${one.id}, #${two.id}`);
    });
  }, 90_000);

  it("Cancel on a send in doubt says it is not cancelled, and the send stays", async () => {
    const { page, base } = await rig.open({ requestTimeoutMs: 300 });
    await withScreenshot(page, "console-cancel-in-doubt", async () => {
      const h = rig.h;
      // The server applies the send but its answer never comes: the send is in doubt, waiting to retry.
      h.emu.faults.hang("messages.SendMessage", { when: "after-apply", times: 1 });
      h.gemini.script(plan({ kind: "send", text: "maybe out already" }));
      await h.emu.post({ chat: h.group, from: h.alice, text: "@mira_ai hi" });
      await h.pass(6000);
      await page.goto(`${base}/console/#now`);
      const send = page.locator('tr.open-task[data-kind="send"]');
      await send.waitFor();
      expect(await send.textContent()).toContain("in doubt");
      await send.locator("button.cancel-task").click();
      await expect
        .poll(() => page.locator("#notice").textContent())
        .toMatch(/^Task #\d+ is in doubt: not cancelled/);
      await h.pass(60_000);
      expect(h.sent(h.group).map((m) => m.text)).toEqual(["maybe out already"]);
      expect(await page.locator(".activity").textContent()).not.toContain("cancelled from the console");
    });
  }, 60_000);
});

describe("the chat page's switches and the costs an operator acts on", () => {
  it("Silence shows the silence with End silence; ending it lets the persona answer there again", async () => {
    const { page, base } = await rig.open();
    await withScreenshot(page, "console-end-silence", async () => {
      const h = rig.h;
      await h.emu.post({ chat: h.group, from: h.bob, text: "hello" });
      await h.pass(1000);
      await page.goto(`${base}/console/#chat/Mira/${encodeURIComponent(h.group.peerId)}`);
      await page.locator("#silence").waitFor();
      expect(await page.locator("#end-silence").count()).toBe(0);
      await page.locator("#silence-minutes").fill("60");
      await page.locator("#silence").click();
      await page.locator("#silent-until").waitFor();
      expect(await page.locator("#silent-until").textContent()).toMatch(
        /^silent until \d{4}-\d\d-\d\d .* UTC$/,
      );
      // Silent: a mention gets no answer and no Gemini request.
      await h.emu.post({ chat: h.group, from: h.alice, text: "@mira_ai still there?" });
      await h.pass(30_000);
      expect(h.gemini.requests).toHaveLength(0);

      await page.locator("#end-silence").click();
      await expect.poll(() => page.locator("#notice").textContent()).toContain("has ended");
      await expect.poll(() => page.locator("#silent-until").count()).toBe(0);
      expect(await page.locator("#end-silence").count()).toBe(0);
      h.gemini.script(plan({ kind: "send", text: "back again" }));
      await h.emu.post({ chat: h.group, from: h.alice, text: "@mira_ai now?" });
      await h.pass(30_000);
      expect(h.sent(h.group).map((m) => m.text)).toEqual(["back again"]);
    });
  }, 90_000);

  it("a DM's page shows no mode and no mode buttons (a DM is always addressed); a group's shows the mode in force", async () => {
    const { page, base } = await rig.open();
    await withScreenshot(page, "console-dm-modes", async () => {
      const h = rig.h;
      const dm = h.emu.dm(h.account, h.carol);
      h.gemini.script(plan({ kind: "send", text: "hi Carol" }));
      await h.emu.post({ chat: dm, from: h.carol, text: "hi" });
      await h.emu.post({ chat: h.group, from: h.bob, text: "hello" });
      await h.pass(30_000);
      await page.goto(`${base}/console/#chat/Mira/${encodeURIComponent(dm.peerId)}`);
      await page.locator("#chat-state").waitFor();
      expect(await page.locator(".actions button.mode").count()).toBe(0);
      expect(await page.locator("#chat-mode").count()).toBe(0);
      expect(await page.locator("#pause-chat").count()).toBe(1);
      await page.goto(`${base}/console/#chat/Mira/${encodeURIComponent(h.group.peerId)}`);
      await page.locator(".actions button.mode").first().waitFor();
      expect(await page.locator(".actions button.mode").allTextContents()).toEqual([
        "Mode strict",
        "Mode smart",
        "Mode talkative",
      ]);
      expect(await page.locator(".actions button.mode.active").textContent()).toBe("Mode strict");
      expect(await page.locator("#chat-state").textContent()).toContain("mode strict (the persona file's)");
    });
  }, 60_000);

  it("Costs lists the 30 days' calls per chat (by title, linked) and per person (whom the call was for)", async () => {
    const { page, base } = await rig.open();
    await withScreenshot(page, "console-costs-per-chat", async () => {
      const h = rig.h;
      const dm = h.emu.dm(h.account, h.carol);
      h.gemini.script(plan({ kind: "send", text: "noon" }), plan({ kind: "send", text: "hi Carol" }));
      await h.emu.post({ chat: h.group, from: h.alice, text: "@mira_ai lunch at noon?" });
      await h.pass(30_000);
      await h.emu.post({ chat: dm, from: h.carol, text: "hi" });
      await h.pass(30_000);
      expect(h.gemini.requests).toHaveLength(2);
      await page.goto(`${base}/console/#costs`);
      const chats = page.locator("#costs-chats tr[data-id]");
      await chats.first().waitFor();
      const byChat = await chats.evaluateAll((rows) =>
        rows.map((r) => ({
          id: (r as unknown as { dataset: { id: string } }).dataset.id,
          name: r.querySelector("a")?.textContent ?? "",
          href: r.querySelector("a")?.getAttribute("href") ?? "",
          calls: r.children[1]?.textContent ?? "",
        })),
      );
      expect(byChat).toEqual(
        expect.arrayContaining([
          {
            id: h.group.peerId,
            name: "Sandbox (supergroup)",
            href: `#chat/Mira/${encodeURIComponent(h.group.peerId)}`,
            calls: "1",
          },
          {
            id: dm.peerId,
            name: "Carol (dm)",
            href: `#chat/Mira/${encodeURIComponent(dm.peerId)}`,
            calls: "1",
          },
        ]),
      );
      const people = await page.locator("#costs-people tr[data-id]").allTextContents();
      expect(people).toHaveLength(2);
      expect(people.join("\n")).toContain(`Alice @alice (${h.alice.id})`);
      expect(people.join("\n")).toContain(`Carol @carol (${h.carol.id})`);
    });
  }, 90_000);
});
