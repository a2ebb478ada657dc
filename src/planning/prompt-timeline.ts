/**
 * The history's order and each message's reply line: messages by id with reactions and notes
 * placed among them by date, and what a reply shows of the message it answers (prompt.ts).
 */
import type { StoredMessage } from "../store/messages";
import type { ReplyContext } from "../base/types";
import type { EnvelopeReply } from "../context/envelope";
import type { HistoryItem } from "../context/history-item";
import type { SpeakerDirectory } from "../context/speaker-directory";
import type { PromptInput } from "./prompt-input";

/**
 * The history in order. Messages go by id (ids grow per chat; dates do not order them: the
 * persona's own rows carry the local clock, everyone else's Telegram's, and the two may disagree).
 * Items without an id of their own (reactions, notes) are placed among them by date: after the
 * last message (by id) dated no later than the item, and never before the message a reaction is
 * to; items in the same place keep date order. One skewed date can move an item by a message or
 * two, but never a message.
 */
export function mergeTimeline(
  messages: readonly StoredMessage[],
  extras: readonly HistoryItem[],
): (StoredMessage | HistoryItem)[] {
  const after = new Map<number, HistoryItem[]>(); // index of the message an item follows (-1: before all)
  for (const x of extras) {
    let at = -1;
    for (const [n, m] of messages.entries())
      if (m.date <= x.date || (x.kind !== "system" && m.messageId === x.messageId)) at = n;
    const list = after.get(at) ?? [];
    list.push(x);
    after.set(at, list);
  }
  const out: (StoredMessage | HistoryItem)[] = [...(after.get(-1) ?? [])];
  for (const [n, m] of messages.entries()) out.push(m, ...(after.get(n) ?? []));
  return out;
}

/**
 * A message's reply line and quote. Quote = Telegram's partial quote when the sender made one;
 * else the replied-to text only when that message is not in view (so a message in view is never
 * repeated). A target's reply fetched on arrival is brought up to date by the stored copy.
 */
export function replyView(
  m: StoredMessage,
  fetched: ReplyContext | undefined,
  inView: ReadonlySet<number>,
  i: PromptInput,
  speakers: SpeakerDirectory,
): { reply?: EnvelopeReply; quote?: string } {
  if (m.replyToId === undefined) return m.quote !== undefined ? { quote: m.quote } : {};
  const id = m.replyToId;
  const stored = i.lookup(id);
  const partial = m.quote;
  if (stored) {
    if (stored.deleted)
      return { reply: { kind: "deleted", id }, ...(partial !== undefined ? { quote: partial } : {}) };
    const sender = stored.isAgent ? speakers.self : speakers.sender(stored.senderId, stored.senderName);
    const quote = partial ?? (inView.has(id) ? undefined : stored.text);
    return {
      reply: { kind: "found", id, sender, isAgent: stored.isAgent },
      ...(quote !== undefined ? { quote } : {}),
    };
  }
  if (fetched?.kind === "found") {
    // Not stored (older than what the account has seen): the fetch is all we know.
    const sender = fetched.isAgent
      ? speakers.self
      : speakers.sender(fetched.senderId ?? "0", fetched.senderName);
    return { reply: { kind: "found", id, sender, isAgent: fetched.isAgent }, quote: partial ?? fetched.text };
  }
  if (fetched?.kind === "deleted")
    return { reply: { kind: "deleted", id }, ...(partial !== undefined ? { quote: partial } : {}) };
  return { reply: { kind: "unknown", id }, ...(partial !== undefined ? { quote: partial } : {}) };
}
