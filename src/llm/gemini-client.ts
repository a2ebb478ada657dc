/**
 * The one place that talks to Gemini: a JSON-mode `generateContent` call through the real
 * `@google/genai` SDK, with our own retries, per-attempt timeout, token accounting and typed errors.
 *
 * Why our own retries: the SDK (2.32.0) has none unless `httpOptions.retryOptions` is set, and its
 * p-retry based ones cannot honour Google's RetryInfo `retryDelay`, log a retry, or use an
 * injectable sleep. We pin `retryOptions.attempts` to 1 so a future SDK default cannot stack a
 * second retry loop under this one.
 */
import {
  ApiError,
  GoogleGenAI,
  type GenerateContentConfig,
  type GenerateContentResponse,
} from "@google/genai";
import type { Logger } from "pino";
import { z } from "zod";
import { systemClock } from "../base/clock";
import { errorMessage } from "../base/error-message";
import { sleep, TimeoutError } from "../base/timeout";
import { LlmAvailability } from "./availability";
import type { LlmContent, LlmUsage } from "./types";
import {
  LlmBlockedError,
  LlmEmptyResponseError,
  LlmHttpError,
  LlmNetworkError,
  LlmUnavailableError,
  LlmUnparsableError,
} from "./errors";

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

/** The raw JSON text (not yet validated — the caller owns the schema) plus accounting. */
export interface JsonGenerationResult {
  readonly text: string;
  readonly usage: {
    readonly promptTokens: number;
    readonly outputTokens: number;
    readonly thinkingTokens: number;
    readonly totalTokens: number;
  };
  /** Attempts it took, 1 when the first one succeeded. */
  readonly attempts: number;
  /** The model version the server reported, else the configured model. */
  readonly model: string;
  /** The candidate's finishReason, e.g. "STOP" or "MAX_TOKENS" (the latter means truncated JSON). */
  readonly finishReason: string | undefined;
}

/** Statuses worth another attempt: rate limit, and the server-side failures Google documents as transient. */
const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([429, 500, 502, 503, 504]);

/** Candidate finish reasons that mean "the model refused", as opposed to "ran out" or "stopped". */
const BLOCK_FINISH_REASONS: ReadonlySet<string> = new Set([
  "SAFETY",
  "RECITATION",
  "LANGUAGE",
  "BLOCKLIST",
  "PROHIBITED_CONTENT",
  "SPII",
  "IMAGE_SAFETY",
  "IMAGE_PROHIBITED_CONTENT",
]);

/**
 * The SDK's `ApiError.message` is `JSON.stringify` of the response body, which for Google APIs is
 * `{ error: { code, message, status, details[] } }` (see `throwErrorIfNotOK` in the SDK).
 */
const GoogleErrorBody = z.object({
  error: z.object({
    code: z.number().optional(),
    message: z.string().optional(),
    status: z.string().optional(),
    details: z.array(z.unknown()).optional(),
  }),
});

/** google.rpc.RetryInfo; `retryDelay` is a protobuf Duration in JSON form, e.g. "2s" or "1.500s". */
const RetryInfo = z.object({
  "@type": z.literal("type.googleapis.com/google.rpc.RetryInfo"),
  retryDelay: z.string().regex(/^\d+(\.\d+)?s$/),
});

/** Gemini through `@google/genai` with retries, a per-attempt timeout and typed errors. */
export class GeminiClient {
  private readonly ai: GoogleGenAI;
  private readonly model: string;
  private readonly apiKey: string;
  private readonly maxAttempts: number;
  private readonly baseDelayMs: number;
  private readonly maxDelayMs: number;
  private readonly timeoutMs: number;
  private readonly log: Logger;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly usageListeners = new Set<(u: LlmUsage) => void>();
  /** Whether each model is answering (outages: one probe at a time, backoff; see availability.ts). */
  readonly availability: LlmAvailability;

  constructor(o: GeminiClientOptions) {
    this.model = o.model;
    this.apiKey = o.apiKey;
    this.maxAttempts = Math.max(1, Math.floor(o.maxAttempts ?? 4));
    this.baseDelayMs = Math.max(0, o.baseDelayMs ?? 1000);
    this.maxDelayMs = Math.max(this.baseDelayMs, o.maxDelayMs ?? 30_000);
    this.timeoutMs = Math.max(1, o.timeoutMs ?? 60_000);
    this.log = o.logger.child({ component: "llm" });
    this.sleep = o.sleep ?? ((ms) => sleep(ms, systemClock));
    this.availability = new LlmAvailability({
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
    this.usageListeners.add(listener);
    return () => this.usageListeners.delete(listener);
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
    const admission = this.availability.admit(model);
    if (!admission.go) {
      throw new LlmUnavailableError({
        model,
        reason: admission.outage.lastError,
        since: admission.outage.since,
        retryInMs: admission.retryInMs,
      });
    }
    // While the model is failing, the probe is one attempt: its retries are the outage's backoff.
    const maxAttempts = admission.probe ? 1 : this.maxAttempts;
    const started = performance.now();
    for (let attempt = 1; ; attempt++) {
      let response: GenerateContentResponse;
      try {
        response = await this.attemptOnce(req);
      } catch (err) {
        let failure: Failure;
        try {
          failure = this.classify(err, attempt, model);
        } catch (bug) {
          if (admission.probe) this.availability.release(model);
          throw bug;
        }
        if (!failure.retryable) {
          // The server answered (a 400, a bad key, an unknown model): it is up, the request is wrong.
          this.availability.answered(model);
          throw failure.error;
        }
        // Another call found the model failing meanwhile: stop here rather than add to the storm.
        const delayMs = this.availability.isUp(model)
          ? this.retryDelay(failure, attempt, maxAttempts)
          : undefined;
        if (delayMs === undefined) {
          failure.error.retryInMs = this.availability.failed(model, failure.reason, {
            probe: admission.probe,
            attempts: attempt,
            serverDelayMs: failure.serverDelayMs,
          });
          throw failure.error;
        }
        // A blip the next attempt may cure: not an outage (yet), so not a warning.
        this.log.info(
          {
            model,
            purpose,
            attempt,
            status: failure.label,
            delayMs: Math.round(delayMs),
            error: failure.error.message,
          },
          "gemini call failed, retrying",
        );
        await this.sleep(delayMs);
        continue;
      }
      // Any answer, blocked or empty ones too, shows the model is up.
      this.availability.answered(model);
      // Interpreted outside the try: a blocked or empty answer is not an HTTP failure (the
      // caller decides whether to ask again: see llm.ts).
      this.reportUsage(response, purpose, model, req.chatId, req.userId);
      const result = this.interpret(response, attempt, model);
      this.log.info(
        {
          purpose,
          model: result.model,
          promptTokens: result.usage.promptTokens,
          outputTokens: result.usage.outputTokens,
          thinkingTokens: result.usage.thinkingTokens,
          totalTokens: result.usage.totalTokens,
          attempts: attempt,
          ms: Math.round(performance.now() - started),
        },
        "gemini call ok",
      );
      return result;
    }
  }

  /** One HTTP attempt under our own deadline, so a timeout is told apart from other aborts. */
  private async attemptOnce(req: JsonGenerationRequest): Promise<GenerateContentResponse> {
    const controller = new AbortController();
    // Real time, not the runtime's clock: the deadline bounds an HTTP exchange.
    const timer = systemClock.setTimeout(() => controller.abort(), this.timeoutMs);
    // The SDK's ApiError keeps the body, not the headers: read `Retry-After` on the way through.
    let retryAfter: string | null = null;
    const fetchRecordingHeaders: typeof fetch = async (input, init) => {
      const res = await fetch(input, init);
      retryAfter = res.headers.get("retry-after");
      return res;
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
      // Our deadline fired (the SDK surfaces it as a bare AbortError).
      if (controller.signal.aborted) throw new TimeoutError("attempt", this.timeoutMs, { cause: err });
      if (isApiError(err) && retryAfter !== null) throw Object.assign(err, { retryAfterHeader: retryAfter });
      throw err;
    } finally {
      systemClock.clearTimeout(timer);
    }
  }

  /** Map whatever the SDK/fetch threw to one of our errors, or rethrow what we do not understand. */
  private classify(err: unknown, attempt: number, model: string): Failure {
    if (err instanceof TimeoutError) {
      const error = new LlmNetworkError({
        message: `no answer within ${err.ms} ms`,
        timedOut: true,
        attempts: attempt,
        model,
      });
      return {
        error,
        retryable: true,
        label: "timeout",
        reason: `no answer within ${err.ms} ms`,
        serverDelayMs: undefined,
      };
    }
    if (isApiError(err)) {
      const body = parseErrorBody(this.redact(err.message));
      const retryable = RETRYABLE_STATUSES.has(err.status);
      // RetryInfo (in the body) is Google's own; a Retry-After header (a proxy, a gateway) is honoured too.
      const headerDelay = parseRetryAfter(
        (err as { retryAfterHeader?: string }).retryAfterHeader,
        systemClock.now(), // an HTTP date is compared with the wall clock
      );
      const serverDelayMs = body.retryAfterMs ?? headerDelay;
      const error = new LlmHttpError({
        status: err.status,
        retryable,
        ...(body.apiStatus !== undefined ? { apiStatus: body.apiStatus } : {}),
        apiMessage: body.apiMessage,
        ...(serverDelayMs !== undefined ? { retryAfterMs: serverDelayMs } : {}),
        attempts: attempt,
        model,
      });
      const reason = `HTTP ${err.status}${body.apiStatus !== undefined ? ` ${body.apiStatus}` : ""}: ${truncate(body.apiMessage, 120)}`;
      return { error, retryable, label: err.status, reason, serverDelayMs };
    }
    if (err instanceof SyntaxError) {
      // The SDK parses a 200's body as JSON: a cut-off or non-JSON body (a proxy's page) lands here.
      const error = new LlmUnparsableError({
        detail: this.redact(err.message),
        attempts: attempt,
        model,
        cause: err,
      });
      return {
        error,
        retryable: true,
        label: "unparsable",
        reason: "an unparsable answer (HTTP 200 that is not JSON)",
        serverDelayMs: undefined,
      };
    }
    if (isNetworkFailure(err)) {
      const detail = this.redact(describeNetworkFailure(err));
      const error = new LlmNetworkError({
        message: detail,
        timedOut: false,
        attempts: attempt,
        model,
        cause: err,
      });
      return {
        error,
        retryable: true,
        label: "network",
        reason: `network: ${detail}`,
        serverDelayMs: undefined,
      };
    }
    // Not an API or network failure (an SDK validation error, a bug): retrying would not help.
    throw err;
  }

  /** How long to wait before the next attempt, or undefined to give up now. */
  private retryDelay(failure: Failure, attempt: number, maxAttempts: number): number | undefined {
    if (!failure.retryable || attempt >= maxAttempts) return undefined;
    if (failure.serverDelayMs !== undefined) {
      // Retrying sooner than the server asked only earns another 429; waiting longer than our
      // bound would stall the caller. Give up and let it reschedule (the error carries retryAfterMs).
      return failure.serverDelayMs <= this.maxDelayMs ? failure.serverDelayMs : undefined;
    }
    // Exponential with "equal jitter": at least half the step, so retries neither bunch up nor vanish.
    const step = Math.min(this.maxDelayMs, this.baseDelayMs * 2 ** (attempt - 1));
    return step / 2 + Math.random() * (step / 2);
  }

  private interpret(
    response: GenerateContentResponse,
    attempts: number,
    asked: string,
  ): JsonGenerationResult {
    const model = response.modelVersion ?? asked;
    const blockReason = response.promptFeedback?.blockReason;
    if (blockReason !== undefined) {
      throw new LlmBlockedError({ reason: blockReason, source: "prompt", model: asked });
    }
    const candidate = response.candidates?.[0];
    const finishReason = candidate?.finishReason;
    if (finishReason !== undefined && BLOCK_FINISH_REASONS.has(finishReason)) {
      throw new LlmBlockedError({ reason: finishReason, source: "candidate", model: asked });
    }
    // Thought parts (2.5 models) are reasoning, not the answer; join only the answer's text parts.
    const text = (candidate?.content?.parts ?? [])
      .filter((p) => p.thought !== true && typeof p.text === "string")
      .map((p) => p.text)
      .join("");
    if (text.length === 0) {
      // "OTHER" with nothing to show is, in practice, a refusal without a stated category.
      if (finishReason === "OTHER")
        throw new LlmBlockedError({ reason: finishReason, source: "candidate", model: asked });
      throw new LlmEmptyResponseError({
        ...(finishReason !== undefined ? { finishReason } : {}),
        model: asked,
      });
    }
    const usage = response.usageMetadata;
    const promptTokens = usage?.promptTokenCount ?? 0;
    const outputTokens = usage?.candidatesTokenCount ?? 0;
    const thinkingTokens = usage?.thoughtsTokenCount ?? 0;
    return {
      text,
      usage: {
        promptTokens,
        outputTokens,
        thinkingTokens,
        totalTokens: usage?.totalTokenCount ?? promptTokens + outputTokens + thinkingTokens,
      },
      attempts,
      model,
      finishReason,
    };
  }

  /** Tell the usage listeners what an answered call cost; a listener's failure is logged, never thrown. */
  private reportUsage(
    response: GenerateContentResponse,
    purpose: string,
    asked: string,
    chatId: string | undefined,
    userId?: string,
  ): void {
    if (this.usageListeners.size === 0) return;
    const u = response.usageMetadata;
    const usage: LlmUsage = {
      purpose,
      ...(chatId !== undefined ? { chatId } : {}),
      ...(userId !== undefined ? { userId } : {}),
      model: response.modelVersion ?? asked,
      promptTokens: u?.promptTokenCount ?? 0,
      ...(u?.cachedContentTokenCount ? { cachedTokens: u.cachedContentTokenCount } : {}),
      outputTokens: u?.candidatesTokenCount ?? 0,
      thinkingTokens: u?.thoughtsTokenCount ?? 0,
    };
    for (const listener of this.usageListeners) {
      try {
        listener(usage);
      } catch (e) {
        this.log.error({ err: errorMessage(e) }, "recording LLM usage failed");
      }
    }
  }

  /** Belt and braces: no string we copy from the SDK into an error or a log may carry the key. */
  private redact(s: string): string {
    return this.apiKey.length > 0 ? s.split(this.apiKey).join("[redacted]") : s;
  }
}

interface Failure {
  readonly error: LlmHttpError | LlmNetworkError | LlmUnparsableError;
  readonly retryable: boolean;
  /** What the retry log line shows as `status`: the HTTP status, "network", "timeout" or "unparsable". */
  readonly label: number | "network" | "timeout" | "unparsable";
  /** The failure in a few words, for the outage lines and `/status`. */
  readonly reason: string;
  /** The server's requested pause (RetryInfo, or a Retry-After header). */
  readonly serverDelayMs: number | undefined;
}

/** `Retry-After`: delta-seconds or an HTTP date (RFC 9110 §10.2.3); undefined when absent or unreadable. */
function parseRetryAfter(value: string | undefined, now: number): number | undefined {
  if (value === undefined) return undefined;
  const v = value.trim();
  if (/^\d+$/.test(v)) return Number(v) * 1000;
  const at = Date.parse(v);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
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

function isApiError(err: unknown): err is ApiError {
  // instanceof can fail if two copies of the SDK are loaded; the name and a numeric status are what matter.
  return (
    err instanceof ApiError ||
    (err instanceof Error &&
      err.name === "ApiError" &&
      typeof (err as { status?: unknown }).status === "number")
  );
}

function parseErrorBody(message: string): {
  apiMessage: string;
  apiStatus: string | undefined;
  retryAfterMs: number | undefined;
} {
  let json: unknown;
  try {
    json = JSON.parse(message);
  } catch {
    return { apiMessage: truncate(plainText(message)), apiStatus: undefined, retryAfterMs: undefined };
  }
  const parsed = GoogleErrorBody.safeParse(json);
  if (!parsed.success)
    return { apiMessage: truncate(plainText(message)), apiStatus: undefined, retryAfterMs: undefined };
  const { error } = parsed.data;
  let retryAfterMs: number | undefined;
  for (const detail of error.details ?? []) {
    const info = RetryInfo.safeParse(detail);
    if (info.success) retryAfterMs = Math.round(Number.parseFloat(info.data.retryDelay) * 1000);
  }
  return { apiMessage: truncate(plainText(error.message ?? message)), apiStatus: error.status, retryAfterMs };
}

function truncate(s: string, max = 500): string {
  return s.length > max ? `${s.slice(0, max)}…` : s;
}

/** A proxy's HTML error page as a few words: its title, else its text without tags. */
function plainText(s: string): string {
  if (!/<\/?[a-z][^>]*>/i.test(s)) return s;
  const title = /<title[^>]*>([^<]*)<\/title>/i.exec(s)?.[1]?.trim();
  return (
    title ||
    s
      .replace(/<[^>]*>/g, " ")
      .replace(/\s+/g, " ")
      .trim()
  );
}

/** Error codes of socket/DNS failures (Node) and undici's own transport errors. */
const NETWORK_CODE = /^(E[A-Z]+|UND_ERR_[A-Z_]+)$/;

function errorCode(e: unknown): string | undefined {
  const code = typeof e === "object" && e !== null ? (e as { code?: unknown }).code : undefined;
  return typeof code === "string" ? code : undefined;
}

/**
 * Node's fetch (undici) rejects with `TypeError("fetch failed")` whose `cause` carries the socket
 * error, and with `TypeError("terminated")` when the body is cut off; an abort we did not cause
 * (none expected) is treated the same.
 */
function isNetworkFailure(err: unknown): err is Error {
  if (!(err instanceof Error)) return false;
  if (err.name === "AbortError") return true;
  if (err instanceof TypeError && (err.message === "fetch failed" || err.message === "terminated"))
    return true;
  const code = errorCode(err) ?? errorCode(err.cause);
  return code !== undefined && NETWORK_CODE.test(code);
}

function describeNetworkFailure(err: Error): string {
  const code = errorCode(err.cause) ?? errorCode(err);
  const causeMessage = err.cause instanceof Error ? err.cause.message : undefined;
  return [err.message, code, causeMessage]
    .filter((s): s is string => s !== undefined && s.length > 0)
    .join(": ");
}
