/**
 * Bounded waits on the Clock seam: the one `withTimeout` and the one `TimeoutError`. The caller
 * names the clock: the runtime's (fake in tests) for waits that are part of the persona's own
 * schedule, `systemClock` for bounds on real I/O (a GramJS request, an HTTP attempt, a download),
 * which run in real time whatever clock the runtime has.
 */
import type { Clock } from "./types";

/** `what` got no answer within `ms`. */
export class TimeoutError extends Error {
  constructor(
    readonly what: string,
    readonly ms: number,
    options?: { cause?: unknown },
  ) {
    super(`${what}: no answer within ${ms} ms`, options);
    this.name = "TimeoutError";
  }
}

/**
 * `work`, or a {@link TimeoutError} naming `what` when it has not settled within `ms` on `clock`.
 * The timer is cleared either way; whatever happens to `work` after the deadline is ignored
 * (never an unhandled rejection).
 */
export function withTimeout<T>(work: Promise<T>, ms: number, what: string, clock: Clock): Promise<T> {
  work.catch(() => undefined);
  let timer: unknown;
  const deadline = new Promise<never>((_, reject) => {
    timer = clock.setTimeout(() => reject(new TimeoutError(what, ms)), ms);
  });
  return Promise.race([work, deadline]).finally(() => clock.clearTimeout(timer));
}

/** For `.catch` after {@link withTimeout}: a timeout becomes `value`, any other error is rethrown. */
export function onTimeout<V>(value: V): (e: unknown) => V {
  return (e) => {
    if (e instanceof TimeoutError) return value;
    throw e;
  };
}

/** Resolves after `ms` on `clock`. */
export function sleep(ms: number, clock: Clock): Promise<void> {
  return new Promise((resolve) => clock.setTimeout(resolve, ms));
}
