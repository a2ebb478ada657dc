/**
 * What the `openai` SDK threw, read as one of our errors (errors.ts), the way gemini-errors.ts
 * reads `@google/genai`'s: retry or not, a few words for the outage lines, the server's own pause
 * (`Retry-After`, `retry-after-ms`). Two failures are told apart because the caller acts on them
 * differently: a context too long for the model (the request is shortened, not sent again as is)
 * and a model the server does not have (a setting to fix, named in the line).
 */
import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from "openai";
import { systemClock } from "../base/clock";
import { LlmHttpError, LlmNetworkError, LlmUnparsableError } from "./errors";
import { parseRetryAfter, type Failure } from "./gemini-errors";

/** The vendor word in the messages of this provider's errors. */
export const OPENAI_VENDOR = "OpenAI-compatible";

/** Statuses worth another attempt: rate limit, server trouble, a model still loading (llama-server's 503). */
const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([408, 429, 500, 502, 503, 504]);

/**
 * The messages servers give for a prompt past the model's context: OpenAI's
 * `context_length_exceeded`, vLLM's "maximum context length", llama-server's "exceeds the available
 * context size", Ollama's and LM Studio's wordings.
 */
const CONTEXT_TOO_LONG =
  /context_length_exceeded|maximum context length|context (size|window|length)|exceeds the (available )?context|too many tokens|prompt is too long/i;

/** "No such model" as the servers say it: OpenAI's model_not_found, Ollama's "try pulling it", vLLM's "does not exist", LM Studio's "not loaded". */
const MODEL_MISSING = /model_not_found|model .*(not found|does not exist|not loaded)|try pulling|no model/i;

/** The request was longer than the model's context window: shorten it, do not send it again as is. */
export class LlmContextTooLongError extends LlmHttpError {}

/** The server does not have the model asked for (not pulled, not loaded, misspelt). */
export class LlmModelMissingError extends LlmHttpError {}

/** Map what the SDK threw on attempt `attempt`; rethrow what is neither an API nor a network failure. */
export function classifyOpenAiFailure(
  err: unknown,
  attempt: number,
  model: string,
  redact: (s: string) => string,
): Failure {
  const vendor = OPENAI_VENDOR;
  if (err instanceof APIConnectionTimeoutError) {
    const error = new LlmNetworkError({
      message: "no answer in time",
      timedOut: true,
      attempts: attempt,
      model,
      vendor,
    });
    return {
      error,
      retryable: true,
      label: "timeout",
      reason: "no answer in time",
      serverDelayMs: undefined,
    };
  }
  if (err instanceof APIConnectionError || err instanceof APIUserAbortError) {
    const detail = redact(describe(err));
    const error = new LlmNetworkError({
      message: detail,
      timedOut: false,
      attempts: attempt,
      model,
      vendor,
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
  if (err instanceof APIError && typeof err.status === "number") {
    const status = err.status;
    const apiMessage = redact(apiMessageOf(err));
    const code = typeof err.code === "string" ? err.code : undefined;
    const headers = err.headers;
    const ms = headers?.get("retry-after-ms");
    const serverDelayMs =
      ms !== null && ms !== undefined && /^\d+$/.test(ms.trim())
        ? Number(ms)
        : parseRetryAfter(headers?.get("retry-after") ?? undefined, systemClock.now());
    const init = {
      status,
      apiMessage,
      attempts: attempt,
      model,
      vendor,
      ...(code !== undefined ? { apiStatus: code } : {}),
      ...(serverDelayMs !== undefined ? { retryAfterMs: serverDelayMs } : {}),
    };
    const text = `${code ?? ""} ${apiMessage}`;
    const tooLong = (status === 400 || status === 413 || status === 422) && CONTEXT_TOO_LONG.test(text);
    const missing = !tooLong && (status === 404 || status === 400) && MODEL_MISSING.test(text);
    const retryable = !tooLong && !missing && RETRYABLE_STATUSES.has(status);
    const error = tooLong
      ? new LlmContextTooLongError({ ...init, retryable: false })
      : missing
        ? new LlmModelMissingError({ ...init, retryable: false })
        : new LlmHttpError({ ...init, retryable });
    const reason = `HTTP ${status}${code !== undefined ? ` ${code}` : ""}: ${truncate(apiMessage, 120)}`;
    return { error, retryable, label: status, reason, serverDelayMs };
  }
  if (err instanceof SyntaxError) {
    // A 200 whose body is not JSON (a proxy's page, a body cut off).
    const error = new LlmUnparsableError({
      detail: redact(err.message),
      attempts: attempt,
      model,
      vendor,
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
  throw err;
}

/** The server's own words: `error.message` of an OpenAI-style body, else the SDK's message. */
function apiMessageOf(err: APIError): string {
  const body = err.error as { message?: unknown; error?: unknown } | undefined;
  if (body && typeof body.message === "string") return truncate(body.message);
  if (body && typeof body.error === "string") return truncate(body.error);
  return truncate(err.message);
}

function describe(err: Error): string {
  const code = causeCode(err);
  return code !== undefined ? `${err.message}: ${code}` : err.message;
}

/** The socket error's code (ECONNREFUSED, ENOTFOUND…) somewhere down an error's causes. */
export function causeCode(err: unknown): string | undefined {
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string" && /^E[A-Z]+$|^UND_ERR/.test(code)) return code;
  }
  return undefined;
}

function truncate(s: string, max = 500): string {
  return s.length > max ? `${s.slice(0, max)}…` : s;
}
