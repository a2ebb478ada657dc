/**
 * Reactions as history items: people's reactions to the persona's messages (`inbound_reaction`)
 * and the persona's own reactions (`outbound_reaction`) — only on messages in view (the window,
 * the injected messages and the targets), the newest {@link REACTION_ITEMS_MAX}. One range read
 * of the reactions table, no request; the reactors are named from the entity store (their users
 * came with the reaction update).
 */
import type { ReactionStore } from "../store/reactions";
import type { ReactionItem } from "./history-item";
import type { SpeakerDirectory } from "./speaker-directory";

/** Reaction items per prompt at most (the newest): each costs ~25 tokens. */
const REACTION_ITEMS_MAX = 10;
/** Rows one read scans (the newest in the id range of the messages in view), before keeping those on them. */
const REACTION_SCAN = 200;

export interface ReactionItemsInput {
  readonly chatId: string;
  readonly chatType: string;
  /** Ids of the messages in view. */
  readonly messageIds: readonly number[];
  readonly speakers: SpeakerDirectory;
  readonly max?: number;
}

export function reactionItems(store: ReactionStore, i: ReactionItemsInput): ReactionItem[] {
  if (i.messageIds.length === 0) return [];
  const inView = new Set(i.messageIds);
  let lo = Infinity;
  let hi = -Infinity;
  for (const id of inView) {
    lo = Math.min(lo, id);
    hi = Math.max(hi, id);
  }
  const rows = store.inRange(i.chatId, lo, hi, REACTION_SCAN).filter((r) => inView.has(r.messageId));
  return rows.slice(-(i.max ?? REACTION_ITEMS_MAX)).map((r) => ({
    kind: r.isAgent ? "outbound_reaction" : "inbound_reaction",
    chatId: i.chatId,
    chatType: i.chatType,
    date: r.date,
    messageId: r.messageId,
    emoji: r.emoji,
    sender: r.isAgent ? i.speakers.self : i.speakers.sender(r.reactorId, undefined),
  }));
}
