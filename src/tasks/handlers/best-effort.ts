import { errorMessage } from "../../base/error-message";
import { AccountLostError, RateLimitedError } from "../errors";
import type { ActionHandlerDeps } from "./action-deps";

/**
 * Run a cosmetic action (typing, a read mark): skipped while a rate limit on it lasts; its
 * failure is a warning, never the task's failure. (GramActions bounds these requests to a few
 * seconds.)
 */
export async function bestEffort(
  d: ActionHandlerDeps,
  chatId: string,
  what: "typing" | "read",
  now: number,
  fn: () => Promise<void>,
): Promise<void> {
  const keys = d.actions.rateKeys(what, chatId);
  if (d.limits.isLimited(keys, now)) return;
  try {
    await fn();
  } catch (e) {
    // The account itself is gone: that is no cosmetic matter (the persona stops).
    if (e instanceof AccountLostError) throw e;
    if (e instanceof RateLimitedError) d.limits.hit(e, d.clock.now());
    // A limit its finder reports itself (a frozen account) needs no warning per action.
    const reported = e instanceof RateLimitedError && e.scope.reported === true;
    d.logger[reported ? "debug" : "warn"](
      { component: "tasks", chatId, action: what, err: errorMessage(e) },
      `${what} failed; going on without it`,
    );
  }
}
