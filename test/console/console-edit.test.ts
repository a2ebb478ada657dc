/**
 * The console's editing pages in a real browser, on the emulator with real GramJS and the Gemini
 * fake: memories edited, deleted and added, and media descriptions written as curated files —
 * each checked in the next planning request the persona sends.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { MediaCache } from "../../src/store/media-cache";
import { requestPurpose, type GenerateBody } from "../support/gemini-fake";
import { plan } from "../support/harness";
import { tempDir } from "../support/temp-dir";
import { withScreenshot } from "./browser";
import { consoleRig, pageSession } from "./rig";

const TOKEN = "console-edit-token-0123456789";

const rig = consoleRig(TOKEN);
const open = (agentsDir: string) => rig.open({ agentsDir });

/** Every text of the last planning request. */
function lastPlanText(): string {
  const plans = rig.h.gemini.requests.filter((r) => requestPurpose(r.body) === "plan");
  const body = plans.at(-1)!.body as GenerateBody;
  return (body.contents ?? [])
    .flatMap((c) => c.parts ?? [])
    .map((p) => p.text ?? "")
    .join("\n");
}

describe("the console's memory page", () => {
  it("edits, deletes and adds memories, and the next planning request reflects them; curated files are shown with their path", async () => {
    const agents = tempDir();
    const { page, base } = await open(agents);
    const alice = String(rig.h.alice.id);
    mkdirSync(join(agents, "Mira", "memory"), { recursive: true });
    writeFileSync(join(agents, "Mira", "memory", `${alice}.md`), "- plays the cello\n");
    const group = rig.h.group.peerId;
    // The add row names chats by title: the group is known by its messages.
    const said = await rig.h.emu.post({ chat: rig.h.group, from: rig.h.alice, text: "tea for me, always" });
    await rig.h.pass(1000);
    const now = rig.h.clock.now();
    const tea = rig.h.runtime.memories.remember({
      chatId: group,
      subject: alice,
      toldBy: alice,
      sourceId: said.id,
      content: "Alice loves green tea",
      now,
    });
    const dog = rig.h.runtime.memories.remember({
      chatId: group,
      subject: alice,
      content: "Alice has a dog named Rex",
      now,
    });
    await withScreenshot(page, "console-memory", async () => {
      await page.goto(`${base}/console/#memory`);
      const teaRow = page.locator(`tr.memory[data-memory-id="${tea.id}"]`);
      await teaRow.waitFor();
      expect(await page.locator("tr.memory").count()).toBe(2);
      expect(await page.locator(".curated-memory").textContent()).toContain(
        join(agents, "Mira", "memory", `${alice}.md`),
      );
      expect(await page.locator(".curated-memory").textContent()).toContain("plays the cello");
      // Who said it, and a link to the message it was said in.
      const source = teaRow.locator("a.memory-source");
      expect(await source.textContent()).toBe(`message #${said.id}`);
      expect(await source.getAttribute("href")).toBe(
        `#chat/Mira/${encodeURIComponent(group)}/msg/${said.id}`,
      );

      // A change without the page's session is refused; without it nothing is shown.
      const refused = await page.evaluate(async (id) => {
        const res = await fetch("api/memory", {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ persona: "Mira", action: "delete", id }),
        });
        return res.status;
      }, tea.id);
      expect(refused).toBe(401);
      expect((await fetch(`${base}/console/api/memories`)).status).toBe(401);
      expect((await fetch(`${base}/console/api/media`)).status).toBe(401);
      expect(rig.h.runtime.memories.get(tea.id)).toBeDefined();

      await teaRow.locator("textarea").fill("Alice now drinks only black coffee");
      await teaRow.locator(".memory-save").click();
      await expect
        .poll(() => rig.h.runtime.memories.get(tea.id)?.content)
        .toBe("Alice now drinks only black coffee");
      await page.locator(`tr.memory[data-memory-id="${dog.id}"] .memory-delete`).click();
      await expect.poll(() => rig.h.runtime.memories.get(dog.id)).toBeUndefined();
      await page.locator("#add-chat").selectOption(group); // the chat by its title
      await page.locator("#add-subject").fill(alice);
      await page.locator("#add-text").fill("Alice is learning Portuguese");
      // The list the add asks for again comes back late, after a search typed meanwhile: the
      // search's answer stays on the page (a late answer of an older look is dropped).
      let held: (() => void) | undefined;
      const heldBack = new Promise<void>((r) => (held = r));
      let asked = 0;
      await page.route("**/console/api/memories?**", async (route) => {
        if (!route.request().url().includes("q=") && asked++ === 0) await heldBack;
        await route.continue();
      });
      const late = page.waitForResponse(
        (r) => r.url().includes("/console/api/memories?") && !r.url().includes("q="),
      );
      await page.locator("#add-memory").click();
      await expect.poll(() => asked).toBe(1);
      // The full-text search finds the edited one.
      await page.locator("#memory-q").fill("coffee");
      await page.locator("#memory-q").press("Enter");
      await expect.poll(() => page.locator("tr.memory").count()).toBe(1);
      held!();
      await (await late).finished();
      // Nothing to wait for when it is dropped: a moment for the page to read it, then the count.
      await page.evaluate(() => new Promise((r) => setTimeout(r, 100)));
      expect(await page.locator("tr.memory").count()).toBe(1);
      // The operator's words are marked as such.
      expect(await page.locator("tr.memory").textContent()).toContain("edited by the owner");
      // The whole list again: the added one is there.
      await page.locator("#memory-q").fill("");
      await page.locator("#memory-q").press("Enter");
      await expect
        .poll(() =>
          page
            .locator("tr.memory textarea")
            .evaluateAll((boxes) => boxes.map((b) => (b as unknown as { value: string }).value).sort()),
        )
        .toEqual(["Alice is learning Portuguese", "Alice now drinks only black coffee"]);

      rig.h.gemini.script(plan({ kind: "send", text: "coffee it is" }));
      await rig.h.emu.post({ chat: rig.h.group, from: rig.h.alice, text: "@mira_ai what should I drink?" });
      await rig.h.pass(20_000);
      expect(rig.h.sent(rig.h.group).map((m) => m.text)).toEqual(["coffee it is"]);
      const text = lastPlanText();
      expect(text).toMatch(/ · edited by the owner⟧ the owner wrote: Alice now drinks only black coffee/);
      expect(text).toContain("Alice is learning Portuguese");
      expect(text).not.toContain("green tea");
      expect(text).not.toContain("Rex");
    });
  }, 60_000);

  it("the Add row lists the persona's chats past the newest 100, and takes a chat typed by its id", async () => {
    const { page, base } = await open(tempDir());
    const h = rig.h;
    // 130 group chats, each with one message; "Old Club" has the oldest.
    const t0 = h.clock.now() - 3_600_000;
    for (let i = 0; i < 130; i++) {
      const chatId = `-100900000${String(i).padStart(4, "0")}`;
      h.runtime.chats.upsert({ chatId, chatType: "supergroup", title: i === 0 ? "Old Club" : `Chat ${i}` });
      h.runtime.messages.insert({
        chatId,
        messageId: 1,
        senderId: String(h.alice.id),
        senderName: "Alice",
        date: t0 + i * 1000,
        text: `hello ${i}`,
        isAgent: false,
      });
    }
    h.runtime.messages.commit();
    await withScreenshot(page, "console-memory-add", async () => {
      await page.goto(`${base}/console/#memory`);
      const old = page.locator('#add-chat option[value="-1009000000000"]');
      await old.waitFor({ state: "attached" });
      expect(await old.textContent()).toContain("Old Club");
      await page.locator("#add-chat").selectOption("-1009000000000");
      await page.locator("#add-text").fill("the club meets on Fridays");
      await page.locator("#add-memory").click();
      await expect
        .poll(() => h.runtime.memories.list("-1009000000000").map((m) => m.content))
        .toEqual(["the club meets on Fridays"]);
      // A chat not in the list at all, by its id.
      await page.locator("#add-chat-id").fill("-1009999999999");
      await page.locator("#add-text").fill("a chat beyond the list");
      await page.locator("#add-memory").click();
      await expect
        .poll(() => h.runtime.memories.list("-1009999999999").map((m) => m.content))
        .toEqual(["a chat beyond the list"]);
    });
  }, 60_000);
});

describe("the console's media editor", () => {
  it("an edited description is written as a curated file and the next planning request uses it; a cache entry can be dropped", async () => {
    const agents = tempDir();
    const { page, base } = await open(agents);
    rig.h.gemini.respondWith((body) =>
      requestPurpose(body) === "plan"
        ? plan({ kind: "send", text: "nice" })
        : { json: { text: "a blurry photo" } },
    );
    const bytes = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.alloc(64, 7)]);
    await rig.h.emu.post({
      chat: rig.h.group,
      from: rig.h.alice,
      text: "@mira_ai look",
      media: { kind: "photo", bytes },
    });
    await rig.h.pass(20_000);
    expect(lastPlanText()).toContain("[photo: a blurry photo]");
    await withScreenshot(page, "console-media", async () => {
      await page.goto(`${base}/console/#media`);
      const row = page.locator("#media-cache tr.media-row").first();
      await row.waitFor();
      const uid = (await row.getAttribute("data-uid"))!;
      expect(await row.locator(".media-status").textContent()).toContain("a blurry photo");
      // Its picture is served (as an image type, to the page's session only) and shown.
      await expect
        .poll(() => row.locator("img.thumb").getAttribute("src"), { timeout: 5000 })
        .toMatch(/^blob:/);
      const picture = `${base}/console/api/media/image?uid=${encodeURIComponent(uid)}`;
      expect((await page.request.get(picture)).status()).toBe(401);
      const img = await page.request.get(picture, {
        headers: { "x-console-session": await pageSession(page) },
      });
      expect(img.status()).toBe(200);
      expect(img.headers()["content-type"]).toBe("image/jpeg");

      // Promoted as is: the AI's words become a curated entry.
      const file = join(agents, "Mira", "media", "console.json");
      await row.locator(".media-promote").click();
      await expect
        .poll(() => (existsSync(file) ? readFileSync(file, "utf8") : ""), { timeout: 5000 })
        .toContain("a blurry photo");
      await page.locator(`#curated-media tr[data-uid="${uid}"]`).waitFor();

      // Edited: the same entry of the same file is rewritten.
      await row.locator("textarea").fill("a ginger cat on a windowsill");
      await row.locator(".media-save").click();
      await expect.poll(() => readFileSync(file, "utf8"), { timeout: 5000 }).toContain("ginger cat");
      expect(JSON.parse(readFileSync(file, "utf8"))).toEqual([
        { unique_id: uid, kind: "photo", description: "a ginger cat on a windowsill" },
      ]);
      // Written whole through a temporary file: nothing else is left in the folder.
      expect(readdirSync(join(agents, "Mira", "media"))).toEqual(["console.json"]);
      // Only the owner may read what a person's picture showed (another local user cannot).
      expect(statSync(file).mode & 0o777).toBe(0o600);

      rig.h.gemini.script(plan({ kind: "send", text: "a cat indeed" }));
      await rig.h.emu.post({ chat: rig.h.group, from: rig.h.alice, text: "@mira_ai what was in my photo?" });
      await rig.h.pass(20_000);
      expect(lastPlanText()).toContain("[photo: a ginger cat on a windowsill]");
      expect(lastPlanText()).not.toContain("a blurry photo");

      // Dropped from the AI cache: described again when next seen.
      await page.locator(`#media-cache tr[data-uid="${uid}"] .media-drop`).click();
      await expect.poll(() => page.locator(`#media-cache tr[data-uid="${uid}"]`).count()).toBe(0);
      expect(new MediaCache(rig.h.db).get(uid)).toBeUndefined();
    });
  }, 60_000);
});
