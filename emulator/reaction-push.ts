/**
 * The push Telegram sends when someone reacts: `updateMessageReactions` to the author of the
 * message (others must poll `messages.getMessagesReactions` for the messages on their screen),
 * carrying the full summary (message-reactions.ts). It moves no pts: a missed one is not
 * replayed by getDifference.
 */
import { Api } from "telegram";
import { reactionsOf } from "./message-reactions";
import type { StoredMessage } from "./stored-message";
import type { TlViews } from "./tl-views";
import type { EmuUser, PreparedDelivery } from "./types";
import type { World } from "./world";

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
