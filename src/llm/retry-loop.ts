/**
 * The retry loop both model clients share (gemini-client.ts, openai-client.ts): the outage
 * state's admission before anything is sent, attempts with backoff (or the server's own requested
 * pause), the outage told when attempts run out, and a retry logged as it happens. What an SDK's
 * error means (its status, its Retry-After) stays with each client: it hands in `classify`.
 */
import type { Logger } from "pino";
import type { LlmAvailability } from "./availability";
import { LlmUnavailableError } from "./errors";
import type { Failure } from "./gemini-errors";

/** How many attempts, and how long between them. */
export interface RetryPolicy {
  /** Attempts in total, the first one included. */
  readonly maxAttempts: number;
  /** First backoff step (ms). */
  readonly baseDelayMs: number;
  /** Upper bound of one backoff wait (ms); a server asking for longer is not waited for. */
  readonly maxDelayMs: number;
}

/** A client's retry options with their defaults (4 attempts, 1 s first step, 30 s at most). */
export function retryPolicy(o: {
  readonly maxAttempts?: number;
  readonly baseDelayMs?: number;
  readonly maxDelayMs?: number;
}): RetryPolicy {
  const baseDelayMs = Math.max(0, o.baseDelayMs ?? 1000);
  return {
    maxAttempts: Math.max(1, Math.floor(o.maxAttempts ?? 4)),
    baseDelayMs,
    maxDelayMs: Math.max(baseDelayMs, o.maxDelayMs ?? 30_000),
  };
}

/** One model call as the loop runs it. */
export interface RetriedCall<R> {
  readonly model: string;
  readonly purpose: string;
  readonly availability: LlmAvailability;
  readonly policy: RetryPolicy;
  readonly log: Logger;
  readonly sleep: (ms: number) => Promise<void>;
  /** The vendor the not-sent error names (absent: Gemini). */
  readonly vendor?: string;
  /** The retry line's message ("gemini call failed, retrying"). */
  readonly retryMessage: string;
  /** One attempt. */
  attempt(): Promise<R>;
  /** What the SDK threw, read as a failure (gemini-errors.ts, openai-errors.ts). */
  classify(err: unknown, attempt: number): Failure;
}

/**
 * Run a call with retries. Resolves with the first answer and the attempts it took (the model is
 * up: any answer, a blocked or empty one too, shows it); throws a failure's error — a transient
 * one carries `retryInMs` — or LlmUnavailableError (not sent: the model is failing and another
 * call probes it).
 */
export async function callWithRetries<R>(c: RetriedCall<R>): Promise<{ response: R; attempts: number }> {
  const { model, availability } = c;
  const admission = availability.admit(model);
  if (!admission.go) {
    throw new LlmUnavailableError({
      model,
      reason: admission.outage.lastError,
      since: admission.outage.since,
      retryInMs: admission.retryInMs,
      ...(c.vendor !== undefined ? { vendor: c.vendor } : {}),
    });
  }
  // While the model is failing, the probe is one attempt: its retries are the outage's backoff.
  const maxAttempts = admission.probe ? 1 : c.policy.maxAttempts;
  for (let attempt = 1; ; attempt++) {
    let response: R;
    try {
      response = await c.attempt();
    } catch (err) {
      let failure: Failure;
      try {
        failure = c.classify(err, attempt);
      } catch (bug) {
        if (admission.probe) availability.release(model);
        throw bug;
      }
      if (!failure.retryable) {
        // The server answered (a 400, a bad key, an unknown model): it is up, the request is wrong.
        availability.answered(model);
        throw failure.error;
      }
      // Another call found the model failing meanwhile: stop here rather than add to the storm.
      const delayMs = availability.isUp(model)
        ? retryDelay(c.policy, failure, attempt, maxAttempts)
        : undefined;
      if (delayMs === undefined) {
        failure.error.retryInMs = availability.failed(model, failure.reason, {
          probe: admission.probe,
          attempts: attempt,
          serverDelayMs: failure.serverDelayMs,
        });
        throw failure.error;
      }
      // A blip the next attempt may cure: not an outage (yet), so not a warning.
      c.log.info(
        {
          model,
          purpose: c.purpose,
          attempt,
          status: failure.label,
          delayMs: Math.round(delayMs),
          error: failure.error.message,
        },
        c.retryMessage,
      );
      await c.sleep(delayMs);
      continue;
    }
    // Any answer, blocked or empty ones too, shows the model is up.
    availability.answered(model);
    return { response, attempts: attempt };
  }
}

/** How long to wait before the next attempt, or undefined to give up now. */
function retryDelay(
  p: RetryPolicy,
  failure: Failure,
  attempt: number,
  maxAttempts: number,
): number | undefined {
  if (!failure.retryable || attempt >= maxAttempts) return undefined;
  if (failure.serverDelayMs !== undefined) {
    // Retrying sooner than the server asked only earns another 429; waiting longer than our
    // bound would stall the caller. Give up and let it reschedule (the error carries retryAfterMs).
    return failure.serverDelayMs <= p.maxDelayMs ? failure.serverDelayMs : undefined;
  }
  // Exponential with "equal jitter": at least half the step, so retries neither bunch up nor vanish.
  const step = Math.min(p.maxDelayMs, p.baseDelayMs * 2 ** (attempt - 1));
  return step / 2 + Math.random() * (step / 2);
}
