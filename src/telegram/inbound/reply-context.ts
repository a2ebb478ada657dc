import type { Logger } from "pino";
import { systemClock } from "../../base/clock";
import { TimeoutError, withTimeout } from "../../base/timeout";
import type { ReplyContext } from "../../base/types";
import { displayName, type GramMessage } from "./parse";
import { PausedError, type ReadCalls } from "./read-calls";

/** Default bound on the reply-target fetch: a slow server must not hold up the answer. */
export const REPLY_FETCH_TIMEOUT_MS = 5000;

export interface ReplyFetchOptions {
  readonly selfId: string;
  readonly timeoutMs: number;
  readonly logger: Logger;
  /** Through here when given: not asked while its method is flood-paused; a flood wait pauses it. */
  readonly reads?: ReadCalls;
}

/**
 * What `m` replies to, through GramJS's own `getReplyMessage()` (one GetMessages request; the
 * server follows the reply header). Deleted → `deleted`; timeout or error → `unknown` (the id
 * is kept, the envelope shows no quote) with a warning; so is a fetch its method's flood wait
 * holds back (no request). Never throws.
 */
export async function fetchReplyContext(m: GramMessage, o: ReplyFetchOptions): Promise<ReplyContext> {
  const id = m.replyToMsgId;
  if (id == null) throw new Error("fetchReplyContext called for a message that is not a reply");
  try {
    // GramJS asks channels.getMessages in a channel, messages.getMessages elsewhere.
    const method = m.isChannel ? "channels.GetMessages" : "messages.GetMessages";
    // Real time, not the runtime's clock: this bounds network I/O.
    const replied = o.reads
      ? await o.reads.run(method, () => m.getReplyMessage(), o.timeoutMs)
      : await withTimeout(m.getReplyMessage(), o.timeoutMs, "reply fetch", systemClock);
    if (!replied) return { kind: "deleted", id };
    // A service message ("group created", "topic created") has no author's words to quote.
    if (replied.className !== "Message" || (replied as { action?: unknown }).action !== undefined) {
      return { kind: "found", id, text: "[service message]", senderName: "Telegram", isAgent: false };
    }
    const senderId = replied.senderId?.toString() ?? "";
    const isAgent = Boolean(replied.out) || senderId === o.selfId;
    return {
      kind: "found",
      id,
      text: replied.message || "[media]",
      senderName: displayName(replied.sender as Parameters<typeof displayName>[0], senderId),
      isAgent,
      ...(senderId !== "" ? { senderId } : {}),
    };
  } catch (e) {
    if (e instanceof PausedError && e.cause === undefined) {
      o.logger.debug(
        { component: "telegram", chatId: String(m.chatId), messageId: m.id, replyToId: id },
        "reply fetch held back by a flood wait; answering without the quote",
      );
      return { kind: "unknown", id };
    }
    const timedOut = e instanceof TimeoutError;
    o.logger.warn(
      {
        component: "telegram",
        chatId: String(m.chatId),
        messageId: m.id,
        replyToId: id,
        ...(timedOut ? { timeoutMs: o.timeoutMs } : { err: String(e) }),
      },
      timedOut
        ? "reply fetch timed out; answering without the quote"
        : "reply fetch failed; answering without the quote",
    );
    return { kind: "unknown", id };
  }
}
