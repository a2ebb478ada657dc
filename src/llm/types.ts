/**
 * The vendor-neutral shapes of an LLM call: what a turn holds and what a call cost. The store,
 * the prompt and the inbound calls speak these; only the gemini-*.ts files know the SDK.
 */

/** One part of a turn: text, or inline media (base64) for a description call. */
export type LlmPart =
  { readonly text: string } | { readonly inlineData: { readonly mimeType: string; readonly data: string } };

/** One turn of `contents`: only user and model turns (newer models reject `system` there). */
export interface LlmContent {
  readonly role: "user" | "model";
  readonly parts: readonly LlmPart[];
}

/** Tokens one answered call used, as the server counted them (0 when it sent no usageMetadata). */
export interface LlmUsage {
  readonly purpose: string;
  /** The chat the call was for, when the caller named one. */
  readonly chatId?: string;
  /** The person the call was for, when the caller named one (costs per person). */
  readonly userId?: string;
  /** The model version the server reported, else the configured model. */
  readonly model: string;
  readonly promptTokens: number;
  /** Prompt tokens Gemini served from its (implicit) cache (cachedContentTokenCount): part of `promptTokens`, billed at the cached rate. */
  readonly cachedTokens?: number;
  /** Answer tokens (candidatesTokenCount), thinking excluded. */
  readonly outputTokens: number;
  /** Thinking tokens (thoughtsTokenCount), billed like output. */
  readonly thinkingTokens: number;
  /** A per-request fee on top of the tokens (a grounded search: llm/grounded.ts), USD. */
  readonly feeUsd?: number;
}
