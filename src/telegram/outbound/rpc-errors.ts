/**
 * The RPC error policy of the persona's actions: what a GramJS error — or no answer in time —
 * means to the task engine (tasks/errors.ts), and which rate-limit keys each action waits on. The
 * keys an error raises and the keys an action checks are made here, together, so they agree.
 *
 * - An account-terminal error (a lost session, connection/account-errors.ts) → AccountLostError.
 * - FLOOD_WAIT → RateLimitedError keyed by method and chat (Telegram paces sends per destination,
 *   and one chat's wait must not stall the others), spreading to the whole method when it strikes
 *   two chats at once (tasks/rate-limits.ts); SLOWMODE_WAIT → keyed by chat; PEER_FLOOD → sends to
 *   non-contacts pause (every private chat: the store does not know who is a contact) until a
 *   probe goes through; USER_BANNED_IN_CHANNEL (spam-limited in every supergroup) → sends to
 *   supergroups pause the same way, private chats go on.
 * - FROZEN_METHOD_INVALID, whatever its code (Telegram sends 420, TDLib remaps it to 406): the
 *   account is frozen (read-only) — every send, sticker, reaction, typing and block pauses until a
 *   probe goes through, and account-health.ts says so in one line (the engine's own lines about it
 *   are debug). FROZEN_PARTICIPANT_MISSING: that peer is out of a frozen account's reach, for good.
 * - RANDOM_ID_DUPLICATE → AlreadyDoneError (the send went out before).
 * - The errors no retry can fix, and any other 4xx but 420 → PermanentError (the task fails).
 * - No answer within the request's bound → OutcomeUnknownError (it may still go out).
 * - Anything else is thrown as it is (the engine retries it as transient).
 */
import { errors } from "telegram";
import { TimeoutError } from "../../base/timeout";
import { AlreadyDoneError, OutcomeUnknownError, PermanentError, RateLimitedError } from "../../tasks/errors";
import type { ChatActions } from "../../tasks/actions-port";
import { accountLost } from "../connection/account-errors";

/** RPC errors that no retry can fix: fail the task at once. Any other 4xx is treated the same. */
const PERMANENT = new Set([
  "CHAT_WRITE_FORBIDDEN",
  "PEER_ID_INVALID",
  "MESSAGE_ID_INVALID",
  "CHAT_ADMIN_REQUIRED",
  "CHANNEL_PRIVATE",
  "USER_IS_BLOCKED",
  "YOU_BLOCKED_USER",
  "REACTION_INVALID",
  "MESSAGE_TOO_LONG",
  "MESSAGE_EMPTY",
  "FROZEN_PARTICIPANT_MISSING",
]);

/** The TL method each action kind uses; flood waits are remembered per method and chat. */
export const METHOD = {
  send: "messages.SendMessage",
  sticker: "messages.SendMedia",
  react: "messages.SendReaction",
  typing: "messages.SetTyping",
  read: "messages.ReadHistory",
  block: "contacts.Block",
} as const satisfies Record<Parameters<ChatActions["rateKeys"]>[0], string>;

/**
 * A method paused account-wide (after flood waits on it in two chats, see tasks/rate-limits.ts;
 * the reading methods of catch-up, resolve and reply fetch at their first flood wait,
 * telegram/inbound/read-calls.ts).
 */
export const methodKey = (method: string) => `flood:${method}`;
const floodKey = (method: string, chatId: string) => `flood:${method}:${chatId}`;
const slowmodeKey = (chatId: string) => `slowmode:${chatId}`;
/** PEER_FLOOD: the account may not message people who are not its contacts. */
export const PEER_FLOOD_KEY = "peer-flood";
/**
 * USER_BANNED_IN_CHANNEL: the account is spam-limited in every supergroup (Telegram's answer to
 * a send there, whatever the group): sends to supergroups pause, private chats go on.
 */
export const GROUP_BAN_KEY = "group-ban";
/** Like PEER_FLOOD it names no end: supergroup sends pause this long, then one send probes. */
const GROUP_BAN_PAUSE_SEC = 3 * 3600;
/** FROZEN_METHOD_INVALID: Telegram froze the account; nothing goes out. */
export const FROZEN_KEY = "account-frozen";
/**
 * PEER_FLOOD names no end. Sends to non-contacts pause this long, then one send probes; each
 * repeat doubles the pause (up to a day, see RateLimits).
 */
const PEER_FLOOD_PAUSE_SEC = 3 * 3600;
/**
 * A freeze names no end either (it lasts until an appeal is accepted): everything that writes
 * pauses this long, then one send probes; each repeat doubles the pause (up to a day).
 */
const FROZEN_PAUSE_SEC = 3600;

/** Telegram's error for a method a frozen account may not use, whatever its code. */
export function isFrozen(e: unknown): e is InstanceType<typeof errors.RPCError> {
  return e instanceof errors.RPCError && e.errorMessage === "FROZEN_METHOD_INVALID";
}

/** Private chats have positive (user) ids. */
const isDmId = (chatId: string) => !chatId.startsWith("-");

/** The rate-limit keys an action of this kind in this chat waits on (ChatActions.rateKeys). */
export function rateKeys(action: keyof typeof METHOD, chatId: string): readonly string[] {
  const keys = [floodKey(METHOD[action], chatId), methodKey(METHOD[action])];
  // A frozen account reads on (read marks included); it writes nothing.
  if (action !== "read") keys.push(FROZEN_KEY);
  if (action === "send" || action === "sticker") keys.push(slowmodeKey(chatId));
  if ((action === "send" || action === "sticker") && isDmId(chatId)) keys.push(PEER_FLOOD_KEY);
  // Telegram refuses typing there too (USER_BANNED_IN_CHANNEL on setTyping): it is skipped meanwhile.
  if ((action === "send" || action === "sticker" || action === "typing") && chatId.startsWith("-100"))
    keys.push(GROUP_BAN_KEY);
  return keys;
}

/**
 * Map what a request for `method` in `chatId` threw onto the task engine's vocabulary (see the
 * file comment). `e` is a GramJS error, or the TimeoutError of the request's own bound.
 */
export function taskError(e: unknown, method: string, chatId: string): Error {
  // No answer in time: the request may still be in GramJS's queue and go out later, so its
  // outcome is unknown: the retry reuses the random_id, and the server's answer settles it.
  if (e instanceof TimeoutError) return new OutcomeUnknownError(e.message);
  const lost = accountLost(e);
  if (lost) return lost;
  // Before the flood checks: Telegram sends it as a 420 (GramJS's FloodError, without seconds).
  if (isFrozen(e))
    return new RateLimitedError(FROZEN_KEY, FROZEN_PAUSE_SEC, "FROZEN_METHOD_INVALID", {
      probe: true,
      reported: true,
    });
  if (e instanceof errors.SlowModeWaitError)
    return new RateLimitedError(slowmodeKey(chatId), e.seconds, `SLOWMODE_WAIT_${e.seconds}`);
  if (e instanceof errors.FloodWaitError) {
    return new RateLimitedError(floodKey(method, chatId), e.seconds, `FLOOD_WAIT_${e.seconds}`, {
      accountKey: methodKey(method),
    });
  }
  if (e instanceof errors.RPCError) {
    const msg = e.errorMessage;
    if (msg === "PEER_FLOOD")
      return new RateLimitedError(PEER_FLOOD_KEY, PEER_FLOOD_PAUSE_SEC, "PEER_FLOOD", { probe: true });
    if (msg === "USER_BANNED_IN_CHANNEL")
      return new RateLimitedError(GROUP_BAN_KEY, GROUP_BAN_PAUSE_SEC, "USER_BANNED_IN_CHANNEL", {
        probe: true,
      });
    if (msg === "RANDOM_ID_DUPLICATE") return new AlreadyDoneError();
    if (PERMANENT.has(msg) || (e.code !== undefined && e.code >= 400 && e.code < 500 && e.code !== 420)) {
      return new PermanentError(`${method} in ${chatId}: ${msg} (${e.code})`, msg);
    }
  }
  return e instanceof Error ? e : new Error(String(e));
}
