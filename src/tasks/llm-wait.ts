/**
 * How a task that needs the LLM waits out an outage: it is parked under the model's rate key
 * (`llm:<model>`) for as long as the client says, as a probe limit — when the pause ends, one
 * task of that key runs (the probe) while the others wait; its success lifts the limit and they
 * all go, its failure parks it again for the next, longer pause. The limit is a row, so a
 * restart keeps waiting. Never counted as a failed attempt, so a message waits as long as its
 * answer-age limit allows.
 */
import { llmUnavailable } from "../llm/errors";
import { RateLimitedError } from "./errors";

/** Rate-limit key shared by every planning and addressing call of the agent (beside the model's key). */
export const LLM_RATE_KEY = "llm";

/** The rate key of every task that calls `model`. */
export function llmRateKey(model: string): string {
  return `llm:${model}`;
}

/**
 * The error to throw instead of `e` when `e` is a transient LLM failure (the model is down, or
 * the call gave up on a 5xx, 429, timeout, reset or unparsable answer); undefined otherwise.
 */
export function parkOnOutage(e: unknown): RateLimitedError | undefined {
  const u = llmUnavailable(e);
  if (!u) return undefined;
  return new RateLimitedError(llmRateKey(u.model), u.retryInMs / 1000, u.code, { probe: true, paced: true });
}
