/**
 * What can go wrong when asking Gemini for an answer, as a handful of classes that tell the
 * caller *what happened* (after grammY's GrammyError / HttpError split): the API refused
 * (`LlmHttpError`), the model or the prompt was blocked (`LlmBlockedError`), the answer held no
 * text (`LlmEmptyResponseError`), or the network failed or timed out (`LlmNetworkError`).
 *
 * Messages never contain the API key: the client redacts every string it copies from the SDK
 * before it reaches one of these constructors.
 */

/** Common base so a caller can `catch (e) { if (e instanceof LlmError) … }` for all of them. */
class LlmError extends Error {
  /**
   * Set by the client when it gave up on a transient failure (5xx, 429, network, timeout, an
   * unparsable answer) or refused to send while the model is unavailable: how long until the
   * model may be tried again (see availability.ts). A caller parks its work that long; undefined
   * means the failure is permanent (or not the server's).
   */
  retryInMs: number | undefined;
  /** The model the call was for, when the client knows it. */
  model: string | undefined;

  constructor(message: string, options?: { cause?: unknown; model?: string }) {
    super(message, options);
    this.name = new.target.name;
    this.model = options?.model;
    this.retryInMs = undefined;
  }
}

/** A transient failure the caller should wait out: the model and how long. */
export function llmUnavailable(
  e: unknown,
): { readonly model: string; readonly retryInMs: number; readonly code: string } | undefined {
  if (!(e instanceof LlmError) || e.retryInMs === undefined || e.model === undefined) return undefined;
  const code =
    e instanceof LlmHttpError
      ? `LLM_${e.status}`
      : e instanceof LlmNetworkError
        ? e.timedOut
          ? "LLM_TIMEOUT"
          : "LLM_NETWORK"
        : e instanceof LlmUnparsableError
          ? "LLM_UNPARSABLE"
          : "LLM_UNAVAILABLE";
  return { model: e.model, retryInMs: e.retryInMs, code };
}

/** The API answered with an HTTP error status. */
export class LlmHttpError extends LlmError {
  /** HTTP status, e.g. 429 or 503. */
  readonly status: number;
  /** Whether this status is one the client retries (429, 500, 502, 503, 504). */
  readonly retryable: boolean;
  /** Google's status word from the error body, e.g. "RESOURCE_EXHAUSTED", when present. */
  readonly apiStatus: string | undefined;
  /** Google's human-readable message from the error body (or the raw body when not JSON). */
  readonly apiMessage: string;
  /** The server's RetryInfo `retryDelay` in milliseconds, when it sent one. */
  readonly retryAfterMs: number | undefined;
  /** How many attempts were made before giving up. */
  readonly attempts: number;

  constructor(init: {
    status: number;
    retryable: boolean;
    apiStatus?: string;
    apiMessage: string;
    retryAfterMs?: number;
    attempts: number;
    model: string;
    /** Who answered, for the message (default "Gemini"). */
    vendor?: string;
  }) {
    const word = init.apiStatus !== undefined ? ` ${init.apiStatus}` : "";
    super(
      `${init.vendor ?? "Gemini"} ${init.model} answered HTTP ${init.status}${word} after ${init.attempts} attempt(s): ${init.apiMessage}`,
      { model: init.model },
    );
    this.status = init.status;
    this.retryable = init.retryable;
    this.apiStatus = init.apiStatus;
    this.apiMessage = init.apiMessage;
    this.retryAfterMs = init.retryAfterMs;
    this.attempts = init.attempts;
  }
}

/** Gemini refused to answer: the prompt or the candidate was blocked (safety, blocklist, …). */
export class LlmBlockedError extends LlmError {
  /** The block reason, e.g. "SAFETY", "PROHIBITED_CONTENT", "RECITATION". */
  readonly reason: string;
  /** Whether the prompt itself was blocked (`promptFeedback`) or the generated candidate. */
  readonly source: "prompt" | "candidate";

  constructor(init: { reason: string; source: "prompt" | "candidate"; model: string; vendor?: string }) {
    const what = init.source === "prompt" ? "the prompt" : "the answer";
    super(`${init.vendor ?? "Gemini"} ${init.model} blocked ${what}: ${init.reason}`, { model: init.model });
    this.reason = init.reason;
    this.source = init.source;
  }
}

/** A successful HTTP answer with no text in it (no candidates, or a candidate with no text parts). */
export class LlmEmptyResponseError extends LlmError {
  /** The candidate's finishReason, when there was a candidate. */
  readonly finishReason: string | undefined;

  constructor(init: { finishReason?: string; model: string; vendor?: string }) {
    const why = init.finishReason !== undefined ? ` (finishReason ${init.finishReason})` : "";
    super(`${init.vendor ?? "Gemini"} ${init.model} returned no text${why}`, { model: init.model });
    this.finishReason = init.finishReason;
  }
}

/** The request never got an HTTP answer: connection refused/reset, DNS, or the per-attempt timeout. */
export class LlmNetworkError extends LlmError {
  /** True when our own per-attempt deadline aborted the request. */
  readonly timedOut: boolean;
  /** How many attempts were made before giving up. */
  readonly attempts: number;

  constructor(init: {
    message: string;
    timedOut: boolean;
    attempts: number;
    model: string;
    cause?: unknown;
    vendor?: string;
  }) {
    super(
      `${init.vendor ?? "Gemini"} ${init.model} network failure after ${init.attempts} attempt(s): ${init.message}`,
      {
        cause: init.cause,
        model: init.model,
      },
    );
    this.timedOut = init.timedOut;
    this.attempts = init.attempts;
  }
}

/**
 * The model answered, but not in the shape asked for (not JSON, or not what the schema says).
 * The generic call (llm.ts) asks once more; a caller's own validator throws it (or a subclass).
 */
export class LlmFormatError extends LlmError {}

/**
 * An HTTP 200 whose body is not the JSON the API sends (cut off, an HTML page from a proxy): the
 * server or something in between is in trouble, so it is transient, like a 5xx.
 */
export class LlmUnparsableError extends LlmError {
  readonly attempts: number;

  constructor(init: { detail: string; attempts: number; model: string; cause?: unknown; vendor?: string }) {
    super(
      `${init.vendor ?? "Gemini"} ${init.model} sent an unparsable answer after ${init.attempts} attempt(s): ${init.detail}`,
      { cause: init.cause, model: init.model },
    );
    this.attempts = init.attempts;
  }
}

/**
 * Not sent: the model is failing (an outage is on) and this call is not the one probing it.
 * Carries `retryInMs` like the failures it stands for.
 */
export class LlmUnavailableError extends LlmError {
  constructor(init: { model: string; reason: string; since: number; retryInMs: number; vendor?: string }) {
    super(
      `${init.vendor ?? "Gemini"} ${init.model} is unavailable (failing since ${new Date(init.since).toISOString()}: ${init.reason}); next try in ${Math.ceil(init.retryInMs / 1000)} s`,
      {
        model: init.model,
      },
    );
    this.retryInMs = init.retryInMs;
  }
}
