/**
 * Reactions on messages: the server's per-message summary as one account sees it, and the push
 * Telegram sends when someone reacts.
 *
 * Telegram pushes `updateMessageReactions` to the author of the message (others must poll
 * `messages.getMessagesReactions` for the messages on their screen): the full summary — counts
 * per emoji (`chosen_order` on the viewer's own), and in private chats and groups
 * `recent_reactions` naming each reactor (`my` on the viewer's own, `unread` on others' reactions
 * to the viewer's message). It moves no pts: a missed one is not replayed by getDifference.
 */
import { Api } from "telegram";
import { toLong } from "./long";
import type { PreparedDelivery } from "./message-bus";
import type { StoredMessage } from "./stored-message";
import type { TlViews } from "./tl-views";
import type { EmuUser } from "./types";
import type { World } from "./world";

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

/** `updateMessageReactions` for `msg` as `viewer` sees it (its own id for the message). */
export function reactionsUpdate(
  world: World,
  views: TlViews,
  msg: StoredMessage,
  viewer: EmuUser,
): Api.UpdateMessageReactions | undefined {
  const msgId = world.idFor(msg, viewer.id);
  if (msgId === undefined) return undefined;
  return new Api.UpdateMessageReactions({
    peer: views.peer(msg.chat, viewer.id),
    msgId,
    ...(msg.topicId !== undefined ? { topMsgId: msg.topicId } : {}),
    reactions: reactionsOf(msg, viewer.id),
  });
}

/**
 * The push a reaction change causes: to the message's author, when it is an account other than
 * `reactorId` that still sees the message; with the reactors' users (min ones in a supergroup
 * for users the author never received in full) and the chat.
 */
export function reactionPush(
  world: World,
  views: TlViews,
  msg: StoredMessage,
  reactorId: number,
  nowMs: number,
): PreparedDelivery | undefined {
  const author = world.user(msg.fromId);
  if (!author?.isAccount || author.id === reactorId || msg.deleted || !msg.chat.members.has(author.id))
    return undefined;
  const update = reactionsUpdate(world, views, msg, author);
  if (!update) return undefined;
  const bag = views.entitiesFor([], author, [msg.chat]);
  const users = [...bag.users];
  const seen = new Set(users.map((u) => Number((u as Api.User).id)));
  const minForUnknown = msg.chat.chat.kind === "supergroup";
  for (const userId of msg.reactions.keys()) {
    const u = world.user(userId);
    if (!u || seen.has(userId)) continue;
    seen.add(userId);
    users.push(
      minForUnknown && !world.knows(author.id, userId) ? views.minUser(u) : views.user(u, author.id),
    );
  }
  return {
    account: author,
    updates: new Api.Updates({
      updates: [update],
      users,
      chats: bag.chats,
      date: Math.floor(nowMs / 1000),
      seq: 0,
    }),
  };
}
