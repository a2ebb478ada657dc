/**
 * How an action failed, in the scheduler's terms. The Telegram adapter maps RPC errors onto
 * these; anything else thrown by a handler counts as transient and is retried.
 */

/** Retrying cannot help (e.g. CHAT_WRITE_FORBIDDEN): fail the task now. */
export class PermanentError extends Error {
  constructor(message: string, readonly code?: string) {
    super(message);
    this.name = "PermanentError";
  }
}

/**
 * The server asked us to wait (FLOOD_WAIT_n, SLOWMODE_WAIT_n). `key` names what is limited
 * (a method in a chat, or a chat's slow mode) so other tasks behind the same limit wait too.
 */
export class RateLimitedError extends Error {
  constructor(readonly key: string, readonly seconds: number, readonly code: string) {
    super(`${code}: wait ${seconds}s (${key})`);
    this.name = "RateLimitedError";
  }
}

/** The server already has this action (RANDOM_ID_DUPLICATE): the task is done, not failed. */
export class AlreadyDoneError extends Error {
  constructor(message = "already applied (duplicate random_id)") {
    super(message);
    this.name = "AlreadyDoneError";
  }
}

/**
 * The account itself can no longer act (its session was revoked, duplicated or the account was
 * deactivated). Not the task's fault: the task stays pending for after the next login, and the
 * persona stops.
 */
export class AccountLostError extends Error {
  constructor(
    readonly code: string,
    readonly explanation: string,
  ) {
    super(`${code}: ${explanation}`);
    this.name = "AccountLostError";
  }
}
