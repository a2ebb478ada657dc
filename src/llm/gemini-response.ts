/**
 * Reading a Gemini answer: its text (thought parts left out), a refusal (a blocked prompt or
 * candidate, or nothing but "OTHER"), an empty answer, the finish reason, and the tokens the call
 * used as the server counted them. Only this file and the client read the SDK's response shape.
 */
import type { GenerateContentResponse } from "@google/genai";
import { LlmBlockedError, LlmEmptyResponseError } from "./errors";
import type { LlmUsage } from "./types";

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
 * The answer's text and accounting, or {@link LlmBlockedError} / {@link LlmEmptyResponseError}.
 * `asked` is the model the call was for (the errors name it; the result names the server's version).
 */
export function readAnswer(
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

/** What an answered call cost, for the usage listeners (0 tokens when the server sent no usageMetadata). */
export function readUsage(
  response: GenerateContentResponse,
  purpose: string,
  asked: string,
  chatId: string | undefined,
  userId?: string,
): LlmUsage {
  const u = response.usageMetadata;
  return {
    purpose,
    ...(chatId !== undefined ? { chatId } : {}),
    ...(userId !== undefined ? { userId } : {}),
    model: response.modelVersion ?? asked,
    promptTokens: u?.promptTokenCount ?? 0,
    ...(u?.cachedContentTokenCount ? { cachedTokens: u.cachedContentTokenCount } : {}),
    outputTokens: u?.candidatesTokenCount ?? 0,
    thinkingTokens: u?.thoughtsTokenCount ?? 0,
  };
}
