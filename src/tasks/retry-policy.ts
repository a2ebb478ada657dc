import { OutcomeUnknownError, PermanentError } from "./errors";
import type { Task } from "./task";

/** Longest pause between retries of a task in doubt, once its ordinary attempts are spent. */
const IN_DOUBT_MAX_DELAY_MS = 5 * 60_000;

export interface RetryOptions {
  readonly maxAttempts: number;
  readonly retryDelayMs: number;
}

/** What becomes of a task whose run threw (rate limits and duplicates are handled before). */
export type FailureDecision =
  | { readonly type: "fail"; readonly permanent: boolean }
  | {
      readonly type: "retry";
      readonly at: number;
      readonly inDoubt: boolean;
      readonly becameInDoubt: boolean;
    };

/**
 * Transient failures are retried `retryDelayMs` apart up to `maxAttempts`, then the task fails;
 * permanent ones fail at once. A task with a random_id whose request may have reached the server
 * (no answer in time) is in doubt: failing it could be a lie — GramJS may still send the request
 * from its queue — so it is retried with the same random_id until the server answers, never
 * failed for transient errors (after `maxAttempts`, every IN_DOUBT_MAX_DELAY_MS). A permanent
 * error is an answer and fails it.
 */
export function afterFailure(task: Task, error: unknown, now: number, o: RetryOptions): FailureDecision {
  if (error instanceof PermanentError) return { type: "fail", permanent: true };
  const becameInDoubt = !task.inDoubt && task.randomId !== undefined && error instanceof OutcomeUnknownError;
  const inDoubt = Boolean(task.inDoubt) || becameInDoubt;
  if (!inDoubt && task.attempts >= o.maxAttempts) return { type: "fail", permanent: false };
  const delay =
    task.attempts < o.maxAttempts ? o.retryDelayMs : Math.max(o.retryDelayMs, IN_DOUBT_MAX_DELAY_MS);
  return { type: "retry", at: now + delay, inDoubt, becameInDoubt };
}
