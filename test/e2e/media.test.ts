import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Api } from "telegram";
import { afterEach, describe, expect, it } from "vitest";
import { loadCuratedMedia } from "../../src/media/curated";
import { fileUniqueId } from "../../src/base/file-unique-id";
import { captureEntities } from "../../src/telegram/entities";
import { MediaCache } from "../../src/store/media-cache";
import { registry, resetMetrics } from "../../src/metrics/metrics";
import type { GenerateBody } from "../support/gemini-fake";
import { CuratedMedia } from "../../src/media/curated";
import { Harness, plan, TEST_PERSONA } from "../support/harness";
import { tempDir } from "../support/temp-dir";

let h: Harness;
afterEach(async () => {
  await h?.close();
});

/** Distinct tiny "JPEG" payloads (the emulator serves bytes; Gemini is the fake). */
const jpeg = (n: number) => Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.alloc(64, n)]);

function inlineOf(body: GenerateBody): { mimeType: string; data: string } | undefined {
  for (const c of body.contents ?? [])
    for (const p of c.parts ?? [])
      if (p.inlineData) return p.inlineData as { mimeType: string; data: string };
  return undefined;
}

/** A planning request (its system instruction asks for a plan); it may carry pictures inline too. */
const isPlan = (body: GenerateBody) =>
  (body.systemInstruction?.parts ?? []).some((p) => (p.text ?? "").includes('{"tasks":[...]}'));
/** A description or transcription request: a file inline, and not a plan. */
const isDescribe = (body: GenerateBody) => !isPlan(body) && inlineOf(body) !== undefined;

/** Describe requests get `describe(data)`; everything else (plans) gets an empty plan. */
function answerDescriptions(describe: (inline: { mimeType: string; data: string }) => string): void {
  h.gemini.respondWith((body) => {
    const inline = inlineOf(body);
    return isDescribe(body) && inline ? { json: { text: describe(inline) } } : plan();
  });
}

const describeRequests = () => h.gemini.requests.filter((r) => isDescribe(r.body));
const planRequests = () => h.gemini.requests.filter((r) => isPlan(r.body));
/** The pictures a planning request carries inline. */
const inlinePictures = (body: GenerateBody) =>
  (body.contents ?? [])
    .flatMap((c) => c.parts ?? [])
    .flatMap((p) => (p.inlineData ? [p.inlineData as { mimeType: string; data: string }] : []));
/** Every text of the last planning request (the history and the addressed messages). */
const lastPlanTurn = () =>
  (planRequests().at(-1)!.body.contents ?? [])
    .flatMap((c) => c.parts ?? [])
    .map((p) => p.text ?? "")
    .join("\n");
/** upload.GetFile requests, by the file id they asked for. */
const downloads = () =>
  h.emu.traffic
    .fileRequests()
    .map((r) =>
      Number(((r.request as Api.upload.GetFile).location as Api.InputPhotoFileLocation).id.toString()),
    );

describe("media understanding", () => {
  it("chain order: curated for the persona beats curated for all, which beats the cache, which beats the AI; a cache hit downloads nothing", async () => {
    resetMetrics();
    h = await Harness.start();
    const photos = [];
    for (let i = 1; i <= 4; i++)
      photos.push(
        await h.emu.post({
          chat: h.group,
          from: h.alice,
          text: "",
          media: { kind: "photo", bytes: jpeg(i) },
        }),
      );
    await h.pass(5_000);
    expect(h.emu.traffic.methods(h.account)).toEqual([]); // chatter: nothing downloaded
    const [a, b, c] = photos.map((p) => fileUniqueId("photo", String(p.fileId))) as [string, string, string];
    const agents = tempDir();
    mkdirSync(join(agents, "Mira", "media"), { recursive: true });
    mkdirSync(join(agents, "media"), { recursive: true });
    writeFileSync(
      join(agents, "Mira", "media", "mine.json"),
      JSON.stringify([{ unique_id: a, kind: "photo", description: "persona's own words for A" }]),
    );
    writeFileSync(
      join(agents, "media", "all.json"),
      JSON.stringify([
        { unique_id: a, description: "global words for A" },
        { unique_id: b, description: "global words for B" },
      ]),
    );
    new MediaCache(h.db).put(
      { uniqueId: b, kind: "photo", status: "ok", description: "cached words for B" },
      0,
    );
    new MediaCache(h.db).put(
      { uniqueId: c, kind: "photo", status: "ok", description: "cached words for C" },
      0,
    );
    h.crash();
    h.media = { curated: loadCuratedMedia(agents, "Mira") };
    h.boot();
    answerDescriptions(() => "AI words for D");

    // Carol forwards the four photos to the persona and asks (one burst: one plan sees them all).
    const dm = h.emu.dm(h.account, h.carol);
    for (const p of photos)
      await h.emu.post({
        chat: dm,
        from: h.carol,
        text: "",
        media: { kind: "same-as", chat: h.group, id: p.id },
      });
    await h.emu.post({ chat: dm, from: h.carol, text: "which one do you like?" });
    await h.pass(10_000);
    expect(planRequests()).toHaveLength(1);

    const turn = lastPlanTurn();
    expect(turn).toContain("[photo: persona's own words for A]");
    expect(turn).toContain("[photo: global words for B]");
    expect(turn).toContain("[photo: cached words for C]");
    expect(turn).toContain("[photo: AI words for D]");
    expect(turn).not.toContain("global words for A");
    // Only D was described (downloaded for it, in chunks of its own file); the plan also shows the
    // two newest addressed pictures themselves, D (kept from its description's download) and C
    // (downloaded for that, once).
    expect(describeRequests()).toHaveLength(1);
    expect(new Set(downloads())).toEqual(new Set([photos[3]!.fileId, photos[2]!.fileId]));
    expect(inlinePictures(planRequests()[0]!.body).map((p) => Buffer.from(p.data, "base64")[4])).toEqual([
      4, 3,
    ]);
    // The metrics count where each description came from.
    const served = (await registry.getSingleMetric("userbot_media_descriptions_total")!.get()).values.map(
      (v) => [v.labels.source, v.value],
    );
    expect(Object.fromEntries(served)).toEqual({ curated: 2, cache: 1, ai: 1 });
  });

  it("the description request carries the image inline with its MIME type, on the cheap model with purpose describe", async () => {
    h = await Harness.start();
    answerDescriptions(() => "a ginger cat asleep on a keyboard");
    const bytes = jpeg(9);
    await h.emu.post({
      chat: h.group,
      from: h.alice,
      text: "@mira_ai look",
      media: { kind: "photo", bytes },
    });
    await h.pass(10_000);
    const [req] = describeRequests();
    expect(req?.model).toBe("gemini-2.5-flash-lite");
    expect(inlineOf(req!.body)).toEqual({ mimeType: "image/jpeg", data: bytes.toString("base64") });
    expect(lastPlanTurn()).toContain("[photo: a ginger cat asleep on a keyboard]\n[Mira](tg:@mira_ai) look");
    const usage = h.db.prepare(`SELECT purpose FROM llm_usage ORDER BY id`).pluck().all();
    expect(usage).toEqual(["describe", "plan"]);
  });

  it("an addressed photo reaches the planning request inline with its MIME type, downloaded once; a reply to it carries it too", async () => {
    h = await Harness.start();
    answerDescriptions(() => "a receipt from a cafe");
    const bytes = jpeg(21);
    const photo = await h.emu.post({
      chat: h.group,
      from: h.alice,
      text: "@mira_ai can you read the total?",
      media: { kind: "photo", bytes },
    });
    await h.pass(10_000);
    const first = planRequests()[0]!.body;
    expect(inlinePictures(first)).toEqual([{ mimeType: "image/jpeg", data: bytes.toString("base64") }]);
    expect(lastPlanTurn()).toContain(`⟦picture of #${photo.id}⟧`);
    expect(lastPlanTurn()).toContain("[photo: a receipt from a cafe]"); // the history keeps the description
    expect(new Set(downloads())).toEqual(new Set([photo.fileId])); // the description's download served the picture too
    const fetched = downloads().length;

    // A question replying to the photo later: the picture again, from the cache.
    await h.emu.post({ chat: h.group, from: h.bob, text: "@mira_ai and the tip?", replyTo: photo.id });
    await h.pass(10_000);
    expect(inlinePictures(planRequests()[1]!.body)).toEqual([
      { mimeType: "image/jpeg", data: bytes.toString("base64") },
    ]);
    expect(downloads()).toHaveLength(fetched);
  });

  it("an addressed GIF, and a question replying to a video sticker: their stills reach the planning request inline (JPEG, WebP), never the moving files; a GIF without a still keeps its description only", async () => {
    h = await Harness.start();
    answerDescriptions(() => "a cat falling off a sofa");
    const still = jpeg(31);
    const movie = Buffer.concat([Buffer.from("....ftypmp42"), Buffer.alloc(2000, 7)]);
    const gif = await h.emu.post({
      chat: h.group,
      from: h.alice,
      text: "@mira_ai why is this so funny?",
      media: { kind: "gif", bytes: movie, mimeType: "video/mp4", thumb: still },
    });
    await h.pass(10_000);
    const first = planRequests()[0]!.body;
    expect(inlinePictures(first)).toEqual([{ mimeType: "image/jpeg", data: still.toString("base64") }]);
    expect(JSON.stringify(first)).not.toContain(movie.toString("base64"));
    expect(lastPlanTurn()).toContain(`⟦picture of #${gif.id}⟧`);
    expect(lastPlanTurn()).toContain("[gif: a cat falling off a sofa]"); // the history keeps the description
    const thumbSizes = h.emu.traffic
      .fileRequests()
      .map((r) => ((r.request as Api.upload.GetFile).location as Api.InputDocumentFileLocation).thumbSize);
    expect(thumbSizes).toContain("m"); // the still, asked for by its size type

    const webp = Buffer.concat([Buffer.from("RIFF\x00\x00\x00\x00WEBPVP8L", "latin1"), Buffer.alloc(40, 3)]);
    h.emu.addStickerSet({
      shortName: "Runners",
      title: "Runners",
      stickers: [{ emoji: "🏃", mimeType: "video/webm", bytes: Buffer.alloc(500, 9), thumb: webp }],
    });
    const sticker = await h.emu.post({
      chat: h.group,
      from: h.bob,
      text: "",
      media: { kind: "sticker", set: "Runners", emoji: "🏃" },
    });
    await h.emu.post({
      chat: h.group,
      from: h.carol,
      text: "@mira_ai what is he doing?",
      replyTo: sticker.id,
    });
    await h.pass(10_000);
    expect(inlinePictures(planRequests()[1]!.body)).toEqual([
      { mimeType: "image/webp", data: webp.toString("base64") },
    ]);

    await h.emu.post({
      chat: h.group,
      from: h.alice,
      text: "@mira_ai and this one?",
      media: { kind: "gif", bytes: Buffer.alloc(300, 5), mimeType: "video/mp4", thumb: null },
    });
    await h.pass(10_000);
    expect(inlinePictures(planRequests()[2]!.body)).toEqual([]);
  });

  it("a picture that cannot be downloaded is left out; its description speaks for it", async () => {
    h = await Harness.start();
    const photo = await h.emu.post({
      chat: h.group,
      from: h.alice,
      text: "",
      media: { kind: "photo", bytes: jpeg(22) },
    });
    new MediaCache(h.db).put(
      {
        uniqueId: fileUniqueId("photo", String(photo.fileId)),
        kind: "photo",
        status: "ok",
        description: "a blurry dog",
      },
      0,
    );
    answerDescriptions(() => "never asked");
    h.emu.faults.failNext("upload.GetFile", "FILE_ID_INVALID");
    await h.emu.post({ chat: h.group, from: h.bob, text: "@mira_ai what breed?", replyTo: photo.id });
    await h.pass(10_000);
    expect(planRequests()).toHaveLength(1);
    expect(inlinePictures(planRequests()[0]!.body)).toEqual([]);
    expect(lastPlanTurn()).toContain("[photo: a blurry dog]");
    expect(lastPlanTurn()).not.toContain("⟦picture of");
    expect(describeRequests()).toHaveLength(0);
  });

  it("a photo in chatter is never downloaded; the same photo addressed later is described once", async () => {
    h = await Harness.start();
    answerDescriptions(() => "a sunset over the harbour");
    const first = await h.emu.post({
      chat: h.group,
      from: h.alice,
      text: "",
      media: { kind: "photo", bytes: jpeg(3) },
    });
    await h.emu.post({ chat: h.group, from: h.carol, text: "nice" });
    await h.pass(30_000);
    expect(h.emu.traffic.methods(h.account)).toEqual([]);
    expect(h.gemini.requests).toHaveLength(0);

    await h.emu.post({
      chat: h.group,
      from: h.bob,
      text: "@mira_ai seen this?",
      media: { kind: "same-as", chat: h.group, id: first.id },
    });
    await h.pass(10_000);
    expect(describeRequests()).toHaveLength(1);
    expect(new Set(downloads())).toEqual(new Set([first.fileId]));
    expect(lastPlanTurn()).toContain("[photo: a sunset over the harbour]\n[Mira](tg:@mira_ai) seen this?");
    // The same photo addressed once more: described from the cache, nothing downloaded.
    await h.emu.post({
      chat: h.group,
      from: h.alice,
      text: "@mira_ai and now?",
      media: { kind: "same-as", chat: h.group, id: first.id },
    });
    await h.pass(10_000);
    expect(planRequests()).toHaveLength(2);
    expect(describeRequests()).toHaveLength(1);
    expect(downloads()).toHaveLength(1);
    expect(lastPlanTurn()).toContain("[photo: a sunset over the harbour]\n[Mira](tg:@mira_ai) and now?");
  });

  it("budget spent: the placeholder now, the description later, never more than the budget per minute", async () => {
    h = await Harness.start({ media: { budgetPerMinute: 1 } });
    const at: number[] = [];
    h.gemini.respondWith((body) => {
      const inline = inlineOf(body);
      if (!inline || isPlan(body)) return plan();
      at.push(h.clock.now());
      return { json: { text: `described ${Buffer.from(inline.data, "base64")[4]}` } };
    });
    const dm = h.emu.dm(h.account, h.carol);
    await h.emu.post({ chat: dm, from: h.carol, text: "", media: { kind: "photo", bytes: jpeg(1) } });
    await h.emu.post({
      chat: dm,
      from: h.carol,
      text: "and this one",
      media: { kind: "photo", bytes: jpeg(2) },
    });
    await h.pass(10_000);
    expect(planRequests()).toHaveLength(1);
    // The newest goes first; the other waits for the budget.
    expect(lastPlanTurn()).toContain("[photo: described 2]\nand this one");
    expect(lastPlanTurn()).toMatch(/⟧ \[photo\]$/m);
    expect(describeRequests()).toHaveLength(1);

    await h.pass(65_000);
    await h.runtime.media.idle();
    expect(describeRequests()).toHaveLength(2);
    // Never two descriptions within one minute.
    expect(at[1]! - at[0]!).toBeGreaterThanOrEqual(60_000);

    await h.emu.post({ chat: dm, from: h.carol, text: "so?" });
    await h.pass(10_000);
    expect(lastPlanTurn()).toContain("[photo: described 1]");
    expect(describeRequests()).toHaveLength(2);
  });

  it("a file the AI cannot describe is cached as unsupported once and never tried again", async () => {
    h = await Harness.start();
    h.gemini.respondWith((body) => (isDescribe(body) ? { safety: true } : plan()));
    await h.emu.post({
      chat: h.group,
      from: h.alice,
      text: "@mira_ai what's this",
      media: { kind: "photo", bytes: jpeg(5) },
    });
    await h.pass(10_000);
    const tries = describeRequests().length; // the refusal gets one more try inside the LLM layer
    expect(tries).toBe(2);
    expect(lastPlanTurn()).toContain("[photo]\n[Mira](tg:@mira_ai) what's this");
    const fetched = downloads().length;

    await h.emu.post({ chat: h.group, from: h.alice, text: "@mira_ai hello?" });
    await h.pass(10_000);
    expect(describeRequests()).toHaveLength(tries);
    expect(downloads()).toHaveLength(fetched);
    expect(planRequests()).toHaveLength(2);
  });

  it("the file's DC answers AUTH_KEY_UNREGISTERED (its sign-in failed half-way): that DC's key and connection are dropped, and the picture reaches the plan after one new sign-in", async () => {
    h = await Harness.start();
    answerDescriptions(() => "a boarding pass");
    // GramJS's import on the file's DC fails once; its retry keeps the unsigned key (docs/telegram-facts.md).
    h.emu.faults.failNext("auth.ImportAuthorization", "AUTH_BYTES_INVALID");
    const bytes = jpeg(9);
    await h.emu.post({
      chat: h.group,
      from: h.alice,
      text: "@mira_ai which gate?",
      media: { kind: "photo", bytes },
    });
    for (let i = 0; i < 40 && planRequests().length === 0; i++) {
      await h.pass(1_000);
      await new Promise((r) => setTimeout(r, 50)); // GramJS waits 1 s (real time) after the failed import
    }
    expect(inlinePictures(planRequests()[0]!.body)).toEqual([
      { mimeType: "image/jpeg", data: bytes.toString("base64") },
    ]);
    expect(lastPlanTurn()).toContain("[photo: a boarding pass]");
    expect(h.emu.auth.exportedAuthorizations(h.account)).toBe(2); // the failed sign-in, then one more
    expect(h.emu.net.dcConnections(h.account)).toEqual([h.emu.net.fileDc]); // the unsigned one closed
  });

  it("an expired file reference: the message is fetched again and the download succeeds", async () => {
    h = await Harness.start();
    answerDescriptions(() => "a hand-drawn map");
    const posted = await h.emu.post({
      chat: h.group,
      from: h.alice,
      text: "@mira_ai where is this",
      media: { kind: "photo", bytes: jpeg(7) },
    });
    h.emu.chats.expireFileReference(h.group, posted.id);
    await h.pass(10_000);
    expect(
      h.emu.traffic.methods(h.account).filter((m) => m === "upload.GetFile" || m.endsWith("GetMessages")),
    ).toEqual(["upload.GetFile", "channels.GetMessages", "upload.GetFile"]);
    expect(lastPlanTurn()).toContain("[photo: a hand-drawn map]");
  });

  it("a voice note in a DM is transcribed (audio inline, in the speaker's language) and the transcript reaches the plan", async () => {
    h = await Harness.start();
    answerDescriptions((inline) => (inline.mimeType === "audio/ogg" ? "wir sehen uns um sechs" : "?"));
    const dm = h.emu.dm(h.account, h.carol);
    const ogg = Buffer.concat([Buffer.from("OggS"), Buffer.alloc(200, 1)]);
    await h.emu.post({
      chat: dm,
      from: h.carol,
      text: "",
      media: { kind: "voice", bytes: ogg, mimeType: "audio/ogg", duration: 12 },
    });
    await h.pass(10_000);
    const [req] = describeRequests();
    expect(inlineOf(req!.body)?.mimeType).toBe("audio/ogg");
    expect(JSON.stringify(req!.body.contents)).toContain("in the language it is spoken in");
    expect(lastPlanTurn()).toContain('[voice 0:12: "wir sehen uns um sechs"]');
  });

  it("a 4-minute voice note gets room for its transcript (purpose transcribe); a transcript cut off at maxOutputTokens is not cached as unsupported and is tried again", async () => {
    h = await Harness.start();
    let cut = true;
    h.gemini.respondWith((body) => {
      if (!isDescribe(body)) return plan();
      return cut
        ? { text: '{"text": "so first we go to the market and then', finishReason: "MAX_TOKENS" }
        : { json: { text: "so first we go to the market and then home" } };
    });
    const dm = h.emu.dm(h.account, h.carol);
    const ogg = Buffer.concat([Buffer.from("OggS"), Buffer.alloc(200, 2)]);
    await h.emu.post({
      chat: dm,
      from: h.carol,
      text: "",
      media: { kind: "voice", bytes: ogg, mimeType: "audio/ogg", duration: 240 },
    });
    await h.pass(10_000);
    const first = describeRequests();
    expect(first).toHaveLength(2); // the cut-off answer gets its one more try in the LLM layer
    expect(first[0]!.body.generationConfig?.maxOutputTokens).toBeGreaterThanOrEqual(2048);
    expect(lastPlanTurn()).toMatch(/\[voice 4:00\]$/m);
    expect(h.db.prepare(`SELECT purpose FROM llm_usage WHERE purpose != 'plan'`).pluck().all()).toEqual([
      "transcribe",
      "transcribe",
    ]);

    cut = false;
    await h.emu.post({ chat: dm, from: h.carol, text: "did you get it?" });
    await h.pass(10_000);
    expect(describeRequests()).toHaveLength(3);
    expect(lastPlanTurn()).toContain('"so first we go to the market and then home"');
  });

  it("a Gemini 400 about the key is not cached as unsupported (the file is tried again); a 400 about the file is, once", async () => {
    h = await Harness.start();
    let reply: { status: 400; message: string } | undefined = {
      status: 400,
      message: "API key not valid. Please pass a valid API key.",
    };
    h.gemini.respondWith((body) =>
      isDescribe(body) ? (reply ?? { json: { text: "a red bicycle" } }) : plan(),
    );
    const dm = h.emu.dm(h.account, h.carol);
    await h.emu.post({ chat: dm, from: h.carol, text: "look", media: { kind: "photo", bytes: jpeg(11) } });
    await h.pass(10_000);
    expect(describeRequests()).toHaveLength(1);
    expect(lastPlanTurn()).toMatch(/\[photo\]\nlook/);

    reply = undefined; // the key is fixed
    await h.emu.post({ chat: dm, from: h.carol, text: "and?" });
    await h.pass(10_000);
    expect(describeRequests()).toHaveLength(2);
    expect(lastPlanTurn()).toContain("[photo: a red bicycle]");

    reply = {
      status: 400,
      message:
        "Unable to process input image. Please retry or report in https://developers.generativeai.google/guide/troubleshooting",
    };
    await h.emu.post({
      chat: dm,
      from: h.carol,
      text: "this one",
      media: { kind: "photo", bytes: jpeg(12) },
    });
    await h.pass(10_000);
    expect(describeRequests()).toHaveLength(3);
    await h.emu.post({ chat: dm, from: h.carol, text: "hello?" });
    await h.pass(10_000);
    expect(describeRequests()).toHaveLength(3); // cached as unsupported: not tried again
  });

  it("a Lottie sticker, an oversize file and a file without a MIME type are ruled out before any download: no request, no call, not retried", async () => {
    h = await Harness.start({ media: { limits: { maxBytes: 1_000 } } });
    h.emu.addStickerSet({
      shortName: "Lottie",
      title: "Lottie",
      // No still either (one would be sent inline, as the picture asked about).
      stickers: [
        {
          emoji: "🎉",
          bytes: Buffer.from('{"v":"5.5.2"}'),
          mimeType: "application/x-tgsticker",
          thumb: null,
        },
      ],
    });
    answerDescriptions(() => "should never be asked");
    const dm = h.emu.dm(h.account, h.carol);
    await h.emu.post({
      chat: dm,
      from: h.carol,
      text: "",
      media: { kind: "sticker", set: "Lottie", emoji: "🎉" },
    });
    await h.emu.post({
      chat: dm,
      from: h.carol,
      text: "",
      media: { kind: "video", bytes: Buffer.alloc(2_000, 7), mimeType: "video/mp4", duration: 3 },
    });
    await h.emu.post({
      chat: dm,
      from: h.carol,
      text: "",
      media: { kind: "voice", bytes: Buffer.alloc(100, 8), mimeType: "", duration: 4 },
    });
    await h.emu.post({ chat: dm, from: h.carol, text: "what do you make of these?" });
    await h.pass(10_000);
    expect(planRequests()).toHaveLength(1);
    const turn = lastPlanTurn();
    expect(turn).toContain("🎉");
    expect(turn).toContain("[video 0:03]");
    expect(turn).toContain("[voice 0:04]");
    expect(h.emu.traffic.fileRequests()).toHaveLength(0);
    expect(
      h.emu.traffic
        .methods(h.account)
        .filter((m) => m === "upload.GetFile" || m === "messages.GetStickerSet"),
    ).toEqual([]);
    expect(describeRequests()).toHaveLength(0);
    expect(h.runtime.media.stats).toMatchObject({ downloads: 0, calls: 0 });

    await h.emu.post({ chat: dm, from: h.carol, text: "hello?" });
    await h.pass(10_000);
    expect(planRequests()).toHaveLength(2);
    expect(h.emu.traffic.fileRequests()).toHaveLength(0);
    expect(describeRequests()).toHaveLength(0);
    expect(h.runtime.media.stats).toMatchObject({ downloads: 0, calls: 0 });
  });

  it("# Agent Stickers: the system instruction lists the persona's stickers with their descriptions, and an explicit sticker outside its sets is sent", async () => {
    h = await Harness.start({
      persona: `${TEST_PERSONA}\n# Agent Stickers\nDogs::🐶\n`,
      media: {
        curated: {
          persona: new CuratedMedia([
            {
              uniqueId: "AgADdog",
              stickerSet: "Dogs",
              stickerName: "🐶",
              description: "a puppy tilting its head",
              file: "dogs.json",
            },
          ]),
          global: new CuratedMedia(),
        },
      },
    });
    h.emu.addStickerSet({ shortName: "Dogs", title: "Dogs", stickers: [{ emoji: "🐶" }, { emoji: "🦴" }] });
    h.gemini.respondWith(() =>
      plan({ kind: "sticker", set: "Dogs", emoji: "🐶" }, { kind: "sticker", set: "Dogs", emoji: "🦴" }),
    );
    await h.emu.post({ chat: h.group, from: h.alice, text: "@mira_ai show me a dog" });
    await h.pass(20_000);
    const system = (planRequests()[0]!.body.systemInstruction?.parts ?? [])
      .map((p) => p.text ?? "")
      .join("\n");
    expect(system).toContain("- Dogs::🐶 — a puppy tilting its head");
    expect(system).toContain("Also any sticker of these sets, by its emoji: MiraCats, Cats, NoSuchSet.");
    // 🐶 is listed; 🦴 is not (its set is not one of the persona's): only the dog goes out.
    expect(
      h.emu
        .history(h.group)
        .filter((m) => m.fromId === h.account.id)
        .map((m) => m.stickerEmoji),
    ).toEqual(["🐶"]);
  });
});

describe("media descriptions are paid from their sender's share (issue 28)", () => {
  it("a member's pictures are described as his calls, and not at all once his share of the day is spent", async () => {
    // 10,000 tokens a day, one person at most 25%: 2,500.
    h = await Harness.start({ persona: `${TEST_PERSONA}\n# Daily Token Budget\n10000\n` });
    const usage = { promptTokenCount: 900, candidatesTokenCount: 100, thoughtsTokenCount: 0 };
    h.gemini.respondWith((body) => {
      const inline = inlineOf(body);
      return isDescribe(body) && inline
        ? { json: { text: "a picture" }, usage }
        : { json: { tasks: [{ kind: "send", text: "ok" }] }, usage };
    });
    captureEntities(
      h.runtime.entities,
      (await h.client.invoke(new Api.contacts.ResolveUsername({ username: "alice" }))).users,
    );
    await h.emu.post({ chat: h.group, from: h.alice, text: "morning" });
    const dave = h.emu.addUser({ firstName: "Dave", username: "dave" });
    h.emu.chats.addMember(h.group, dave);
    // Dave asks about his picture: one description (his) and one plan (his).
    await h.emu.post({
      chat: h.group,
      from: dave,
      text: "@mira_ai what is it?",
      media: { kind: "photo", bytes: jpeg(1) },
    });
    await h.pass(30_000);
    expect(describeRequests()).toHaveLength(1);
    const rows = () =>
      h.db.prepare("SELECT purpose, chat_id AS chat, user_id AS user FROM llm_usage ORDER BY id").all();
    expect(rows()).toEqual([
      { purpose: "describe", chat: h.group.peerId, user: String(dave.id) },
      { purpose: "plan", chat: h.group.peerId, user: String(dave.id) },
    ]);
    // One more question of his (3,000 tokens now, past his 2,500), then more pictures of his.
    await h.emu.post({ chat: h.group, from: dave, text: "@mira_ai and now?" });
    await h.pass(30_000);
    for (let i = 2; i <= 4; i++)
      await h.emu.post({ chat: h.group, from: dave, text: "", media: { kind: "photo", bytes: jpeg(i) } });
    // Alice asks: she is answered; his pictures in view stay placeholders, nobody pays for them.
    await h.emu.post({ chat: h.group, from: h.alice, text: "@mira_ai anything new?" });
    await h.pass(30_000);
    expect(describeRequests()).toHaveLength(1);
    expect(h.sent(h.group).map((m) => m.text)).toEqual(["ok", "ok", "ok"]);
    expect(lastPlanTurn()).toContain("[photo]");
    expect(h.runtime.usage.userTokensToday(String(dave.id), h.clock.now())).toBe(3000);
  });
});
