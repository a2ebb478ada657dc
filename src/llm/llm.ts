/**
 * The one way the persona asks an LLM for structured output: `llm.generateJson({purpose, schema,
 * …})`. Planning, addressing, summaries and media descriptions all go through it, so they share:
 *
 * - the schema: the zod schema is sent as `responseJsonSchema` (json-schema.ts) and checks the
 *   answer (or the caller's own `parse`, for a validator that keeps the good part of an answer);
 * - limits per purpose (purposes.ts): `maxOutputTokens`, thinking budget, temperature, model;
 * - the refusal rule: an answer that is blocked (safety, recitation, a blocked prompt…), empty,
 *   or not in the schema's shape gets ONE more call; if that fails too the result is
 *   `{ok: false}` and exactly one log line names the purpose, the chat and the reason — the
 *   caller stays silent (no failed task, no error cascade);
 * - accounting: every answered call's tokens reach `onUsage` listeners under its purpose
 *   (stored in `llm_usage`), and the client logs one line per call with purpose and tokens.
 *
 * HTTP failures (429/5xx, network, timeouts, unparsable answers) are retried inside GeminiClient
 * and then thrown with `retryInMs` (see availability.ts): those are not refusals, the caller parks
 * its work (tasks/llm-wait.ts).
 */
import type { Logger } from "pino";
import { z } from "zod";
import { LlmBlockedError, LlmEmptyResponseError, LlmFormatError } from "./errors";
import type { LlmAvailability } from "./availability";
import { GeminiClient } from "./gemini-client";
import type { LlmContent, LlmUsage } from "./types";
import { geminiJsonSchema } from "./json-schema";
import { PURPOSES, type LlmPurpose } from "../config/llm-purposes";

/** A structured-output request. `T` is what the caller gets back. */
export interface JsonRequest<T> {
  readonly purpose: LlmPurpose;
  /** The answer's schema: sent to Gemini, and (without `parse`) used to check the answer. */
  readonly schema: z.ZodType;
  readonly systemInstruction: string;
  readonly contents: readonly LlmContent[];
  /**
   * Check the answer's text yourself (default: JSON.parse, then `schema.parse`). Throw
   * LlmFormatError (or a subclass) when it is not an answer at all: that earns the second call.
   */
  readonly parse?: (text: string) => T;
  /** Which chat the call was for: for the log lines, and usage is attributed to it. */
  readonly chatId?: string;
  /** Who the call was for (the sender of the message planned for or judged): usage is attributed to them too. */
  readonly userId?: string;
  /** Override the purpose's model (rarely needed). */
  readonly model?: string;
}

/** Why a call came back with nothing usable. */
type RefusalKind = "blocked" | "empty" | "malformed" | "dry";

export type JsonOutcome<T> =
  | { readonly ok: true; readonly value: T; readonly model: string; readonly calls: number }
  | {
      readonly ok: false;
      readonly kind: RefusalKind;
      readonly reason: string;
      readonly calls: number;
      /** The last answer was cut off at the purpose's maxOutputTokens (finish reason MAX_TOKENS): a limit of ours, not the model refusing. */
      readonly truncated?: boolean;
    };

/** What every LLM-using part of the persona depends on (Gemini in production, a dry stand-in in the keyless sandbox). */
export interface Llm {
  generateJson<T>(req: JsonRequest<T>): Promise<JsonOutcome<T>>;
  /** Be told the tokens of every answered call. Returns unsubscribe. */
  onUsage(listener: (u: LlmUsage) => void): () => void;
  /** The model a purpose uses. */
  modelFor(purpose: LlmPurpose): string;
  /** Whether each model answers (outages); absent for a stand-in that makes no calls. */
  readonly availability?: LlmAvailability;
  /** Who serves a model ("Gemini", "OpenAI-compatible"), for costs and outages per provider; absent: Gemini. */
  providerOf?(model: string): string;
}

/** Build the persona's Gemini access: one client (retries, timeouts, accounting), a model per purpose. */
export function createGeminiLlm(o: {
  readonly apiKey: string;
  readonly model: string;
  readonly baseUrl?: string | undefined;
  readonly models?: Partial<Record<LlmPurpose, string>>;
  /** Thinking tokens per purpose (`GEMINI_THINKING_BUDGET`); the rest keep PURPOSES'. */
  readonly thinking?: Partial<Record<LlmPurpose, number>> | undefined;
  readonly logger: Logger;
  /** The runtime's clock, for the outage state (default Date.now). */
  readonly now?: () => number;
  /** The outage state shared with another provider (providers.ts). */
  readonly availability?: LlmAvailability;
}): GeminiLlm {
  const client = new GeminiClient({
    apiKey: o.apiKey,
    model: o.model,
    logger: o.logger,
    ...(o.availability ? { availability: o.availability } : {}),
    ...(o.baseUrl ? { baseUrl: o.baseUrl } : {}),
    ...(o.now ? { now: o.now } : {}),
  });
  return new GeminiLlm({
    client,
    logger: o.logger,
    model: o.model,
    ...(o.models ? { models: o.models } : {}),
    ...(o.thinking ? { thinking: o.thinking } : {}),
  });
}

/** Calls per request: the first and the one more try after a refusal. */
const CALLS = 2;

/** How the persona talks to Gemini: one client, a model per purpose. */
export class GeminiLlm implements Llm {
  private readonly models: Readonly<Partial<Record<LlmPurpose, string>>>;

  constructor(
    private readonly o: {
      readonly client: GeminiClient;
      readonly logger: Logger;
      /** The model of purposes not listed in `models`. */
      readonly model: string;
      /** Per-purpose models, e.g. `{address: "gemini-2.5-flash-lite"}`. */
      readonly models?: Partial<Record<LlmPurpose, string>>;
      /** Per-purpose thinking budgets, e.g. `{plan: 256}`; the rest keep PURPOSES'. */
      readonly thinking?: Partial<Record<LlmPurpose, number>>;
    },
  ) {
    this.models = o.models ?? {};
  }

  modelFor(purpose: LlmPurpose): string {
    return this.models[purpose] ?? this.o.model;
  }

  get availability(): LlmAvailability {
    return this.o.client.availability;
  }

  onUsage(listener: (u: LlmUsage) => void): () => void {
    return this.o.client.onUsage(listener);
  }

  async generateJson<T>(req: JsonRequest<T>): Promise<JsonOutcome<T>> {
    const settings = PURPOSES[req.purpose];
    const model = req.model ?? this.modelFor(req.purpose);
    const responseJsonSchema = geminiJsonSchema(req.schema);
    const parse = req.parse ?? ((text: string) => parseWith(req.schema, text) as T);
    let last: { kind: RefusalKind; reason: string; truncated?: boolean } = {
      kind: "empty",
      reason: "no answer",
    };
    for (let call = 1; call <= CALLS; call++) {
      try {
        const res = await this.o.client.generateJson({
          systemInstruction: req.systemInstruction,
          contents: req.contents,
          responseJsonSchema,
          temperature: settings.temperature,
          maxOutputTokens: settings.maxOutputTokens,
          thinkingBudget: this.o.thinking?.[req.purpose] ?? settings.thinkingBudget,
          model,
          purpose: req.purpose,
          ...(req.chatId !== undefined ? { chatId: req.chatId } : {}),
          ...(req.userId !== undefined ? { userId: req.userId } : {}),
        });
        const truncated = res.finishReason === "MAX_TOKENS";
        try {
          return { ok: true, value: parse(res.text), model: res.model, calls: call };
        } catch (e) {
          if (!(e instanceof LlmFormatError || e instanceof z.ZodError)) throw e;
          last = {
            kind: "malformed",
            reason: `${truncated ? "cut off at maxOutputTokens: " : ""}${formatReason(e)}`,
            ...(truncated ? { truncated } : {}),
          };
        }
      } catch (e) {
        if (e instanceof LlmBlockedError)
          last = {
            kind: "blocked",
            reason: `${e.source === "prompt" ? "prompt blocked" : "answer blocked"}: ${e.reason}`,
          };
        else if (e instanceof LlmEmptyResponseError)
          last = {
            kind: "empty",
            reason: `empty answer${e.finishReason ? ` (${e.finishReason})` : ""}`,
            ...(e.finishReason === "MAX_TOKENS" ? { truncated: true } : {}),
          };
        else throw e;
      }
    }
    return refusal(this.o.logger, req, last, CALLS);
  }
}

/** Why the last call gave nothing usable. */
export interface LastRefusal {
  readonly kind: RefusalKind;
  readonly reason: string;
  readonly truncated?: boolean;
}

/**
 * The end of a request that got nothing usable: one log line naming the purpose, the chat and
 * the reason — a refusal is the model's choice (warn), an answer not in the contract a defect
 * (error) — and the `{ok: false}` outcome. Shared by every provider's `Llm`.
 */
export function refusal(
  logger: Logger,
  req: Pick<JsonRequest<unknown>, "purpose" | "chatId">,
  last: LastRefusal,
  calls: number,
): JsonOutcome<never> {
  logger[last.kind === "malformed" ? "error" : "warn"](
    {
      component: "llm",
      purpose: req.purpose,
      ...(req.chatId !== undefined ? { chatId: req.chatId } : {}),
      kind: last.kind,
      reason: last.reason,
      calls,
    },
    `no usable ${req.purpose} answer after ${calls} calls (${last.reason}); staying silent`,
  );
  return {
    ok: false,
    kind: last.kind,
    reason: last.reason,
    calls,
    ...(last.truncated ? { truncated: true } : {}),
  };
}

/**
 * No key, no call: shows the request body that would be sent (as Gemini would receive it) and
 * answers nothing.
 */
export class DryLlm implements Llm {
  constructor(
    private readonly show: (purpose: LlmPurpose, body: Record<string, unknown>) => void,
    private readonly model: string,
  ) {}

  modelFor(): string {
    return this.model;
  }

  onUsage(): () => void {
    return () => {};
  }

  async generateJson<T>(req: JsonRequest<T>): Promise<JsonOutcome<T>> {
    this.show(req.purpose, requestBody(req));
    return { ok: false, kind: "dry", reason: "dry run: no GEMINI_API_KEY", calls: 0 };
  }
}

/** The JSON body the SDK sends for a request (what the dry sandbox prints). */
export function requestBody(
  req: Pick<JsonRequest<unknown>, "purpose" | "schema" | "systemInstruction" | "contents">,
): Record<string, unknown> {
  const s = PURPOSES[req.purpose];
  return {
    contents: req.contents,
    systemInstruction: { role: "user", parts: [{ text: req.systemInstruction }] },
    generationConfig: {
      temperature: s.temperature,
      maxOutputTokens: s.maxOutputTokens,
      thinkingConfig: { thinkingBudget: s.thinkingBudget },
      responseMimeType: "application/json",
      responseJsonSchema: geminiJsonSchema(req.schema),
    },
  };
}

export function parseWith(schema: z.ZodType, text: string): unknown {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw new LlmFormatError(`not JSON: ${JSON.stringify(text.slice(0, 80))}`);
  }
  return schema.parse(raw);
}

export function formatReason(e: Error): string {
  if (e instanceof z.ZodError) {
    const issue = e.issues[0];
    return `off-schema: ${issue ? `${issue.path.join(".") || "answer"}: ${issue.message}` : e.message}`;
  }
  return e.message;
}
