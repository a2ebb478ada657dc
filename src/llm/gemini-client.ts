/**
 * The one place that talks to Gemini: a JSON-mode `generateContent` call through the real
 * `@google/genai` SDK, with our own retries, per-attempt timeout, token accounting and typed errors.
 *
 * Why our own retries: the SDK (2.32.0) has none unless `httpOptions.retryOptions` is set, and its
 * p-retry based ones cannot honour Google's RetryInfo `retryDelay`, log a retry, or use an
 * injectable sleep. We pin `retryOptions.attempts` to 1 so a future SDK default cannot stack a
 * second retry loop under this one.
 *
 * The file keeps the client and its attempt; the retry loop is retry-loop.ts (shared with the
 * OpenAI-compatible client), gemini-errors.ts classifies what the SDK threw, gemini-response.ts
 * reads an answer and its token usage.
 */
import { UsageListeners } from "./usage-listeners";
import { GoogleGenAI, type GenerateContentConfig, type GenerateContentResponse } from "@google/genai";
import type { Logger } from "pino";
import { systemClock } from "../base/clock";
import { sleep, TimeoutError } from "../base/timeout";
import { LlmAvailability } from "./availability";
import { classifyFailure, isApiError, ResponseTooLargeError } from "./gemini-errors";
import { readAnswer, readUsage, type JsonGenerationResult } from "./gemini-response";
import { callWithRetries, retryPolicy, type RetryPolicy } from "./retry-loop";
import type { LlmContent, LlmUsage } from "./types";

export type { JsonGenerationResult } from "./gemini-response";

/**
 * The most an answer's body may hold. A plan is a few KB, a media description less; even the
 * largest answer the purposes allow (8,192 output tokens) is far below this. A body that grows
 * past it is cut off and treated like a garbled answer (retried, then an outage).
 */
const MAX_RESPONSE_BYTES = 8 * 1024 * 1024;

/** How to build a {@link GeminiClient}. */
export interface GeminiClientOptions {
  readonly apiKey: string;
  /** Model id, e.g. "gemini-2.5-flash". */
  readonly model: string;
  /** API root; when absent the SDK default applies (which honours `GOOGLE_GEMINI_BASE_URL`). */
  readonly baseUrl?: string;
  /** Attempts in total, the first one included. Default 4. */
  readonly maxAttempts?: number;
  /** First backoff step. Default 1000 ms. */
  readonly baseDelayMs?: number;
  /** Upper bound of one backoff wait. Default 30000 ms. */
  readonly maxDelayMs?: number;
  /** Deadline of one attempt (request and body). Default 60000 ms. */
  readonly timeoutMs?: number;
  readonly logger: Logger;
  /** Waits between attempts; injectable so tests run fast. */
  readonly sleep?: (ms: number) => Promise<void>;
  /** The time for the availability state (outage start, next try); default Date.now. Tests pass their FakeClock's. */
  readonly now?: () => number;
  /** Jitter source of the outage backoff (default Math.random). */
  readonly random?: () => number;
  /** The outage state to keep (shared with another provider's client: providers.ts); default a new one. */
  readonly availability?: LlmAvailability;
}

/** One JSON-mode generation. */
export interface JsonGenerationRequest {
  readonly systemInstruction: string;
  readonly contents: readonly LlmContent[];
  /** JSON Schema sent as `generationConfig.responseJsonSchema` (see json-schema.ts for the subset). */
  readonly responseJsonSchema: Record<string, unknown>;
  readonly temperature?: number;
  readonly maxOutputTokens?: number;
  /** Thinking tokens allowed (0 = none); absent: the model's default. */
  readonly thinkingBudget?: number;
  /** Model id for this call; default the client's model. */
  readonly model?: string;
  /** What the call is for, as usage is accounted ("plan", "address", …); default "other". */
  readonly purpose?: string;
  /** The chat the call is for (usage is attributed to it: a stranger's DM has its own share). */
  readonly chatId?: string;
  /** The person the call is for (the sender of the message planned for or judged): costs per person. */
  readonly userId?: string;
}

/** Gemini through `@google/genai` with retries, a per-attempt timeout and typed errors. */
export class GeminiClient {
  private readonly ai: GoogleGenAI;
  private readonly model: string;
  private readonly apiKey: string;
  private readonly policy: RetryPolicy;
  private readonly timeoutMs: number;
  private readonly log: Logger;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly usageListeners: UsageListeners;
  /** Whether each model is answering (outages: one probe at a time, backoff; see availability.ts). */
  readonly availability: LlmAvailability;

  constructor(o: GeminiClientOptions) {
    this.model = o.model;
    this.apiKey = o.apiKey;
    this.policy = retryPolicy(o);
    this.timeoutMs = Math.max(1, o.timeoutMs ?? 60_000);
    this.log = o.logger.child({ component: "llm" });
    this.usageListeners = new UsageListeners(this.log);
    this.sleep = o.sleep ?? ((ms) => sleep(ms, systemClock));
    this.availability =
      o.availability ??
      new LlmAvailability({
        now: o.now ?? systemClock.now,
        logger: this.log,
        ...(o.random ? { random: o.random } : {}),
      });
    this.ai = new GoogleGenAI({
      apiKey: o.apiKey,
      httpOptions: {
        // Leaving baseUrl out (not undefined-valued) keeps the SDK's env-var fallback working.
        ...(o.baseUrl !== undefined ? { baseUrl: o.baseUrl } : {}),
        retryOptions: { attempts: 1 },
      },
    });
  }

  /**
   * Be told the token usage of every answered call — also of answers that are then refused as
   * blocked or empty, since those are billed too. Returns unsubscribe.
   */
  onUsage(listener: (u: LlmUsage) => void): () => void {
    return this.usageListeners.add(listener);
  }

  /**
   * Ask for a JSON answer matching `req.responseSchema`. Resolves with the raw text; throws
   * {@link LlmHttpError}, {@link LlmNetworkError}, {@link LlmUnparsableError}, {@link LlmBlockedError},
   * {@link LlmEmptyResponseError}, or {@link LlmUnavailableError} (not sent: the model is failing
   * and another call probes it). A transient failure carries `retryInMs` (see availability.ts).
   */
  async generateJson(req: JsonGenerationRequest): Promise<JsonGenerationResult> {
    assertContents(req.contents);
    const model = req.model ?? this.model;
    const purpose = req.purpose ?? "other";
    const started = performance.now();
    const { response, attempts } = await callWithRetries({
      model,
      purpose,
      availability: this.availability,
      policy: this.policy,
      log: this.log,
      sleep: this.sleep,
      retryMessage: "gemini call failed, retrying",
      attempt: () => this.attemptOnce(req),
      classify: (err, attempt) => classifyFailure(err, attempt, model, (s) => this.redact(s)),
    });
    // A blocked or empty answer is not an HTTP failure (the caller decides whether to ask
    // again: see llm.ts).
    this.reportUsage(response, purpose, model, req.chatId, req.userId);
    const result = readAnswer(response, attempts, model);
    this.log.info(
      {
        purpose,
        model: result.model,
        promptTokens: result.usage.promptTokens,
        outputTokens: result.usage.outputTokens,
        thinkingTokens: result.usage.thinkingTokens,
        totalTokens: result.usage.totalTokens,
        attempts,
        ms: Math.round(performance.now() - started),
      },
      "gemini call ok",
    );
    return result;
  }

  /** One HTTP attempt under our own deadline, so a timeout is told apart from other aborts. */
  private async attemptOnce(req: JsonGenerationRequest): Promise<GenerateContentResponse> {
    const controller = new AbortController();
    // Real time, not the runtime's clock: the deadline bounds an HTTP exchange.
    const timer = systemClock.setTimeout(() => controller.abort(), this.timeoutMs);
    // The SDK's ApiError keeps the body, not the headers: read `Retry-After` on the way through.
    // The body is counted as it comes: past MAX_RESPONSE_BYTES the download stops.
    let retryAfter: string | null = null;
    let tooLarge = false;
    const fetchRecordingHeaders: typeof fetch = async (input, init) => {
      const res = await fetch(input, init);
      retryAfter = res.headers.get("retry-after");
      return capped(res, MAX_RESPONSE_BYTES, () => {
        tooLarge = true;
        controller.abort();
      });
    };
    // A fresh config each attempt: the SDK may mutate it.
    const config: GenerateContentConfig = {
      systemInstruction: req.systemInstruction,
      responseMimeType: "application/json",
      responseJsonSchema: req.responseJsonSchema,
      abortSignal: controller.signal,
      httpOptions: { fetch: fetchRecordingHeaders },
      ...(req.temperature !== undefined ? { temperature: req.temperature } : {}),
      ...(req.maxOutputTokens !== undefined ? { maxOutputTokens: req.maxOutputTokens } : {}),
      ...(req.thinkingBudget !== undefined ? { thinkingConfig: { thinkingBudget: req.thinkingBudget } } : {}),
    };
    try {
      return await this.ai.models.generateContent({
        model: req.model ?? this.model,
        contents: req.contents.map((c) => ({
          role: c.role,
          parts: c.parts.map((p) =>
            "text" in p
              ? { text: p.text }
              : { inlineData: { mimeType: p.inlineData.mimeType, data: p.inlineData.data } },
          ),
        })),
        config,
      });
    } catch (err) {
      if (tooLarge) throw new ResponseTooLargeError(MAX_RESPONSE_BYTES);
      // Our deadline fired (the SDK surfaces it as a bare AbortError).
      if (controller.signal.aborted) throw new TimeoutError("attempt", this.timeoutMs, { cause: err });
      if (isApiError(err) && retryAfter !== null) throw Object.assign(err, { retryAfterHeader: retryAfter });
      throw err;
    } finally {
      systemClock.clearTimeout(timer);
    }
  }

  /** Tell the usage listeners what an answered call cost; a listener's failure is logged, never thrown. */
  private reportUsage(
    response: GenerateContentResponse,
    purpose: string,
    asked: string,
    chatId: string | undefined,
    userId?: string,
  ): void {
    if (!this.usageListeners.any) return;
    const usage = readUsage(response, purpose, asked, chatId, userId);
    this.usageListeners.tell(usage);
  }

  /** Belt and braces: no string we copy from the SDK into an error or a log may carry the key. */
  private redact(s: string): string {
    return this.apiKey.length > 0 ? s.split(this.apiKey).join("[redacted]") : s;
  }
}

function assertContents(contents: JsonGenerationRequest["contents"]): void {
  if (contents.length === 0)
    throw new Error("Gemini request has no contents: at least one user turn is required");
  contents.forEach((c, i) => {
    // Checked at runtime too: callers build contents from stored data, and newer Gemini models
    // answer 400 to a "system" turn inside contents (instructions belong in systemInstruction).
    const role: string = c.role;
    if (role !== "user" && role !== "model") {
      throw new Error(
        `Gemini contents[${i}] has role "${role}": only "user" and "model" turns are allowed; put instructions in systemInstruction`,
      );
    }
  });
}

/**
 * `res` with a body that fails once more than `maxBytes` have come (`over` is told, and stops
 * the download). A declared Content-Length over the cap fails before anything is read.
 */
function capped(res: Response, maxBytes: number, over: () => void): Response {
  if (res.body === null) return res;
  if (Number(res.headers.get("content-length") ?? 0) > maxBytes) {
    over();
    throw new ResponseTooLargeError(maxBytes);
  }
  let seen = 0;
  const body = res.body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, out) {
        seen += chunk.byteLength;
        if (seen > maxBytes) {
          over();
          out.error(new ResponseTooLargeError(maxBytes));
          return;
        }
        out.enqueue(chunk);
      },
    }),
  );
  return new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers });
}
