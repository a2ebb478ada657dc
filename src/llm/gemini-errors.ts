/**
 * What the SDK or fetch threw, read as one of our errors (errors.ts) with what the retry loop needs
 * to decide: retry or not, how to name it in a log line and an outage, and the server's own pause
 * (Google's RetryInfo in the body, or a Retry-After header). Only this file and the client know the
 * SDK's error shape.
 */
import { ApiError } from "@google/genai";
import { z } from "zod";
import { systemClock } from "../base/clock";
import { TimeoutError } from "../base/timeout";
import { LlmHttpError, LlmNetworkError, LlmUnparsableError } from "./errors";

/** One failed attempt, classified. */
export interface Failure {
  readonly error: LlmHttpError | LlmNetworkError | LlmUnparsableError;
  readonly retryable: boolean;
  /** What the retry log line shows as `status`: the HTTP status, "network", "timeout", "unparsable" or "too large". */
  readonly label: number | "network" | "timeout" | "unparsable" | "too large";
  /** The failure in a few words, for the outage lines and `/status`. */
  readonly reason: string;
  /** The server's requested pause (RetryInfo, or a Retry-After header). */
  readonly serverDelayMs: number | undefined;
}

/** Statuses worth another attempt: rate limit, and the server-side failures Google documents as transient. */
const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([429, 500, 502, 503, 504]);

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

/**
 * An answer's body grew past the cap (gemini-client.ts: MAX_RESPONSE_BYTES): the download was
 * stopped there. A sound answer is a few KB; one that never ends (a broken proxy, a runaway
 * stream) would otherwise be buffered without limit.
 */
export class ResponseTooLargeError extends Error {
  constructor(readonly maxBytes: number) {
    super(
      `the answer was larger than ${Math.round(maxBytes / (1024 * 1024))} MB; its download was stopped there`,
    );
    this.name = "ResponseTooLargeError";
  }
}

/**
 * Map whatever the SDK/fetch threw on attempt `attempt` to one of our errors, or rethrow what we
 * do not understand. `redact` takes the API key out of every string copied from the SDK.
 */
export function classifyFailure(
  err: unknown,
  attempt: number,
  model: string,
  redact: (s: string) => string,
): Failure {
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
    const body = parseErrorBody(redact(err.message));
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
  if (err instanceof ResponseTooLargeError) {
    // Like a garbled answer: nothing usable came, and the next attempt may be sound.
    const error = new LlmUnparsableError({ detail: err.message, attempts: attempt, model, cause: err });
    return {
      error,
      retryable: true,
      label: "too large",
      reason: `an answer larger than ${Math.round(err.maxBytes / (1024 * 1024))} MB`,
      serverDelayMs: undefined,
    };
  }
  if (err instanceof SyntaxError) {
    // The SDK parses a 200's body as JSON: a cut-off or non-JSON body (a proxy's page) lands here.
    const error = new LlmUnparsableError({
      detail: redact(err.message),
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
    const detail = redact(describeNetworkFailure(err));
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

/** `Retry-After`: delta-seconds or an HTTP date (RFC 9110 §10.2.3); undefined when absent or unreadable. */
export function parseRetryAfter(value: string | undefined, now: number): number | undefined {
  if (value === undefined) return undefined;
  const v = value.trim();
  if (/^\d+$/.test(v)) return Number(v) * 1000;
  const at = Date.parse(v);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

export function isApiError(err: unknown): err is ApiError {
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
