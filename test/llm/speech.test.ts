import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { DEFAULT_PRICES, estimateCost } from "../../src/llm/prices";
import { GeminiSpeech, OpenAiSpeech, SpeechError } from "../../src/llm/speech";
import type { LlmUsage } from "../../src/llm/types";
import { readPcm } from "../../src/media/voice-note";
import { captureLogger } from "../support/log-capture";
import { GeminiFake } from "../support/gemini-fake";
import { tonePcm } from "../support/tone";

let fake: GeminiFake;
let usage: LlmUsage[];

beforeEach(async () => {
  fake = await GeminiFake.start();
  usage = [];
});
afterEach(async () => {
  await fake.close();
});

function gemini(timeoutMs?: number): GeminiSpeech {
  const s = new GeminiSpeech({
    apiKey: "test-key",
    model: "gemini-2.5-flash-preview-tts",
    baseUrl: fake.baseUrl,
    logger: captureLogger().logger,
    ...(timeoutMs !== undefined ? { timeoutMs } : {}),
  });
  s.onUsage((u) => usage.push(u));
  return s;
}

describe("speech through Gemini's real SDK", () => {
  it("a usage listener that fails (the database refusing the row) is logged; the speech made and paid is still used", async () => {
    fake.scriptSpeech({ speech: { seconds: 1 } });
    const log = captureLogger();
    const s = new GeminiSpeech({
      apiKey: "test-key",
      model: "gemini-2.5-flash-preview-tts",
      baseUrl: fake.baseUrl,
      logger: log.logger,
    });
    s.onUsage(() => {
      throw new Error("SQLITE_FULL: database or disk is full");
    });
    const r = await s.speak({ text: "see you at six then", voiceName: "Puck" });
    expect(readPcm(r).samples.length).toBe(24_000);
    expect(log.lines().find((l) => l.msg === "recording LLM usage failed")?.err).toMatch(/SQLITE_FULL/);
  });

  it("asks the TTS model for audio in the persona's voice and reads PCM by its MIME type; the call is priced under `speech`", async () => {
    fake.scriptSpeech({ speech: { seconds: 3 } });
    const r = await gemini().speak({
      text: "see you at six then",
      voiceName: "Puck",
      chatId: "42",
      userId: "42",
    });
    const req = fake.requests[0]!;
    expect(req.model).toBe("gemini-2.5-flash-preview-tts");
    expect(req.body.generationConfig).toMatchObject({
      responseModalities: ["AUDIO"],
      speechConfig: { voiceConfig: { prebuiltVoiceConfig: { voiceName: "Puck" } } },
    });
    expect(req.body.contents).toEqual([{ role: "user", parts: [{ text: "see you at six then" }] }]);
    expect(r.mimeType).toBe("audio/L16;codec=pcm;rate=24000");
    const pcm = readPcm(r);
    expect(pcm.rate).toBe(24_000);
    expect(pcm.samples.length).toBe(3 * 24_000);
    expect(usage).toEqual([
      expect.objectContaining({ purpose: "speech", chatId: "42", userId: "42", outputTokens: 75 }),
    ]);
    // Audio tokens are priced as the TTS model's output, not as the text model's.
    expect(estimateCost(DEFAULT_PRICES, usage[0]!.model, usage[0]!)).toBeCloseTo(
      (usage[0]!.promptTokens * 0.5 + 75 * 10) / 1_000_000,
      12,
    );
  });

  it("takes a WAV answer as WAV", async () => {
    fake.scriptSpeech({ speech: { seconds: 2, wav: true } });
    const r = await gemini().speak({ text: "hi", voiceName: "Kore" });
    expect(r.mimeType).toBe("audio/wav");
    expect(readPcm(r).samples.length).toBe(2 * 24_000);
  });

  it("an answer without audio, a server error or no answer in time is a SpeechError (the caller writes instead)", async () => {
    fake.scriptSpeech({ speech: { noAudio: true } });
    await expect(gemini().speak({ text: "hi", voiceName: "Kore" })).rejects.toThrow(/holds no audio/);
    expect(usage).toHaveLength(1); // answered, so billed
    fake.scriptSpeech({ status: 503 });
    await expect(gemini().speak({ text: "hi", voiceName: "Kore" })).rejects.toBeInstanceOf(SpeechError);
    fake.scriptSpeech({ delayMs: 2000, then: { speech: {} } });
    await expect(gemini(200).speak({ text: "hi", voiceName: "Kore" })).rejects.toThrow(
      /no audio within 200 ms/,
    );
  });
});

describe("speech through an OpenAI-compatible /v1/audio/speech", () => {
  let server: Server;
  let bodies: unknown[];
  let status: number;
  let contentType: string;
  beforeEach(async () => {
    bodies = [];
    status = 200;
    contentType = "application/octet-stream";
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        bodies.push({
          path: req.url,
          auth: req.headers.authorization,
          body: JSON.parse(Buffer.concat(chunks).toString()),
        });
        if (status !== 200) {
          res.writeHead(status).end("no");
          return;
        }
        res.writeHead(200, { "content-type": contentType }).end(tonePcm(1));
      });
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  });
  afterEach(async () => {
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
  });

  it("posts the text with the voice and asks for raw PCM", async () => {
    const { port } = server.address() as AddressInfo;
    const s = new OpenAiSpeech({
      baseUrl: `http://127.0.0.1:${port}/v1`,
      apiKey: "sk-local",
      model: "tts-1",
      logger: captureLogger().logger,
    });
    s.onUsage((u) => usage.push(u));
    const r = await s.speak({ text: "hello there", voiceName: "alloy" });
    expect(bodies).toEqual([
      {
        path: "/v1/audio/speech",
        auth: "Bearer sk-local",
        body: { model: "tts-1", input: "hello there", voice: "alloy", response_format: "pcm" },
      },
    ]);
    expect(readPcm(r).samples.length).toBe(24_000);
    expect(usage).toEqual([expect.objectContaining({ purpose: "speech", model: "tts-1", promptTokens: 3 })]);
    status = 404;
    await expect(s.speak({ text: "x", voiceName: "alloy" })).rejects.toThrow(/answered 404/);
  });

  it("an answer in another format (MP3) is a SpeechError, not noise read as PCM", async () => {
    const { port } = server.address() as AddressInfo;
    const s = new OpenAiSpeech({
      baseUrl: `http://127.0.0.1:${port}/v1`,
      model: "tts-1",
      logger: captureLogger().logger,
    });
    contentType = "audio/mpeg";
    await expect(s.speak({ text: "hello", voiceName: "alloy" })).rejects.toThrow(SpeechError);
    await expect(s.speak({ text: "hello", voiceName: "alloy" })).rejects.toThrow(/audio\/mpeg/);
    contentType = "audio/pcm";
    expect(readPcm(await s.speak({ text: "hello", voiceName: "alloy" })).samples.length).toBe(24_000);
  });
});
