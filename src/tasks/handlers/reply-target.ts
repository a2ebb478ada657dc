import type { ActionHandlerDeps } from "./action-deps";

/**
 * The message an answer (a send, a sticker) replies to: the plan's reply_to, else — in a group
 * where others wrote after the message answered, by the time the answer goes out — that message,
 * so the answer lands under it rather than after someone else's words.
 */
export function replyTarget(
  d: ActionHandlerDeps,
  chatId: string,
  p: { replyTo?: number; autoReplyTo?: number },
): number | undefined {
  if (p.replyTo !== undefined) return p.replyTo;
  if (p.autoReplyTo !== undefined && d.messages.othersWroteAfter(chatId, p.autoReplyTo)) return p.autoReplyTo;
  return undefined;
}
