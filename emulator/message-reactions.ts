/**
 * Reactions on messages: one per user, and the server's per-message summary as one account sees
 * it — counts per emoji (`chosen_order` on the viewer's own), and in private chats and groups
 * `recent_reactions` naming each reactor (`my` on the viewer's own, `unread` on others' reactions
 * to the viewer's message). What is pushed when someone reacts is reaction-push.ts.
 */
import { Api } from "telegram";
import { toLong } from "./long";
import type { StoredMessage } from "./stored-message";

/**
 * Sets (or, with no emoji, removes) `userId`'s reaction: one per user, as for a non-premium
 * account. A changed reaction becomes the newest. Returns false when nothing changed.
 */
export function setReaction(
  msg: StoredMessage,
  userId: number,
  emoji: string | undefined,
  nowMs: number,
): boolean {
  const had = msg.reactions.get(userId);
  if (emoji === undefined) return msg.reactions.delete(userId);
  if (had?.emoji === emoji) return false;
  msg.reactions.delete(userId);
  msg.reactions.set(userId, { emoji, date: nowMs });
  return true;
}

/** The message's reactions as `viewerId` sees them (what an update or a message carries). */
export function reactionsOf(msg: StoredMessage, viewerId: number): Api.MessageReactions {
  const counts = new Map<string, number>();
  for (const r of msg.reactions.values()) counts.set(r.emoji, (counts.get(r.emoji) ?? 0) + 1);
  const mine = msg.reactions.get(viewerId)?.emoji;
  const kind = msg.chat.chat.kind;
  // Broadcast channels never name their reactors; private chats and groups do.
  const named = !msg.chat.chat.broadcast;
  const ownMessage = msg.fromId === viewerId;
  return new Api.MessageReactions({
    ...(kind !== "dm" && named ? { canSeeList: true } : {}),
    results: [...counts].map(
      ([emoticon, count]) =>
        new Api.ReactionCount({
          reaction: new Api.ReactionEmoji({ emoticon }),
          count,
          ...(emoticon === mine ? { chosenOrder: 0 } : {}),
        }),
    ),
    ...(named
      ? {
          recentReactions: [...msg.reactions].reverse().map(
            ([userId, r]) =>
              new Api.MessagePeerReaction({
                peerId: new Api.PeerUser({ userId: toLong(userId) }),
                date: Math.floor(r.date / 1000),
                reaction: new Api.ReactionEmoji({ emoticon: r.emoji }),
                ...(userId === viewerId ? { my: true } : {}),
                ...(ownMessage && userId !== viewerId ? { unread: true } : {}),
              }),
          ),
        }
      : {}),
  });
}
