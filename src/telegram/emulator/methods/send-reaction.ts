/**
 * messages.SendReaction: one standard reaction per user and message (a non-premium account);
 * an empty list removes it. Anything outside Telegram's standard list is REACTION_INVALID.
 */
import { Api } from "telegram";
import { RpcFault } from "../rpc-fault.js";
import { isStandardReaction } from "../../standard-reactions.js";
import type { StoredMessage } from "../stored-message.js";
import { defineMethod, updatesEnvelope } from "./method.js";
import { asMessageId, chatForInputPeer } from "./resolve-peer.js";

export const sendReaction = defineMethod("messages.SendReaction", Api.messages.SendReaction, (ctx, req) => {
  const { world, views, account } = ctx;
  const rec = chatForInputPeer(world, account, req.peer, "read");
  const msgId = asMessageId(req.msgId);
  const msg = world.findInChat(rec, msgId, account);
  if (!msg || msg.deleted || msg.service) throw new RpcFault("MESSAGE_ID_INVALID");
  const reactions = req.reaction ?? [];
  if (reactions.length > 1) throw new RpcFault("REACTIONS_TOO_MANY");
  const first = reactions[0];
  if (first === undefined || first instanceof Api.ReactionEmpty) {
    msg.reactions.delete(account.id);
  } else if (first instanceof Api.ReactionEmoji && isStandardReaction(first.emoticon)) {
    msg.reactions.set(account.id, first.emoticon);
  } else {
    throw new RpcFault("REACTION_INVALID");
  }
  const update = new Api.UpdateMessageReactions({
    peer: views.peer(rec, account.id),
    msgId,
    ...(msg.topicId !== undefined ? { topMsgId: msg.topicId } : {}),
    reactions: reactionsOf(msg, account.id),
  });
  return updatesEnvelope([update], views.entitiesFor([], account, [rec]), ctx.now);
});

/** Telegram's per-message reaction summary, with `chosenOrder` on the viewer's own reaction. */
export function reactionsOf(msg: StoredMessage, viewerId: number): Api.MessageReactions {
  const counts = new Map<string, number>();
  for (const emoji of msg.reactions.values()) counts.set(emoji, (counts.get(emoji) ?? 0) + 1);
  const mine = msg.reactions.get(viewerId);
  return new Api.MessageReactions({
    results: [...counts].map(
      ([emoticon, count]) =>
        new Api.ReactionCount({
          reaction: new Api.ReactionEmoji({ emoticon }),
          count,
          ...(emoticon === mine ? { chosenOrder: 0 } : {}),
        }),
    ),
  });
}
