import { Api } from "telegram";
import { afterEach, describe, expect, it } from "vitest";
import { unpackWaveform } from "../../src/media/voice-note";
import { Harness, plan, TEST_PERSONA } from "../support/harness";
import {
  isPlanRequest,
  isSpeechRequest,
  lastUserText,
  type FakeReply,
  type GenerateBody,
} from "../support/gemini-fake";
import { readOggOpus } from "../support/ogg-opus-check";
import { until } from "../support/wait";

let h: Harness;
afterEach(async () => {
  await h?.close();
});

const VOICE_PERSONA = `${TEST_PERSONA}\n# Voice\nspeaks: when spoken to\nvoice: Puck\nmax seconds: 20\n`;
/** 46 characters: 3 s at 15 characters a second (the fake's tone is that long too). */
const SAID = "Sure, see you at six by the old fountain then!";

/** A voice note someone sends (its bytes need not be real: only its kind and length are read). */
const voiceNote = {
  kind: "voice" as const,
  bytes: Buffer.from("OggS-not-really"),
  mimeType: "audio/ogg",
  duration: 4,
};

/** Plans answer with `tasks`, transcriptions say "are we still on for six?". */
function answering(...tasks: unknown[]): (body: GenerateBody) => FakeReply {
  return (body) => (isPlanRequest(body) ? plan(...tasks) : { json: { text: "are we still on for six?" } });
}

const planBodies = () => h.gemini.requests.map((r) => r.body).filter(isPlanRequest);
const speechBodies = () => h.gemini.requests.map((r) => r.body).filter(isSpeechRequest);
/** Whether the plan's answer schema lets a send be spoken. */
const offersVoice = (body: GenerateBody) =>
  JSON.stringify(body.generationConfig?.responseJsonSchema).includes('"voice"');
const ownStored = (chatId: string) =>
  h.db
    .prepare("SELECT text FROM messages WHERE chat_id = ? AND is_agent = 1 ORDER BY message_id")
    .all(chatId)
    .map((r) => (r as { text: string }).text);
const actions = (chat: Parameters<Harness["emu"]["traffic"]["typing"]>[0]) =>
  h.emu.traffic.typing(chat).map((t) => t.action.replace(/^SendMessage|Action$/g, ""));

describe("a voice of her own", () => {
  it("a DM partner's voice note gets a voice note back: Ogg Opus 48 kHz mono with its duration and waveform, recorded then uploaded, remembered as text", async () => {
    h = await Harness.start({ persona: VOICE_PERSONA });
    h.gemini.respondWith(answering({ kind: "send", text: SAID, voice: true }));
    const dm = h.emu.dm(h.account, h.carol);
    await h.emu.post({ chat: dm, from: h.carol, text: "", media: voiceNote });
    await h.pass(30_000);

    // The plan was offered a spoken answer, and told she was spoken to.
    const [first] = planBodies();
    expect(offersVoice(first!)).toBe(true);
    expect(lastUserText(first!)).toMatch(/They sent you a voice message: answer with one/);
    // One speech call, in the persona's voice, with her words.
    const [speech] = speechBodies();
    expect(speech!.generationConfig).toMatchObject({
      responseModalities: ["AUDIO"],
      speechConfig: { voiceConfig: { prebuiltVoiceConfig: { voiceName: "Puck" } } },
    });
    expect(lastUserText(speech!)).toBe(SAID);

    // What reached the chat: a real voice note.
    const mine = h.emu.history(dm).filter((m) => m.fromId === h.account.id);
    expect(mine).toHaveLength(1);
    expect(mine[0]!.media).toBe("voice");
    const audio = mine[0]!.audio!;
    expect(audio.mimeType).toBe("audio/ogg");
    expect(audio.duration).toBe(3);
    const ogg = readOggOpus(audio.bytes);
    expect(ogg).toMatchObject({ channels: 1, inputRate: 48_000, flagsOk: true });
    expect((ogg.finalGranule - ogg.preSkip) / 48_000).toBe(3);
    expect(audio.waveform).toHaveLength(63);
    expect(Math.max(...unpackWaveform(audio.waveform!))).toBe(31);
    // Recording while she "speaks" and it is made, then uploading — never typing.
    const shown = actions(dm);
    expect(shown).toContain("RecordAudio");
    expect(shown.at(-1)).toBe("UploadAudio");
    expect(shown).not.toContain("Typing");
    expect(shown.indexOf("UploadAudio")).toBeGreaterThan(shown.lastIndexOf("RecordAudio"));
    const sendMedia = h.emu.traffic.requests.filter((r) => r.request instanceof Api.messages.SendMedia);
    expect(sendMedia).toHaveLength(1);

    // Her history holds what she said, and the next plan reads it as her message.
    expect(ownStored(dm.peerId)).toEqual([`[voice 3 s] ${SAID}`]);
    h.gemini.respondWith(answering({ kind: "send", text: "great" }));
    await h.emu.post({ chat: dm, from: h.carol, text: "perfect, what did you say about the fountain?" });
    await h.pass(30_000);
    expect(lastUserText(planBodies().at(-1)!)).toContain(`[voice 3 s] ${SAID}`);
    // She was written to, so she writes (the schema offers no voice: # Voice says "when spoken to"),
    // and is told why — not that she cannot send voice messages, which her history belies.
    expect(offersVoice(planBodies().at(-1)!)).toBe(false);
    expect(lastUserText(planBodies().at(-1)!)).toContain(
      "You answer a voice message with a voice message of your own; here you were written to, so you write.",
    );
    expect(lastUserText(planBodies().at(-1)!)).not.toMatch(/cannot[^.]*voice messages/);
    expect(h.sent(dm).at(-1)!.text).toBe("great");

    // Priced and counted under `speech`, and /status lists it.
    const today = h.runtime.usage.today(h.clock.now());
    expect(today.byPurpose.speech).toBe(1);
    await h.ownerSays("/status");
    await h.pass(5_000);
    expect(h.savedReplies().join("\n")).toMatch(/LLM calls by purpose: .*speech 1/);
  });

  it("by default (no # Voice) nothing changes: no voice in the schema, a plan's voice flag is ignored, no speech call", async () => {
    h = await Harness.start();
    h.gemini.respondWith(answering({ kind: "send", text: SAID, voice: true }));
    const dm = h.emu.dm(h.account, h.carol);
    await h.emu.post({ chat: dm, from: h.carol, text: "", media: voiceNote });
    await h.pass(30_000);
    expect(offersVoice(planBodies()[0]!)).toBe(false);
    expect(lastUserText(planBodies()[0]!)).toContain("or send photos, files or voice messages");
    expect(speechBodies()).toHaveLength(0);
    expect(h.sent(dm).map((m) => m.text)).toEqual([SAID]);
  });

  it("a failed synthesis sends the words as text, once — never silence", async () => {
    h = await Harness.start({ persona: VOICE_PERSONA });
    h.gemini.scriptSpeech({ status: 400, message: "voice not found" });
    h.gemini.respondWith(answering({ kind: "send", text: SAID, voice: true }));
    const dm = h.emu.dm(h.account, h.carol);
    await h.emu.post({ chat: dm, from: h.carol, text: "", media: voiceNote });
    await h.pass(30_000);
    expect(speechBodies()).toHaveLength(1);
    expect(h.sent(dm).map((m) => m.text)).toEqual([SAID]);
    expect(h.emu.history(dm).filter((m) => m.media === "voice" && m.fromId === h.account.id)).toHaveLength(0);
    expect(h.log.lines().some((l) => l.msg === "voice note not made; sending the words as text")).toBe(true);
  });

  it("a day's token budget spent by the plan itself: the words go as text, no speech call", async () => {
    h = await Harness.start({ persona: `${VOICE_PERSONA}\n# Daily Token Budget\n1000\n` });
    h.gemini.respondWith(answering({ kind: "send", text: SAID, voice: true }));
    const dm = h.emu.dm(h.account, h.carol);
    await h.emu.post({ chat: dm, from: h.carol, text: "", media: voiceNote });
    await h.pass(30_000);
    expect(planBodies()).toHaveLength(1);
    expect(speechBodies()).toHaveLength(0);
    expect(h.sent(dm).map((m) => m.text)).toEqual([SAID]);
    expect(
      h.log.lines().find((l) => l.msg === "voice note not made; sending the words as text")?.reason,
    ).toMatch(/cap: daily-token-budget/);
  });

  it("a link or a long answer is written even when the plan chose to speak it", async () => {
    h = await Harness.start({ persona: VOICE_PERSONA });
    const long = "This is a long story. ".repeat(20).trim();
    h.gemini.respondWith(
      answering(
        { kind: "send", text: "the map is at https://maps.example/fountain", voice: true },
        { kind: "send", text: long, voice: true },
      ),
    );
    const dm = h.emu.dm(h.account, h.carol);
    await h.emu.post({ chat: dm, from: h.carol, text: "", media: voiceNote });
    await h.pass(60_000);
    expect(speechBodies()).toHaveLength(0);
    expect(h.sent(dm).map((m) => m.text)).toEqual(["the map is at https://maps.example/fountain", long]);
  });

  it("a group whose default rights forbid voice messages gets text: voice is not offered there", async () => {
    h = await Harness.start({ persona: `${TEST_PERSONA}\n# Voice\nspeaks: when it suits\n` });
    await h.emu.chats.restrict(h.group, { defaultBans: { sendVoices: true } });
    h.gemini.respondWith(answering({ kind: "send", text: "on my way", voice: true }));
    await h.emu.post({ chat: h.group, from: h.alice, text: "@mira_ai", media: voiceNote });
    await h.pass(30_000);
    expect(offersVoice(planBodies()[0]!)).toBe(false);
    expect(speechBodies()).toHaveLength(0);
    expect(h.sent(h.group).map((m) => m.text)).toEqual(["on my way"]);
  });

  it("a group that forbids her text (send_plain) and stickers but takes voice messages: she is planned, offered voice only, and speaks", async () => {
    h = await Harness.start({ persona: `${TEST_PERSONA}\n# Voice\nspeaks: when it suits\n` });
    await h.emu.chats.restrict(h.group, { defaultBans: { sendPlain: true, sendStickers: true } });
    // The plan writes one answer and also a link, which cannot be said: the link is dropped, not written.
    h.gemini.respondWith(
      answering({ kind: "send", text: "on my way" }, { kind: "send", text: "map: https://maps.example/x" }),
    );
    await h.emu.post({ chat: h.group, from: h.alice, text: "@mira_ai", media: voiceNote });
    await h.pass(30_000);
    const [first] = planBodies();
    expect(first).toBeDefined();
    expect(offersVoice(first!)).toBe(true);
    expect(lastUserText(first!)).toContain("This chat does not let you write text.");
    expect(lastUserText(first!)).toContain(
      "Every send you make here is said in your voice as a voice message",
    );
    expect(lastUserText(first!)).not.toContain("otherwise write");
    expect(speechBodies().map(lastUserText)).toEqual(["on my way"]);
    const mine = h.emu.history(h.group).filter((m) => m.fromId === h.account.id);
    expect(mine.map((m) => m.media)).toEqual(["voice"]);
    expect(h.emu.traffic.requests.filter((r) => r.request instanceof Api.messages.SendMessage)).toHaveLength(
      0,
    );
  });

  it("where her text is forbidden, a note that cannot be made is dropped: no text is tried for Telegram to refuse", async () => {
    h = await Harness.start({ persona: `${TEST_PERSONA}\n# Voice\nspeaks: when it suits\n` });
    await h.emu.chats.restrict(h.group, { defaultBans: { sendPlain: true, sendStickers: true } });
    h.gemini.scriptSpeech({ status: 400, message: "voice not found" });
    h.gemini.respondWith(answering({ kind: "send", text: "on my way", voice: true }));
    await h.emu.post({ chat: h.group, from: h.alice, text: "@mira_ai", media: voiceNote });
    await h.pass(30_000);
    expect(speechBodies()).toHaveLength(1);
    expect(h.emu.traffic.requests.filter((r) => r.request instanceof Api.messages.SendMessage)).toHaveLength(
      0,
    );
    expect(h.emu.history(h.group).filter((m) => m.fromId === h.account.id)).toEqual([]);
    expect(
      h.log.lines().filter((l) => String(l.msg).includes("this chat takes no text from her; dropped")),
    ).toHaveLength(1);
  });

  it("a person whose privacy forbids voice messages gets the words as text with the same send, and text from then on", async () => {
    h = await Harness.start({ persona: VOICE_PERSONA });
    h.emu.forbidVoiceMessages(h.carol);
    h.gemini.respondWith(answering({ kind: "send", text: SAID, voice: true }));
    const dm = h.emu.dm(h.account, h.carol);
    await h.emu.post({ chat: dm, from: h.carol, text: "", media: voiceNote });
    await h.pass(30_000);
    expect(h.sent(dm).map((m) => m.text)).toEqual([SAID]);
    await h.emu.post({ chat: dm, from: h.carol, text: "", media: voiceNote });
    await h.pass(30_000);
    expect(offersVoice(planBodies().at(-1)!)).toBe(false);
    expect(speechBodies()).toHaveLength(1);
  });

  it("exactly once: a voice send whose answer is lost after the server stored it is retried with its random_id and stays one message", async () => {
    h = await Harness.start({ persona: VOICE_PERSONA, requestTimeoutMs: 300 });
    h.gemini.respondWith(answering({ kind: "send", text: SAID, voice: true }));
    const dm = h.emu.dm(h.account, h.carol);
    h.emu.faults.hang("messages.SendMedia", { when: "after-apply" });
    await h.emu.post({ chat: dm, from: h.carol, text: "", media: voiceNote });
    await h.pass(60_000);
    const mine = h.emu.history(dm).filter((m) => m.fromId === h.account.id);
    expect(mine.map((m) => m.media)).toEqual(["voice"]);
    const sends = h.emu.traffic.requests.filter((r) => r.request instanceof Api.messages.SendMedia);
    expect(sends.length).toBeGreaterThanOrEqual(2);
    const ids = new Set(sends.map((r) => (r.request as Api.messages.SendMedia).randomId?.toString()));
    expect(ids.size).toBe(1);
    // The retry reused the note made the first time: one speech call.
    expect(speechBodies()).toHaveLength(1);
    expect(ownStored(dm.peerId)).toEqual([`[voice 3 s] ${SAID}`]);
  });

  it.each(["before-apply", "after-apply"] as const)(
    "a crash with the voice note uploaded and the send %s: the restarted process speaks again, sends with the same random_id, one message, nothing lost",
    async (when) => {
      h = await Harness.start({ persona: VOICE_PERSONA });
      h.gemini.respondWith(answering({ kind: "send", text: SAID, voice: true }));
      const dm = h.emu.dm(h.account, h.carol);
      let crashed = false;
      h.emu.faults.hang("messages.SendMedia", {
        when,
        onHang: () => {
          crashed = true;
          h.crash(); // the parts are up; the send never answered
        },
      });
      await h.emu.post({ chat: dm, from: h.carol, text: "", media: voiceNote });
      await h.pass(20_000);
      expect(crashed).toBe(true);
      h.boot();
      await h.pass(60_000);
      const mine = h.emu.history(dm).filter((m) => m.fromId === h.account.id);
      expect(mine.map((m) => m.media)).toEqual(["voice"]);
      const ids = new Set(
        h.emu.traffic.requests
          .filter((r) => r.request instanceof Api.messages.SendMedia)
          .map((r) => (r.request as Api.messages.SendMedia).randomId?.toString()),
      );
      expect(ids.size).toBe(1);
      expect(ownStored(dm.peerId)).toEqual([`[voice 3 s] ${SAID}`]);
      // Her own note coming back through the catch-up is not taken for the owner's.
      expect(h.log.lines().filter((l) => String(l.msg).includes("the owner wrote"))).toEqual([]);
    },
  );
});

describe("while she speaks and uploads", () => {
  /** Speech held until the test releases it (the note takes its seconds to make). */
  function heldSpeech(): () => void {
    let release!: () => void;
    const after = new Promise<void>((r) => (release = r));
    h.gemini.scriptSpeech({ after, then: { speech: {} } });
    return release;
  }
  const mediaSends = () => h.emu.traffic.requests.filter((r) => r.request instanceof Api.messages.SendMedia);

  it("the owner taking over the DM while the note is made: neither the note nor its words go out", async () => {
    h = await Harness.start({ persona: VOICE_PERSONA });
    const release = heldSpeech();
    h.gemini.respondWith(answering({ kind: "send", text: SAID, voice: true }));
    const dm = h.emu.dm(h.account, h.carol);
    await h.emu.post({ chat: dm, from: h.carol, text: "", media: voiceNote });
    const passing = h.pass(10_000); // the plan is made, the speech call waits on the held answer
    await until(() => speechBodies().length === 1);
    const mine = await h.ownerSays("I'll answer this one myself", dm);
    await until(() => h.runtime.messages.get(dm.peerId, mine) !== undefined);
    await new Promise((r) => setTimeout(r, 50));
    release();
    await passing;
    await h.pass(30_000);
    expect(mediaSends()).toHaveLength(0);
    expect(h.emu.history(dm).map((m) => m.text || m.media)).toEqual(["voice", "I'll answer this one myself"]);
  });

  it("/pause while the note is made: nothing goes out", async () => {
    h = await Harness.start({ persona: VOICE_PERSONA });
    const release = heldSpeech();
    h.gemini.respondWith(answering({ kind: "send", text: SAID, voice: true }));
    const dm = h.emu.dm(h.account, h.carol);
    await h.emu.post({ chat: dm, from: h.carol, text: "", media: voiceNote });
    const passing = h.pass(10_000);
    await until(() => speechBodies().length === 1);
    await h.ownerSays("/pause");
    await until(() => h.savedReplies().length > 0);
    release();
    await passing;
    await h.pass(30_000);
    expect(mediaSends()).toHaveLength(0);
    expect(h.sent(dm)).toEqual([]);
  });

  it("a note Telegram will not take (MEDIA_INVALID): the words go as text with the same random_id", async () => {
    h = await Harness.start({ persona: VOICE_PERSONA });
    h.emu.faults.failNext("messages.SendMedia", "MEDIA_INVALID", { code: 400 });
    h.gemini.respondWith(answering({ kind: "send", text: SAID, voice: true }));
    const dm = h.emu.dm(h.account, h.carol);
    await h.emu.post({ chat: dm, from: h.carol, text: "", media: voiceNote });
    await h.pass(30_000);
    expect(h.sent(dm).map((m) => m.text)).toEqual([SAID]);
    const [media] = mediaSends().map((r) => (r.request as Api.messages.SendMedia).randomId?.toString());
    const [text] = h.emu.traffic.requests
      .filter((r) => r.request instanceof Api.messages.SendMessage)
      .map((r) => (r.request as Api.messages.SendMessage).randomId?.toString());
    expect(text).toBe(media);
    expect(ownStored(dm.peerId)).toEqual([SAID]);
  });
});

describe("an upload that times out", () => {
  it("is a plain failure, not a send in doubt: a /pause that comes meanwhile stops the note", async () => {
    h = await Harness.start({ persona: VOICE_PERSONA, requestTimeoutMs: 300 });
    h.gemini.respondWith(answering({ kind: "send", text: SAID, voice: true }));
    const dm = h.emu.dm(h.account, h.carol);
    h.emu.faults.setDelay("upload.SaveFilePart", 3_000);
    await h.emu.post({ chat: dm, from: h.carol, text: "", media: voiceNote });
    for (let i = 0; i < 60 && !h.emu.traffic.methods(h.account).includes("upload.SaveFilePart"); i++)
      await h.pass(500);
    expect(h.emu.traffic.methods(h.account)).toContain("upload.SaveFilePart");
    await new Promise((r) => setTimeout(r, 1_600)); // the upload's limit (4 × 300 ms) passes
    await h.pass(100);
    await h.ownerSays("/pause");
    h.emu.faults.setDelay("upload.SaveFilePart", 0);
    await h.pass(60_000);
    expect(h.emu.traffic.requests.filter((r) => r.request instanceof Api.messages.SendMedia)).toHaveLength(0);
    expect(h.sent(dm)).toEqual([]);
  });

  it("leaves nothing in doubt: the owner's own voice note a minute after her retried note is the owner's takeover", async () => {
    h = await Harness.start({ persona: VOICE_PERSONA, requestTimeoutMs: 300 });
    h.gemini.respondWith(answering({ kind: "send", text: SAID, voice: true }));
    const dm = h.emu.dm(h.account, h.carol);
    const mediaSends = () =>
      h.emu.traffic.requests.filter((r) => r.request instanceof Api.messages.SendMedia);
    h.emu.faults.setDelay("upload.SaveFilePart", 3_000);
    await h.emu.post({ chat: dm, from: h.carol, text: "", media: voiceNote });
    for (let i = 0; i < 60 && !h.emu.traffic.methods(h.account).includes("upload.SaveFilePart"); i++)
      await h.pass(500);
    await new Promise((r) => setTimeout(r, 1_600)); // the upload's limit (4 × 300 ms) passes
    h.emu.faults.setDelay("upload.SaveFilePart", 0);
    for (let i = 0; i < 60 && mediaSends().length === 0; i++) await h.pass(1_000);
    expect(mediaSends()).toHaveLength(1); // her note, on the retry
    await h.pass(60_000);
    await h.emu.post({ chat: dm, from: h.account, text: "", media: voiceNote, deliverToSender: true });
    await h.pass(5_000);
    expect(h.log.lines().some((l) => /the owner wrote in this chat/.test(String(l.msg)))).toBe(true);
  });
});

describe("the speech call's share", () => {
  it("a stranger's DM whose strangers' share the plan spent: the words go as text, no speech call", async () => {
    // 10,000 tokens a day; strangers' DMs at most 20% (2,000). The transcription and the plan: 2,100.
    h = await Harness.start({ persona: `${VOICE_PERSONA}\n# Daily Token Budget\n10000\n` });
    const usage = { promptTokenCount: 900, candidatesTokenCount: 50, thoughtsTokenCount: 100 };
    h.gemini.respondWith((body) =>
      isPlanRequest(body)
        ? { ...plan({ kind: "send", text: SAID, voice: true }), usage }
        : { json: { text: "are we still on for six?" }, usage },
    );
    const dave = h.emu.addUser({ firstName: "Dave", username: "dave" }); // not a contact
    const dm = h.emu.dm(h.account, dave);
    await h.emu.post({ chat: dm, from: dave, text: "", media: voiceNote });
    await h.pass(30_000);
    expect(planBodies()).toHaveLength(1);
    expect(speechBodies()).toHaveLength(0);
    expect(h.sent(dm).map((m) => m.text)).toEqual([SAID]);
    expect(
      h.log.lines().find((l) => l.msg === "voice note not made; sending the words as text")?.reason,
    ).toMatch(/cap: stranger-token-share/);
  });
});
