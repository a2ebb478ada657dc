/**
 * Her voice notes across a crash and a duplicate random_id: the note that went out is found by
 * what identifies it (duration and waveform, kept in the task before the send — never the audio),
 * so a restart pays no second speech call, and the owner's own voice note is never taken for hers.
 * And a note kept for a send that ends otherwise is let go at once.
 */
import { Api } from "telegram";
import { afterEach, describe, expect, it } from "vitest";
import { registry } from "../../src/metrics/metrics";
import { Harness, plan, TEST_PERSONA } from "../support/harness";
import { isPlanRequest, isSpeechRequest, type FakeReply, type GenerateBody } from "../support/gemini-fake";
import { until } from "../support/wait";

let h: Harness;
afterEach(async () => {
  await h?.close();
});

const VOICE_PERSONA = `${TEST_PERSONA}\n# Voice\nspeaks: when spoken to\nvoice: Puck\nmax seconds: 20\n`;
/** 46 characters: 3 s at 15 characters a second (the fake's tone is that long too). */
const SAID = "Sure, see you at six by the old fountain then!";
const voiceNote = {
  kind: "voice" as const,
  bytes: Buffer.from("OggS-not-really"),
  mimeType: "audio/ogg",
  duration: 4,
};

function answering(...tasks: unknown[]): (body: GenerateBody) => FakeReply {
  return (body) => (isPlanRequest(body) ? plan(...tasks) : { json: { text: "are we still on for six?" } });
}
const speechBodies = () => h.gemini.requests.map((r) => r.body).filter(isSpeechRequest);
const mediaSends = () => h.emu.traffic.requests.filter((r) => r.request instanceof Api.messages.SendMedia);
/** Her stored rows: id and text. */
const ownRows = (chatId: string) =>
  h.db
    .prepare(
      "SELECT message_id AS id, text FROM messages WHERE chat_id = ? AND is_agent = 1 ORDER BY message_id",
    )
    .all(chatId) as { id: number; text: string }[];
const heldNotes = async () =>
  (await registry.getSingleMetric("userbot_voice_notes_held")!.get()).values.reduce((n, v) => n + v.value, 0);

describe("a crash after her voice note went out", () => {
  it("the restart finds the note in her history: no second speech call, no second send, her row gets her words — and only its mark was stored", async () => {
    h = await Harness.start({ persona: VOICE_PERSONA });
    h.gemini.respondWith(answering({ kind: "send", text: SAID, voice: true }));
    const dm = h.emu.dm(h.account, h.carol);
    let crashed = false;
    h.emu.faults.hang("messages.SendMedia", {
      when: "after-apply",
      onHang: () => {
        crashed = true;
        h.crash();
      },
    });
    await h.emu.post({ chat: dm, from: h.carol, text: "", media: voiceNote });
    await h.pass(20_000);
    expect(crashed).toBe(true);
    expect(speechBodies()).toHaveLength(1);
    h.boot();
    await h.pass(60_000);

    expect(speechBodies()).toHaveLength(1); // paid once
    expect(mediaSends()).toHaveLength(1); // nothing uploaded or sent again
    const mine = h.emu.history(dm).filter((m) => m.fromId === h.account.id);
    expect(mine.map((m) => m.media)).toEqual(["voice"]);
    expect(ownRows(dm.peerId)).toEqual([{ id: mine[0]!.id, text: `[voice 3 s] ${SAID}` }]);
    expect(h.log.lines().filter((l) => String(l.msg).includes("the owner wrote"))).toEqual([]);
    // The task kept what identifies the note — its duration and waveform, a few dozen bytes — not the audio.
    const payload = h.db.prepare("SELECT payload FROM tasks WHERE kind = 'send'").pluck().get() as string;
    const notes = (JSON.parse(payload) as { notes: { seconds: number; waveform: string }[] }).notes;
    expect(notes).toEqual([
      { seconds: 3, waveform: mine[0]!.audio!.waveform!.toString("base64"), at: expect.any(Number) },
    ]);
    expect(payload.length).toBeLessThan(600);
  });
});

describe("the owner's own voice note in the restart's catch-up", () => {
  it("of another length than hers is the owner's takeover; hers, in the same catch-up, is not", async () => {
    h = await Harness.start({ persona: VOICE_PERSONA });
    h.gemini.respondWith(answering({ kind: "send", text: SAID, voice: true }));
    const dm = h.emu.dm(h.account, h.carol);
    h.emu.faults.hang("messages.SendMedia", { when: "after-apply", onHang: () => h.crash() });
    await h.emu.post({ chat: dm, from: h.carol, text: "", media: voiceNote });
    await h.pass(20_000);
    // While she is down the owner answers from the phone with a 7 s voice note.
    const owners = { ...voiceNote, duration: 7, waveform: Buffer.alloc(63, 0x42) };
    await h.emu.post({ chat: dm, from: h.account, text: "", media: owners, deliverToSender: true });
    h.boot();
    await h.pass(60_000);
    const takeovers = h.log.lines().filter((l) => String(l.msg).includes("the owner wrote in this chat"));
    expect(takeovers.map((l) => l.messageId)).toEqual([h.emu.history(dm).at(-1)!.id]);
    expect(speechBodies()).toHaveLength(1);
  });
});

describe("a crash before her note went out, an earlier note of hers alike", () => {
  it("the restart does not take her earlier note that sounds the same for this one: it is made again and sent", async () => {
    h = await Harness.start({ persona: VOICE_PERSONA });
    h.gemini.respondWith(answering({ kind: "send", text: SAID, voice: true }));
    const dm = h.emu.dm(h.account, h.carol);
    await h.emu.post({ chat: dm, from: h.carol, text: "", media: voiceNote });
    await h.pass(60_000);
    expect(mediaSends()).toHaveLength(1); // the first answer, a 3 s note
    await h.pass(30 * 60_000);
    // The same words again half an hour later (the same note: the same tone): the process dies
    // before Telegram has it.
    h.emu.faults.hang("messages.SendMedia", { when: "before-apply", onHang: () => h.crash() });
    await h.emu.post({ chat: dm, from: h.carol, text: "", media: voiceNote });
    await h.pass(20_000);
    expect(speechBodies()).toHaveLength(2);
    h.boot();
    await h.pass(60_000);
    const mine = h.emu.history(dm).filter((m) => m.fromId === h.account.id);
    expect(mine).toHaveLength(2); // the second answer reached the chat
    expect(ownRows(dm.peerId).map((r) => r.text)).toEqual([`[voice 3 s] ${SAID}`, `[voice 3 s] ${SAID}`]);
  });
});

describe("a crash while her voice note is being made", () => {
  it("nothing of hers went out: the owner's voice note from the phone meanwhile is the owner's takeover, stored as the owner's, and her note is not sent after it", async () => {
    h = await Harness.start({ persona: VOICE_PERSONA });
    h.gemini.respondWith(answering({ kind: "send", text: SAID, voice: true }));
    // The speech call is slow: the process dies while it is being made (no note, no mark yet).
    h.gemini.scriptSpeech({ delayMs: 5_000, then: { speech: {} } });
    const dm = h.emu.dm(h.account, h.carol);
    await h.emu.post({ chat: dm, from: h.carol, text: "", media: voiceNote });
    // Fake time runs on while the speech call is out; the process dies as soon as it is asked.
    const passing = h.pass(20_000).catch(() => undefined);
    await until(() => speechBodies().length === 1);
    h.crash();
    await passing;
    expect(mediaSends()).toHaveLength(0);
    // While she is down the owner answers from the phone with a 7 s voice note.
    const owners = { ...voiceNote, duration: 7, waveform: Buffer.alloc(63, 0x42) };
    await h.emu.post({ chat: dm, from: h.account, text: "", media: owners, deliverToSender: true });
    const ownersId = h.emu.history(dm).at(-1)!.id;
    h.boot();
    await h.pass(60_000);
    const takeovers = h.log.lines().filter((l) => String(l.msg).includes("the owner wrote in this chat"));
    expect(takeovers.map((l) => l.messageId)).toEqual([ownersId]);
    expect(ownRows(dm.peerId)).toEqual([{ id: ownersId, text: "[voice 0:07]" }]); // the owner's row, not her words
    expect(mediaSends()).toHaveLength(0); // and hers does not follow the owner's answer
  });
});

describe("a crash while her words go as text instead", () => {
  it("the note refused, the text's send cut by a crash: the restart sends the text with the same random_id and speaks no more", async () => {
    h = await Harness.start({ persona: VOICE_PERSONA });
    h.gemini.respondWith(answering({ kind: "send", text: SAID, voice: true }));
    const dm = h.emu.dm(h.account, h.carol);
    h.emu.faults.failNext("messages.SendMedia", "MEDIA_INVALID", { code: 400 });
    let crashed = false;
    h.emu.faults.hang("messages.SendMessage", {
      when: "after-apply",
      onHang: () => {
        crashed = true;
        h.crash();
      },
    });
    await h.emu.post({ chat: dm, from: h.carol, text: "", media: voiceNote });
    await h.pass(20_000);
    expect(crashed).toBe(true);
    h.boot();
    await h.pass(60_000);
    expect(speechBodies()).toHaveLength(1); // paid once
    expect(mediaSends()).toHaveLength(1); // the refused one; no second note tried
    expect(
      h.emu
        .history(dm)
        .filter((m) => m.fromId === h.account.id)
        .map((m) => m.text),
    ).toEqual([SAID]);
    expect(ownRows(dm.peerId).map((r) => r.text)).toEqual([SAID]);
    const ids = h.emu.traffic.requests
      .filter(
        (r) => r.request instanceof Api.messages.SendMedia || r.request instanceof Api.messages.SendMessage,
      )
      .map((r) => (r.request as Api.messages.SendMessage).randomId?.toString());
    expect(new Set(ids).size).toBe(1);
  });
});

describe("RANDOM_ID_DUPLICATE and the owner's own voice note", () => {
  it("her retried note is matched exactly: the owner's 3 s note sent from the phone meanwhile keeps the owner's row, hers gets her words", async () => {
    h = await Harness.start({ persona: VOICE_PERSONA, requestTimeoutMs: 300 });
    h.emu.faults.setDuplicateMode("error");
    h.gemini.respondWith(answering({ kind: "send", text: SAID, voice: true }));
    const dm = h.emu.dm(h.account, h.carol);
    // Her note is stored by Telegram but its answer is lost; the owner sends a voice note of the
    // same length from the phone before her retry asks again.
    const owners = { ...voiceNote, duration: 3, waveform: Buffer.alloc(63, 0x42) };
    h.emu.faults.hang("messages.SendMedia", {
      when: "after-apply",
      onHang: () => {
        void h.emu.post({ chat: dm, from: h.account, text: "", media: owners, deliverToSender: true });
      },
    });
    await h.emu.post({ chat: dm, from: h.carol, text: "", media: voiceNote });
    await h.pass(60_000);
    await until(() => mediaSends().length >= 2);
    await h.pass(10_000);

    const mine = h.emu.history(dm).filter((m) => m.fromId === h.account.id);
    expect(mine.map((m) => m.audio?.waveform?.[0] === 0x42)).toEqual([false, true]); // hers, then the owner's
    const [hers, owner] = mine;
    const rows = new Map(ownRows(dm.peerId).map((r) => [r.id, r.text]));
    expect(rows.get(hers!.id)).toBe(`[voice 3 s] ${SAID}`);
    expect(rows.get(owner!.id)).not.toContain(SAID);
    expect(speechBodies()).toHaveLength(1);
  });
});

describe("a kept note whose send ends otherwise", () => {
  it("the owner taking over once the note is made: the note is let go at once, not held until others push it out", async () => {
    h = await Harness.start({ persona: VOICE_PERSONA });
    let release!: () => void;
    h.gemini.scriptSpeech({ after: new Promise<void>((r) => (release = r)), then: { speech: {} } });
    h.gemini.respondWith(answering({ kind: "send", text: SAID, voice: true }));
    const dm = h.emu.dm(h.account, h.carol);
    await h.emu.post({ chat: dm, from: h.carol, text: "", media: voiceNote });
    const passing = h.pass(10_000);
    await until(() => speechBodies().length === 1);
    const mine = await h.ownerSays("I'll answer this one myself", dm);
    await until(() => h.runtime.messages.get(dm.peerId, mine) !== undefined);
    release();
    await passing;
    await h.pass(30_000);
    expect(h.log.lines().some((l) => l.msg === "voice note made")).toBe(true);
    expect(mediaSends()).toHaveLength(0);
    expect(await heldNotes()).toBe(0);
  });
});
