import { describe, expect, it } from "vitest";
import { isPlanRequest, type FakeReply, type GenerateBody } from "../support/gemini-fake";
import { TEST_PERSONA, plan } from "../support/harness";
import { consoleRig, pageSession } from "./rig";

const TOKEN = "console-voice-token-0123456789";
const rig = consoleRig(TOKEN);

const VOICE_PERSONA = `${TEST_PERSONA}\n# Voice\nspeaks: when spoken to\nvoice: Puck\nmax seconds: 20\n`;
const SAID = "Sure, see you at six by the old fountain then!";

function answering(...tasks: unknown[]): (body: GenerateBody) => FakeReply {
  return (body) => (isPlanRequest(body) ? plan(...tasks) : { json: { text: "are we still on for six?" } });
}

describe("her voice notes on the console", () => {
  it("the chat page plays her voice note, fetched from Telegram on demand: the note's own Ogg bytes, nothing stored; anything else is 404", async () => {
    const { page, base } = await rig.open({ persona: VOICE_PERSONA });
    const h = rig.h;
    h.gemini.respondWith(answering({ kind: "send", text: SAID, voice: true }));
    const dm = h.emu.dm(h.account, h.carol);
    await h.emu.post({ chat: h.group, from: h.alice, text: "anyone around tonight?" });
    await h.emu.post({
      chat: dm,
      from: h.carol,
      text: "",
      media: { kind: "voice", bytes: Buffer.from("OggS-not-really"), mimeType: "audio/ogg", duration: 4 },
    });
    await h.pass(30_000);
    const mine = h.emu.history(dm).filter((m) => m.fromId === h.account.id);
    expect(mine).toHaveLength(1);
    const stored = mine[0]!.audio!.bytes;
    const voiceId = mine[0]!.id;
    // A text message of hers in the same chat, and a message in another chat.
    h.gemini.respondWith(answering({ kind: "send", text: "great" }));
    await h.emu.post({ chat: dm, from: h.carol, text: "perfect, thanks" });
    await h.pass(30_000);
    const textId = h.emu.history(dm).filter((m) => m.fromId === h.account.id)[1]!.id;
    const theirs = h.emu.history(dm).find((m) => m.fromId === h.carol.id)!.id;

    const session = await pageSession(page);
    const get = (
      chat: string,
      msg: number | string,
      headers: Record<string, string> = { "x-console-session": session },
    ) =>
      fetch(`${base}/console/api/voice?persona=Mira&chat=${encodeURIComponent(chat)}&msg=${msg}`, {
        headers,
      });
    const res = await get(dm.peerId, voiceId);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("audio/ogg");
    const bytes = Buffer.from(await res.arrayBuffer());
    expect(bytes.subarray(0, 4).toString("latin1")).toBe("OggS");
    expect(bytes.equals(stored)).toBe(true);
    // Fetched from Telegram: upload.getFile was asked for it.
    expect(h.emu.traffic.requests.some((r) => r.request.className === "upload.GetFile")).toBe(true);

    // Her text message, carol's voice note, another chat's id for hers, a malformed id: 404.
    for (const [chat, msg] of [
      [dm.peerId, textId],
      [dm.peerId, theirs],
      [h.group.peerId, voiceId],
      [dm.peerId, "1e3"],
    ] as const)
      expect((await get(chat, msg)).status, `${chat} ${msg}`).toBe(404);
    // Telegram's own answer is checked too: carol's voice note is not sent from the account, and
    // her note is not in the group.
    expect(await h.runtime.ownVoice.fetch(dm.peerId, theirs)).toBeUndefined();
    expect(await h.runtime.ownVoice.fetch(h.group.peerId, voiceId)).toBeUndefined();
    expect(await h.runtime.ownVoice.fetch(dm.peerId, textId)).toBeUndefined();
    // Without a session: 401, no audio.
    expect((await get(dm.peerId, voiceId, {})).status).toBe(401);
    // Nothing of the audio was written to the database.
    const dbBytes = h.db
      .prepare("SELECT text FROM messages WHERE chat_id = ? AND is_agent = 1 ORDER BY message_id")
      .all(dm.peerId)
      .map((r) => (r as { text: string }).text);
    expect(dbBytes).toEqual([`[voice 3 s] ${SAID}`, "great"]);

    // The page: a player beside her voice note only, which fetches the note when played.
    await page.goto(`${base}/console/#chat/Mira/${encodeURIComponent(dm.peerId)}`);
    await page.locator("audio").first().waitFor();
    expect(await page.locator("audio").count()).toBe(1);
    expect(await page.locator("audio").getAttribute("preload")).toBe("none");
    // The note is still on its way when a message arrives and the page updates live: the player
    // being played is kept (a new one would have stopped the note and never got it).
    let drawn = (): void => undefined;
    const liveUpdateDrawn = new Promise<void>((r) => (drawn = r));
    await page.route("**/console/api/voice?**", async (route) => {
      await liveUpdateDrawn;
      await route.continue();
    });
    await page.evaluate(() => {
      const a = (
        globalThis as unknown as { document: { querySelector(s: string): { play(): Promise<void> } } }
      ).document.querySelector("audio");
      void a.play().catch(() => undefined);
    });
    const later = await h.emu.post({ chat: dm, from: h.carol, text: "can't wait" });
    await page.locator(`[data-message-id="${later.id}"]`).waitFor({ timeout: 10_000 });
    drawn();
    await page.waitForFunction(() =>
      (globalThis as unknown as { document: { querySelector(s: string): { src: string } } }).document
        .querySelector("audio")
        .src.startsWith("blob:"),
    );
  }, 60_000);
});
