/**
 * The one place that talks to an OpenAI-compatible server (`POST /v1/chat/completions`: OpenAI,
 * OpenRouter, Ollama, llama.cpp's llama-server, vLLM, LM Studio) through the real `openai` SDK,
 * with the same retry loop (retry-loop.ts), per-attempt deadline, outage state (availability.ts) and token
 * accounting as the Gemini client. The SDK's own retries are off (`maxRetries: 0`) so they cannot
 * stack under ours, and so a `Retry-After` is honoured by the one loop that logs it.
 *
 * Media: an inline image goes as an `image_url` data URL; the client refuses other media (audio,
 * video) before anything is sent — the router (providers.ts) sends those to Gemini or says no.
 */
import { UsageListeners } from "./usage-listeners";
import OpenAI from "openai";
import type {
  ChatCompletion,
  ChatCompletionCreateParamsNonStreaming,
} from "openai/resources/chat/completions";
import type { Logger } from "pino";
import { systemClock } from "../base/clock";
import { sleep } from "../base/timeout";
import { LlmAvailability } from "./availability";
import { LlmBlockedError, LlmEmptyResponseError } from "./errors";
import type { JsonGenerationResult } from "./gemini-response";
import { classifyOpenAiFailure, OPENAI_VENDOR } from "./openai-errors";
import { callWithRetries, retryPolicy, type RetryPolicy } from "./retry-loop";
import type { LlmContent, LlmUsage } from "./types";

/** How the answer's shape is asked for: a JSON schema, JSON mode, or only the words of the prompt. */
export type StructuredMode = "json_schema" | "json_object" | "text";

export interface OpenAiClientOptions {
  /** The server's API root, e.g. `http://127.0.0.1:11434/v1` (OPENAI_BASE_URL). */
  readonly baseUrl: string;
  /** OPENAI_API_KEY; local servers take any value. */
  readonly apiKey: string;
  /** The model of calls that name none (OPENAI_MODEL). */
  readonly model: string;
  readonly logger: Logger;
  /** Attempts in total, the first one included. Default 4. */
  readonly maxAttempts?: number;
  readonly baseDelayMs?: number;
  readonly maxDelayMs?: number;
  /** Deadline of one attempt. Default 120000 ms (a local model on a CPU is slow). */
  readonly timeoutMs?: number;
  readonly sleep?: (ms: number) => Promise<void>;
  readonly now?: () => number;
  readonly random?: () => number;
  /** The outage state, shared with the Gemini client when both run (providers.ts). */
  readonly availability?: LlmAvailability;
}

/** One chat-completions call asking for JSON. */
export interface ChatJsonRequest {
  readonly systemInstruction: string;
  readonly contents: readonly LlmContent[];
  /** The answer's JSON schema (sent with mode `json_schema`). */
  readonly jsonSchema: Record<string, unknown>;
  readonly mode: StructuredMode;
  readonly temperature?: number;
  readonly maxOutputTokens?: number;
  readonly model?: string;
  readonly purpose?: string;
  readonly chatId?: string;
  readonly userId?: string;
}

/** The OpenAI-compatible client: retries, deadline, outages, accounting. */
export class OpenAiClient {
  private readonly sdk: OpenAI;
  private readonly policy: RetryPolicy;
  private readonly timeoutMs: number;
  private readonly log: Logger;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly usageListeners: UsageListeners;
  readonly availability: LlmAvailability;
  readonly model: string;
  readonly baseUrl: string;

  constructor(private readonly o: OpenAiClientOptions) {
    this.model = o.model;
    this.baseUrl = o.baseUrl;
    this.policy = retryPolicy(o);
    this.timeoutMs = Math.max(1, o.timeoutMs ?? 120_000);
    this.log = o.logger.child({ component: "llm" });
    this.usageListeners = new UsageListeners(this.log);
    this.sleep = o.sleep ?? ((ms) => sleep(ms, systemClock));
    this.availability =
      o.availability ??
      new LlmAvailability({
        now: o.now ?? systemClock.now,
        logger: this.log,
        label: (m) => `${OPENAI_VENDOR} ${m}`,
        ...(o.random ? { random: o.random } : {}),
      });
    this.sdk = new OpenAI({ baseURL: o.baseUrl, apiKey: o.apiKey, maxRetries: 0, timeout: this.timeoutMs });
  }

  onUsage(listener: (u: LlmUsage) => void): () => void {
    return this.usageListeners.add(listener);
  }

  /** The models the server lists (`GET /models`), for the check at start (openai-check.ts). */
  async listModels(timeoutMs: number): Promise<string[]> {
    const page = await this.sdk.models.list({ timeout: timeoutMs, maxRetries: 0 });
    return page.data.map((m) => m.id);
  }

  /**
   * Ask for a JSON answer. Resolves with the raw text; throws the errors of errors.ts (and
   * openai-errors.ts's context-too-long and missing-model ones), transient ones with `retryInMs`.
   */
  async generateJson(req: ChatJsonRequest): Promise<JsonGenerationResult> {
    const model = req.model ?? this.model;
    const purpose = req.purpose ?? "other";
    const body = chatBody(req, model);
    const started = performance.now();
    const { response, attempts } = await callWithRetries<ChatCompletion>({
      model,
      purpose,
      availability: this.availability,
      policy: this.policy,
      log: this.log,
      sleep: this.sleep,
      vendor: OPENAI_VENDOR,
      retryMessage: "model call failed, retrying",
      attempt: () => this.sdk.chat.completions.create(body),
      classify: (err, attempt) => classifyOpenAiFailure(err, attempt, model, (s) => this.redact(s)),
    });
    const usage = readUsage(response, purpose, model, req.chatId, req.userId);
    this.report(usage);
    const result = readAnswer(response, attempts, model, usage);
    this.log.info(
      {
        purpose,
        model: result.model,
        mode: req.mode,
        promptTokens: usage.promptTokens,
        outputTokens: usage.outputTokens,
        thinkingTokens: usage.thinkingTokens,
        attempts,
        ms: Math.round(performance.now() - started),
      },
      "model call ok",
    );
    return result;
  }

  private report(usage: LlmUsage): void {
    this.usageListeners.tell(usage);
  }

  private redact(s: string): string {
    const key = this.o.apiKey;
    return key.length >= 8 ? s.split(key).join("[redacted]") : s;
  }
}

/** Whether a media type can go to a chat-completions model here (images only: `image_url`). */
export function openAiTakes(mimeType: string): boolean {
  return /^image\/(jpeg|png|webp|gif)$/i.test(mimeType);
}

/** The request body, as the SDK sends it. */
function chatBody(req: ChatJsonRequest, model: string): ChatCompletionCreateParamsNonStreaming {
  const messages: ChatCompletionCreateParamsNonStreaming["messages"] = [
    { role: "system", content: req.systemInstruction },
  ];
  for (const c of req.contents) {
    if (c.role === "model") {
      messages.push({ role: "assistant", content: c.parts.map((p) => ("text" in p ? p.text : "")).join("") });
      continue;
    }
    const onlyText = c.parts.every((p) => "text" in p);
    if (onlyText) {
      messages.push({ role: "user", content: c.parts.map((p) => ("text" in p ? p.text : "")).join("\n\n") });
      continue;
    }
    messages.push({
      role: "user",
      content: c.parts.map((p) => {
        if ("text" in p) return { type: "text" as const, text: p.text };
        if (!openAiTakes(p.inlineData.mimeType))
          throw new Error(
            `${p.inlineData.mimeType} cannot be sent to an OpenAI-compatible model (images only)`,
          );
        return {
          type: "image_url" as const,
          image_url: { url: `data:${p.inlineData.mimeType};base64,${p.inlineData.data}` },
        };
      }),
    });
  }
  return {
    model,
    messages,
    ...(req.temperature !== undefined ? { temperature: req.temperature } : {}),
    ...(req.maxOutputTokens !== undefined ? { max_tokens: req.maxOutputTokens } : {}),
    ...(req.mode === "json_schema"
      ? {
          response_format: {
            type: "json_schema" as const,
            json_schema: { name: "answer", schema: req.jsonSchema, strict: false },
          },
        }
      : req.mode === "json_object"
        ? { response_format: { type: "json_object" as const } }
        : {}),
  };
}

function readUsage(
  r: ChatCompletion,
  purpose: string,
  asked: string,
  chatId: string | undefined,
  userId: string | undefined,
): LlmUsage {
  const u = r.usage;
  const reasoning = u?.completion_tokens_details?.reasoning_tokens ?? 0;
  const cached = u?.prompt_tokens_details?.cached_tokens ?? 0;
  return {
    purpose,
    ...(chatId !== undefined ? { chatId } : {}),
    ...(userId !== undefined ? { userId } : {}),
    model: asked,
    promptTokens: u?.prompt_tokens ?? 0,
    ...(cached > 0 ? { cachedTokens: cached } : {}),
    // OpenAI counts reasoning inside completion_tokens; ours keeps them apart.
    outputTokens: Math.max(0, (u?.completion_tokens ?? 0) - reasoning),
    thinkingTokens: reasoning,
  };
}

/** The answer's text, or a refusal/empty answer as the errors the generic call knows. */
function readAnswer(
  r: ChatCompletion,
  attempts: number,
  asked: string,
  usage: LlmUsage,
): JsonGenerationResult {
  const choice = r.choices?.[0];
  const finish = choice?.finish_reason;
  const finishReason =
    finish === "length" ? "MAX_TOKENS" : finish === "stop" ? "STOP" : (finish ?? undefined);
  const message = choice?.message;
  if (message?.refusal)
    throw new LlmBlockedError({
      reason: message.refusal,
      source: "candidate",
      model: asked,
      vendor: OPENAI_VENDOR,
    });
  if (finish === "content_filter")
    throw new LlmBlockedError({
      reason: "content_filter",
      source: "candidate",
      model: asked,
      vendor: OPENAI_VENDOR,
    });
  const text = typeof message?.content === "string" ? message.content : "";
  if (text.trim().length === 0)
    throw new LlmEmptyResponseError({
      ...(finishReason ? { finishReason } : {}),
      model: asked,
      vendor: OPENAI_VENDOR,
    });
  return {
    text,
    usage: {
      promptTokens: usage.promptTokens,
      outputTokens: usage.outputTokens,
      thinkingTokens: usage.thinkingTokens,
      totalTokens: usage.promptTokens + usage.outputTokens + usage.thinkingTokens,
    },
    attempts,
    // The configured name, not the server's echo: prices and outages are keyed by it.
    model: asked,
    finishReason,
  };
}
