/**
 * How an action failed, in the scheduler's terms. The Telegram adapter maps RPC errors onto
 * these; anything else thrown by a handler counts as transient and is retried.
 */

/** Retrying cannot help (e.g. CHAT_WRITE_FORBIDDEN): fail the task now. */
export class PermanentError extends Error {
  constructor(
    message: string,
    readonly code?: string,
  ) {
    super(message);
    this.name = "PermanentError";
  }
}

/** How a limit spreads beyond the key it was met on (see tasks/rate-limits.ts). */
export interface RateLimitScope {
  /**
   * The same limit met under two or more keys sharing this account key within a short window
   * (FLOOD_WAIT on one method in two chats) pauses the account key too: the method account-wide.
   */
  readonly accountKey?: string;
  /**
   * The server named no end (PEER_FLOOD): `seconds` is our own pause, doubled on every repeat,
   * and when it ends a single task probes whether the limit is gone while the others wait.
   */
  readonly probe?: boolean;
  /**
   * The pause is the caller's own backoff (already jittered and growing, or the server's own
   * delay): taken as given, never doubled, and reported by the caller — no log lines here. The
   * LLM's outages (tasks/llm-wait.ts).
   */
  readonly paced?: boolean;
  /**
   * The caller reports this limit itself, in one line of its own (a frozen account, whose line
   * says what Telegram said and what the owner can do): the engine's own lines about it are debug.
   */
  readonly reported?: boolean;
}

/**
 * The server asked us to wait (FLOOD_WAIT_n, SLOWMODE_WAIT_n, PEER_FLOOD). `key` names what is
 * limited (a method in a chat, a chat's slow mode, sends to non-contacts) so other tasks behind
 * the same limit wait too.
 */
export class RateLimitedError extends Error {
  constructor(
    readonly key: string,
    readonly seconds: number,
    readonly code: string,
    readonly scope: RateLimitScope = {},
  ) {
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

/**
 * The request may or may not have reached the server (no answer in time; GramJS may still send
 * it from its queue). A task with a random_id is then "in doubt": it is retried with the same
 * random_id until the server's answer settles it, and never failed for it.
 */
export class OutcomeUnknownError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "OutcomeUnknownError";
  }
}

/**
 * Errors known to mean nothing reached the chat whatever their class says (a voice note's upload
 * failed before its send was asked): the own-sends tracker drops its "this is hers" entry for
 * them instead of keeping it in doubt, so the owner's own voice note is never taken for hers.
 */
const NOTHING_SENT = new WeakSet<object>();

/** Mark `e` as an error after which nothing was sent; returns it. */
export function nothingSent<E extends object>(e: E): E {
  NOTHING_SENT.add(e);
  return e;
}

/** Whether `e` was marked by {@link nothingSent}. */
export function isNothingSent(e: unknown): boolean {
  return typeof e === "object" && e !== null && NOTHING_SENT.has(e);
}
