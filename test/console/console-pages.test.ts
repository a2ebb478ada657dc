/** The console's Costs and Summaries pages in a real browser, on the emulator with the Gemini fake. */
import { existsSync, rmSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { withScreenshot } from "./browser";
import { consoleRig } from "./rig";

const TOKEN = "console-pages-token-0123456789";
const DAY = 86_400_000;

const rig = consoleRig(TOKEN);
const open = () => rig.open();

const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

describe("the console's Costs and Summaries pages", () => {
  it("Costs draws the last 30 days per day, persona and purpose as a chart, and lists them", async () => {
    const { page, base } = await open();
    const now = rig.h.clock.now();
    const call = (purpose: string, tokens: number) => ({
      purpose,
      model: "gemini-2.5-flash",
      promptTokens: tokens,
      outputTokens: 100,
      thinkingTokens: 0,
    });
    rig.h.runtime.usage.record(call("plan", 5000), now);
    rig.h.runtime.usage.record(call("address", 800), now);
    rig.h.runtime.usage.record(call("plan", 3000), now - 5 * DAY);
    rig.h.runtime.usage.record(call("plan", 9000), now - 40 * DAY); // outside the 30 days
    await withScreenshot(page, "console-costs", async () => {
      await page.goto(`${base}/console/#costs`);
      await page.locator("#costs tr td").first().waitFor();
      const rows = await page.locator("#costs tr").allTextContents();
      expect(rows.slice(1)).toHaveLength(3);
      expect(rows.join("\n")).toContain(day(now - 5 * DAY));
      expect(rows.join("\n")).not.toContain(day(now - 40 * DAY));
      // The chart is drawn from the same data: one bar group per day, a stack per persona · purpose.
      const chart = await page.evaluate(() => {
        const w = globalThis as unknown as {
          Chart: {
            getChart(
              id: string,
            ): { data: { labels: string[]; datasets: { label: string; data: number[] }[] } } | undefined;
          };
          document: { getElementById(id: string): { width: number; height: number } | null };
        };
        const c = w.Chart.getChart("cost-chart");
        const canvas = w.document.getElementById("cost-chart");
        return c
          ? {
              labels: c.data.labels,
              series: c.data.datasets.map((d) => d.label).sort(),
              sums: c.data.datasets.map((d) => d.data.reduce((a, b) => a + b, 0)),
              width: canvas?.width ?? 0,
            }
          : undefined;
      });
      expect(chart).toBeDefined();
      expect(chart!.labels).toEqual([day(now - 5 * DAY), day(now)]);
      expect(chart!.series).toEqual(["Mira · address", "Mira · plan"]);
      expect(chart!.sums.every((x) => x > 0)).toBe(true);
      expect(chart!.width).toBeGreaterThan(0);
    });
  }, 60_000);

  it("a failing page check leaves a screenshot in test-artifacts/", async () => {
    const { page, base } = await open();
    await page.goto(`${base}/console/#costs`);
    const file = join(process.cwd(), "test-artifacts", "console-artifact-check.png");
    rmSync(file, { force: true });
    await expect(
      withScreenshot(page, "console-artifact-check", async () => {
        throw new Error("page check failed");
      }),
    ).rejects.toThrow("page check failed");
    expect(existsSync(file)).toBe(true);
    rmSync(file, { force: true });
  }, 60_000);

  it("Summaries shows each lane's current summary, its version and the messages it covers, as text", async () => {
    const { page, base } = await open();
    rig.h.runtime.summaries.put({
      lane: `root:${rig.h.group.peerId}`,
      chatId: rig.h.group.peerId,
      version: 3,
      fromId: 12,
      toId: 140,
      content: `Alice planned lunch <img src=x onerror="window.__pwned=1"> with Bob.`,
      updatedAt: rig.h.clock.now(),
    });
    await withScreenshot(page, "console-summaries", async () => {
      await page.goto(`${base}/console/#summaries`);
      const card = page.locator("section.summary");
      await card.waitFor();
      expect(await card.count()).toBe(1);
      const text = await card.textContent();
      expect(text).toContain("version 3");
      expect(text).toContain("covers #12–#140");
      expect(await card.locator("bdi.text").textContent()).toBe(
        `Alice planned lunch <img src=x onerror="window.__pwned=1"> with Bob.`,
      );
      expect(await card.locator("img").count()).toBe(0);
      expect(
        await page.evaluate(() => (globalThis as unknown as { __pwned?: number }).__pwned),
      ).toBeUndefined();
    });
  }, 60_000);

  it("Summaries shows each summary as its sections, named by the chat's title and a topic's title, linked to them", async () => {
    const { page, base } = await open();
    const h = rig.h;
    const forum = h.emu.createSupergroup({
      title: "Forum",
      forum: true,
      members: [h.account, h.alice, h.bob],
    });
    const travel = h.emu.createTopic(forum, "Travel");
    const t1 = await h.emu.post({ chat: forum, from: h.alice, text: "trains to Rome?", topicId: travel });
    const q = await h.emu.post({ chat: h.group, from: h.bob, text: "lunch plans?" });
    await h.pass(5000);
    const content = (o: Record<string, string[]>) =>
      JSON.stringify({
        goals_and_open_questions: [],
        decisions: [],
        facts: [],
        people_and_mood: [],
        you_said: [],
        outcomes: [],
        pending_actions: [],
        ...o,
      });
    const put = (lane: string, chatId: string, c: string) =>
      h.runtime.summaries.put({
        lane,
        chatId,
        version: 1,
        fromId: 1,
        toId: 9,
        content: c,
        updatedAt: h.clock.now(),
      });
    const forumId = String(forum.peerId);
    put(`topic:${forumId}:${travel}`, forumId, content({ decisions: ["Alice takes the 9:10 train"] }));
    put(`reply:${h.group.peerId}:${q.id}`, h.group.peerId, content({ facts: ["Bob eats at noon"] }));
    put(
      `root:${h.group.peerId}`,
      h.group.peerId,
      content({ goals_and_open_questions: ["where to eat"], pending_actions: ["Carol books a table"] }),
    );
    await withScreenshot(page, "console-summary-sections", async () => {
      await page.goto(`${base}/console/#summaries`);
      await page.locator("section.summary").first().waitFor();
      const card = (lane: string) => page.locator(`section.summary[data-lane="${lane}"]`);
      // A forum topic by its title, linked to the topic's page; the chat by its title.
      const topic = card(`topic:${forumId}:${travel}`);
      expect(await topic.locator("h3").textContent()).toBe("Forum · topic Travel");
      expect(await topic.locator("a.lane").getAttribute("href")).toBe(
        `#chat/Mira/${encodeURIComponent(forumId)}/topic/${travel}`,
      );
      expect(await topic.locator(".summary-section h4").allTextContents()).toEqual(["Decisions"]);
      expect(await topic.locator(".summary-section li").allTextContents()).toEqual([
        "Alice takes the 9:10 train",
      ]);
      const thread = card(`reply:${h.group.peerId}:${q.id}`);
      expect(await thread.locator("h3").textContent()).toBe(`Sandbox · reply thread of #${q.id}`);
      const whole = card(`root:${h.group.peerId}`);
      expect(await whole.locator("h3").textContent()).toBe("Sandbox · the whole chat");
      // Sections in the prompt's order, with their own titles; empty ones left out.
      expect(await whole.locator(".summary-section h4").allTextContents()).toEqual([
        "Goals and open questions",
        "Pending actions",
      ]);
      expect(await whole.textContent()).not.toContain("{");
      // Following the topic's link shows that topic alone.
      await topic.locator("a.lane").click();
      await page.locator(`[data-message-id="${t1.id}"]`).waitFor();
      expect(await page.locator("#lane").textContent()).toContain("Travel");
    });
  }, 60_000);
});
