/**
 * Speech: text → audio, for her voice notes (media/voice-note.ts encodes what comes back). Two
 * providers:
 *
 * - Gemini (`@google/genai`): `generateContent` on a text-to-speech model with
 *   `responseModalities: ["AUDIO"]` and `speechConfig.voiceConfig.prebuiltVoiceConfig.voiceName`;
 *   the audio is the answer's `inlineData`, its `mimeType` read as it comes (the docs: raw 16-bit
 *   PCM, 24 kHz, mono, `audio/L16;codec=pcm;rate=24000`; newer models may send WAV). Priced from
 *   its usageMetadata like every call (prices.ts has the TTS models' prices).
 * - An OpenAI-compatible server's `POST /v1/audio/speech` (`response_format: "pcm"`: 24 kHz
 *   16-bit mono), where the server has it. It reports no tokens: the text is counted as tokens at
 *   4 characters each, priced by the table when it names the model (LLM_PRICES).
 *
 * Beside gemini-client.ts and openai-client.ts, which it does not change (as grounded.ts): one
 * attempt with a deadline — a failed synthesis is not retried, the answer is written instead
 * (tasks/handlers/voice-send.ts) — and its own usage listeners, under the purpose `speech`.
 */
import { GoogleGenAI, Modality, type GenerateContentResponse } from "@google/genai";
import type { Logger } from "pino";
import { systemClock } from "../base/clock";
import { errorMessage } from "../base/error-message";
import type { Clock } from "../base/types";
import type { LlmUsage } from "./types";
import { UsageListeners } from "./usage-listeners";

/** The purpose speech calls are accounted under (llm_usage, /status, the console's Costs). */
const SPEECH_PURPOSE = "speech";
/** Gemini's text-to-speech model unless GEMINI_SPEECH_MODEL names another. */
export const DEFAULT_SPEECH_MODEL = "gemini-2.5-flash-preview-tts";
/** A synthesis still running after this long is given up (the answer is written). */
const SPEECH_TIMEOUT_MS = 45_000;

export interface SpeechRequest {
  readonly text: string;
  readonly voiceName: string;
  /** For usage: the chat and the person the answer is for. */
  readonly chatId?: string;
  readonly userId?: string;
}

/** The audio as the server sent it. */
export interface SpeechResult {
  readonly data: Buffer;
  readonly mimeType: string;
  readonly model: string;
}

/** Speech synthesis failed (network, refusal, no audio): the caller writes instead. */
export class SpeechError extends Error {}

/** What the voice send uses (a fake in tests of the handler alone). */
export interface SpeechClient {
  speak(req: SpeechRequest): Promise<SpeechResult>;
  onUsage(listener: (u: LlmUsage) => void): () => void;
  /** Which provider and model speaks, for the log and /status. */
  readonly model: string;
}

abstract class BaseSpeech {
  private readonly listeners: UsageListeners;

  constructor(logger: Logger) {
    this.listeners = new UsageListeners(logger);
  }

  onUsage(listener: (u: LlmUsage) => void): () => void {
    return this.listeners.add(listener);
  }

  /** A listener's failure is logged, never thrown: the speech was made and paid. */
  protected account(u: Omit<LlmUsage, "purpose">): void {
    this.listeners.tell({ purpose: SPEECH_PURPOSE, ...u });
  }

  /** `work` with an abort signal that fires after the deadline. */
  protected async bounded<T>(
    clock: Clock,
    ms: number,
    what: string,
    work: (signal: AbortSignal) => Promise<T>,
  ): Promise<T> {
    const controller = new AbortController();
    const timer = clock.setTimeout(() => controller.abort(), ms);
    try {
      return await work(controller.signal);
    } catch (e) {
      if (e instanceof SpeechError) throw e;
      throw new SpeechError(
        controller.signal.aborted
          ? `${what}: no audio within ${ms} ms`
          : `${what} failed: ${errorMessage(e)}`,
        { cause: e },
      );
    } finally {
      clock.clearTimeout(timer);
    }
  }
}

/** Gemini's speech generation through the real SDK. */
export class GeminiSpeech extends BaseSpeech implements SpeechClient {
  private readonly ai: GoogleGenAI;

  constructor(
    private readonly o: {
      readonly apiKey: string;
      readonly model: string;
      readonly baseUrl?: string | undefined;
      readonly logger: Logger;
      readonly timeoutMs?: number;
      /** Real time for the deadline (default the system clock). */
      readonly clock?: Clock;
    },
  ) {
    super(o.logger);
    this.ai = new GoogleGenAI({
      apiKey: o.apiKey,
      httpOptions: {
        ...(o.baseUrl !== undefined ? { baseUrl: o.baseUrl } : {}),
        retryOptions: { attempts: 1 },
      },
    });
  }

  get model(): string {
    return this.o.model;
  }

  async speak(req: SpeechRequest): Promise<SpeechResult> {
    const response = await this.bounded(
      this.o.clock ?? systemClock,
      this.o.timeoutMs ?? SPEECH_TIMEOUT_MS,
      "speech",
      (abortSignal): Promise<GenerateContentResponse> =>
        this.ai.models.generateContent({
          model: this.o.model,
          contents: [{ role: "user", parts: [{ text: req.text }] }],
          config: {
            responseModalities: [Modality.AUDIO],
            speechConfig: { voiceConfig: { prebuiltVoiceConfig: { voiceName: req.voiceName } } },
            abortSignal,
          },
        }),
    );
    const u = response.usageMetadata;
    const model = response.modelVersion ?? this.o.model;
    // An answered call is billed even when it holds no audio.
    this.account({
      model,
      promptTokens: u?.promptTokenCount ?? 0,
      outputTokens: u?.candidatesTokenCount ?? 0,
      thinkingTokens: u?.thoughtsTokenCount ?? 0,
      ...(req.chatId !== undefined ? { chatId: req.chatId } : {}),
      ...(req.userId !== undefined ? { userId: req.userId } : {}),
    });
    const c = response.candidates?.[0];
    const part = c?.content?.parts?.find((p) => p.inlineData?.data);
    if (!part?.inlineData?.data) {
      const why = response.promptFeedback?.blockReason ?? c?.finishReason ?? "no candidate";
      throw new SpeechError(`speech: the answer holds no audio (${why})`);
    }
    return {
      data: Buffer.from(part.inlineData.data, "base64"),
      mimeType: part.inlineData.mimeType ?? "audio/L16;codec=pcm;rate=24000",
      model,
    };
  }
}

/** The content types an OpenAI-compatible server's raw PCM comes as. */
const RAW_TYPES = /^\s*(audio\/pcm|audio\/l16|application\/octet-stream)\b/i;

/** An OpenAI-compatible server's `/v1/audio/speech` (plain HTTP: one POST, raw PCM back). */
export class OpenAiSpeech extends BaseSpeech implements SpeechClient {
  constructor(
    private readonly o: {
      /** The API root, `…/v1`. */
      readonly baseUrl: string;
      readonly apiKey?: string | undefined;
      readonly model: string;
      readonly logger: Logger;
      readonly timeoutMs?: number;
      readonly clock?: Clock;
    },
  ) {
    super(o.logger);
  }

  get model(): string {
    return this.o.model;
  }

  async speak(req: SpeechRequest): Promise<SpeechResult> {
    const url = `${this.o.baseUrl.replace(/\/+$/, "")}/audio/speech`;
    const { data, mimeType } = await this.bounded(
      this.o.clock ?? systemClock,
      this.o.timeoutMs ?? SPEECH_TIMEOUT_MS,
      "speech",
      async (signal) => {
        const res = await fetch(url, {
          method: "POST",
          headers: {
            "content-type": "application/json",
            ...(this.o.apiKey !== undefined ? { authorization: `Bearer ${this.o.apiKey}` } : {}),
          },
          body: JSON.stringify({
            model: this.o.model,
            input: req.text,
            voice: req.voiceName,
            response_format: "pcm",
          }),
          signal,
        });
        if (!res.ok)
          throw new SpeechError(`speech: the server answered ${res.status} ${res.statusText} (${url})`);
        const type = res.headers.get("content-type") ?? "";
        const body = Buffer.from(await res.arrayBuffer());
        // `pcm` is 24 kHz 16-bit mono without a header; a server that sent WAV says so (or its
        // bytes do). Anything else (MP3 from a server that ignored `response_format`) read as PCM
        // would be noise: refused, and she writes instead.
        if (/wav/i.test(type) || body.subarray(0, 4).toString("latin1") === "RIFF")
          return { data: body, mimeType: "audio/wav" };
        if (!RAW_TYPES.test(type))
          throw new SpeechError(
            `speech: the server answered ${type || "no content type"}, not raw PCM or WAV (${url})`,
          );
        return { data: body, mimeType: "audio/pcm;rate=24000" };
      },
    );
    this.account({
      model: this.o.model,
      promptTokens: Math.ceil(req.text.length / 4),
      outputTokens: 0,
      thinkingTokens: 0,
      ...(req.chatId !== undefined ? { chatId: req.chatId } : {}),
      ...(req.userId !== undefined ? { userId: req.userId } : {}),
    });
    return { data, mimeType, model: this.o.model };
  }
}
